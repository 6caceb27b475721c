// Merchant webhook body and signatures (docs/rules.md#webhook-body and #webhook-signatures).
import { createHmac } from 'node:crypto'
import { WebhookBody, WithdrawalWebhookBody } from '../contract/api.ts'

/**
 * Compact JSON with every non-ASCII character escaped as \uXXXX, in a fixed key order, so a
 * receiver hashing the raw body and one re-serializing with Python's
 * json.dumps(body, separators=(',', ':')) compute the same bytes.
 */
function serializeInOrder<T extends object>(schema: { properties: object }, body: T): string {
  // The body's key order is the schema's.
  const ordered = Object.fromEntries(Object.keys(schema.properties).map((key) => [key, body[key as keyof T]]))
  return JSON.stringify(ordered).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

export const serializeWebhookBody = (body: WebhookBody): string => serializeInOrder(WebhookBody, body)
export const serializeWithdrawalWebhook = (body: WithdrawalWebhookBody): string => serializeInOrder(WithdrawalWebhookBody, body)

/** The spec's X-Webhook-Signature: hex HMAC-SHA256 of the body, keyed with the secret. */
export function specSignature(secret: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')
}

/** Standard Webhooks key: the base64 part of a whsec_ secret, else the secret's UTF-8 bytes. */
export function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8')
}

/** The Standard Webhooks headers for one attempt. */
export function standardWebhooksHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const signature = createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` }
}
