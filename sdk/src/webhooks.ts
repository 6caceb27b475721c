// Verifies a webhook before trusting it: the Standard Webhooks signature over id, timestamp and
// raw body (with a time tolerance against replays) and, when present, X-Webhook-Signature.
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { AnyWebhookEvent, WebhookEvent } from './types.ts'

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'WebhookVerificationError'
  }
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>

export type VerifyOptions = {
  /** How far webhook-timestamp may be from now, in seconds; 300 when omitted. */
  toleranceSeconds?: number
  /** Now, in milliseconds since the epoch; a test may pass its own. */
  now?: () => number
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]
  return Array.isArray(entry) ? entry[0] : entry
}

/** The Standard Webhooks key: the base64 part of a whsec_ secret, else the secret's UTF-8 bytes. */
function standardKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8')
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/**
 * The event, if the webhook is authentic and recent; otherwise a WebhookVerificationError.
 * Pass the raw body exactly as received (not re-serialized JSON) and the secret you sent as
 * webhook_secret, plain or whsec_. Charges' and withdrawals' webhooks are signed alike: the type
 * says which the URL receives, a charge's unless told (`verifyWebhook<WithdrawalWebhookEvent>`,
 * or `<AnyWebhookEvent>` for both, told apart by `event`).
 */
export function verifyWebhook<Event extends AnyWebhookEvent = WebhookEvent>(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, options: VerifyOptions = {}): Event {
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8')
  const id = header(headers, 'webhook-id')
  const timestamp = header(headers, 'webhook-timestamp')
  const signatures = header(headers, 'webhook-signature')
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature.')
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a Unix time.')
  const tolerance = options.toleranceSeconds ?? 300
  const now = Math.floor((options.now ?? Date.now)() / 1000)
  if (Math.abs(now - Number(timestamp)) > tolerance) throw new WebhookVerificationError('webhook-timestamp is outside the tolerance: a replay, or a clock far off.')

  const expected = createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2)
    return version === 'v1' && signature !== undefined && sameText(signature, expected)
  })
  if (!matches) throw new WebhookVerificationError('webhook-signature does not match: wrong secret, or the body was changed.')

  const specSignature = header(headers, 'x-webhook-signature')
  if (specSignature !== undefined && !sameText(specSignature.toLowerCase(), createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex'))) {
    throw new WebhookVerificationError('X-Webhook-Signature does not match.')
  }
  return JSON.parse(body) as Event
}
