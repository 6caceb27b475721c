export { PixChargeClient, PixChargeError, type ClientOptions } from './client.ts'
export { verifyWebhook, WebhookVerificationError, type VerifyOptions, type WebhookHeaders } from './webhooks.ts'
export type * from './types.ts'
