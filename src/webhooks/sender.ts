// Delivers one merchant webhook attempt: POSTs the stored body with its signatures to a
// destination checked as the connection is opened (destination.ts), never follows redirects,
// reads at most a little of the reply, records the attempt, and says when to try again
// (docs/rules.md#webhook-delivery).
import type { Clock } from '../clock.ts'
import { parseWebhookUrl } from '../domain/charge-request.ts'
import type { Store } from '../store/store.ts'
import type { WebhookDestinations } from './destination.ts'
import { specSignature, standardWebhooksHeaders } from './signature.ts'

/** Delay before retry n (after attempt n fails): about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 14 h. */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, 50_400_000]
const MAX_RESPONSE_BYTES = 4_096

export type SenderDeps = {
  store: Store
  clock: Clock
  /** webhook-timestamp's time: the receiver checks it against its own clock, never the sandbox's (docs/rules.md#webhook-signatures). */
  wallClock: Clock
  publicWebhooksOnly: boolean
  /** Who may be called, and the client that calls them: a receiver is called again over the connection its last event used. */
  webhookDestinations: WebhookDestinations
  random?: () => number
}

/** ±10 % jitter so a recovering receiver is not hit by every retry at once. */
function withJitter(ms: number, random: () => number): number {
  return Math.round(ms * (0.9 + 0.2 * random()))
}

export type AttemptOutcome = 'delivered' | 'gone' | 'http_error' | 'network_error'

/** What one attempt's answer means: any 2xx delivers, 410 stops for good, anything else (or no answer) is retried. */
export function attemptOutcome(statusCode: number | null): AttemptOutcome {
  if (statusCode === null) return 'network_error'
  if (statusCode >= 200 && statusCode < 300) return 'delivered'
  return statusCode === 410 ? 'gone' : 'http_error'
}

/**
 * Returns the time of the next attempt, or null when the event is settled (delivered, gone,
 * failed). `requestDone` is called once the receiver's part is over, before the attempt is recorded.
 */
export async function deliverWebhook(deps: SenderDeps, eventId: string, requestDone: () => void): Promise<Date | null> {
  const event = await deps.store.webhookEvents.findForDelivery(eventId)
  if (!event || event.webhook_url === null || event.state !== 'pending') return null
  const startedAt = deps.clock.now()
  const started = performance.now()
  let statusCode: number | null = null
  let error: string | null = null
  try {
    const url = parseWebhookUrl(event.webhook_url, deps.publicWebhooksOnly)
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'pix-charge-service-webhooks/1' }
    const timestamp = Math.floor(deps.wallClock.now().getTime() / 1000)
    if (event.webhook_secret !== null) {
      headers['x-webhook-signature'] = specSignature(event.webhook_secret, event.body)
      Object.assign(headers, standardWebhooksHeaders(event.webhook_secret, event.id, timestamp, event.body))
    } else {
      headers['webhook-id'] = event.id
      headers['webhook-timestamp'] = String(timestamp)
    }
    const response = await deps.webhookDestinations.call(url, { method: 'POST', headers, body: event.body, redirects: 'answer', maxReplyBytes: MAX_RESPONSE_BYTES })
    statusCode = response.status
  } catch (caught) {
    error = (caught as Error).message || String(caught)
  }
  requestDone()
  const attempt = { eventId, at: startedAt, statusCode, durationMs: Math.round(performance.now() - started), error }
  const attempts = event.attempts + 1

  const outcome = attemptOutcome(statusCode)
  if (outcome === 'delivered') {
    await deps.store.webhookEvents.recordAttempt(attempt, { state: 'delivered', attempts, deliveredAt: deps.clock.now() })
    return null
  }
  if (outcome === 'gone') {
    await deps.store.webhookEvents.recordAttempt(attempt, { state: 'gone', attempts })
    return null
  }
  const delay = RETRY_SCHEDULE_MS[attempts - 1]
  if (delay === undefined) {
    await deps.store.webhookEvents.recordAttempt(attempt, { state: 'failed', attempts })
    return null
  }
  await deps.store.webhookEvents.recordAttempt(attempt, { attempts })
  return new Date(deps.clock.now().getTime() + withJitter(delay, deps.random ?? Math.random))
}
