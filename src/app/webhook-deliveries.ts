// Merchants see every webhook event of their own charges with each attempt, and can ask for a
// redelivery: the same body and webhook-id, attempted again now.
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import type { Store } from '../store/store.ts'

export async function listWebhookDeliveries(deps: { store: Store }, request: { merchantAccountId: number; chargeId: string | null }) {
  const events = await deps.store.webhookEvents.listForMerchant(request.merchantAccountId, request.chargeId, 100)
  return {
    deliveries: events.map((event) => ({
      id: event.id,
      payment_id: event.charge_id,
      withdrawal_id: event.withdrawal_id,
      event: event.event,
      state: event.state,
      attempts: event.attempts,
      created_at: event.created_at.toISOString(),
      delivered_at: event.delivered_at?.toISOString() ?? null,
      attempt_log: event.attempt_log.map((attempt) => ({
        at: attempt.at.toISOString(),
        status_code: attempt.status_code,
        duration_ms: attempt.duration_ms,
        error: attempt.error,
      })),
    })),
  }
}

export async function redeliverWebhook(deps: { store: Store; clock: Clock }, request: { merchantAccountId: number; eventId: string }) {
  return deps.store.transaction(async (store) => {
    const event = await store.webhookEvents.findForMerchant(request.eventId, request.merchantAccountId)
    if (!event) throw new DomainError('webhook_delivery_not_found', { param: 'id' })
    const now = deps.clock.now()
    // A pending event's next attempt is brought forward to now (docs/rules.md#webhook-delivery: a
    // redelivery sends now, even while retries are pending); otherwise a fresh schedule starts now.
    if (event.state === 'pending') {
      await store.jobs.deliverNow(event.id, now)
    } else {
      await store.webhookEvents.update(event.id, { state: 'pending', attempts: 0 })
      await store.jobs.enqueue('deliver_webhook', { eventId: event.id, destination: event.webhook_url === null ? null : new URL(event.webhook_url).host }, now, now)
    }
    return { id: event.id, state: 'pending' as const }
  })
}
