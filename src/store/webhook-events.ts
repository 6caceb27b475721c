import { sql, type Insertable, type Kysely, type Updateable } from 'kysely'
import { compiledOnce } from './database.ts'
import { jobRow, notifying } from './jobs.ts'
import type { WebhookEventState } from '../domain/charge.ts'
import type { Database, WebhookEventsTable } from './schema.ts'

export function webhookEventsRepository(db: Kysely<Database>) {
  // Every delivery attempt starts here: built once, prepared once per connection. Its parameter
  // is an array of event ids.
  const forDelivery = compiledOnce(db, () =>
    db
      .selectFrom('webhook_events')
      .leftJoin('charges', 'charges.id', 'webhook_events.charge_id')
      .leftJoin('withdrawals', 'withdrawals.id', 'webhook_events.withdrawal_id')
      .select((eb) => [
        'webhook_events.id', 'webhook_events.body', 'webhook_events.state', 'webhook_events.attempts',
        eb.fn.coalesce('charges.webhook_url', 'withdrawals.webhook_url').as('webhook_url'),
        eb.fn.coalesce('charges.webhook_secret', 'withdrawals.webhook_secret').as('webhook_secret'),
      ])
      .where(sql<boolean>`webhook_events.id = any(${sql.val([])}::text[])`),
  )
  // Every delivery attempt ends here: built once, prepared once per connection. A state or a
  // delivery time left null leaves the event's own.
  const attemptRecorded = compiledOnce(db, () =>
    db
      .with('logged', (qc) => qc.insertInto('webhook_attempts').values({ event_id: '', at: new Date(0), status_code: 0, duration_ms: 0, error: '' }))
      .updateTable('webhook_events')
      .set((eb) => ({
        attempts: 0,
        state: eb.fn.coalesce(sql<WebhookEventState | null>`${null}::text`, 'state'),
        delivered_at: eb.fn.coalesce(sql<Date | null>`${null}::timestamptz`, 'delivered_at'),
      }))
      .where('id', '=', ''))
  type DeliveryRow = Awaited<ReturnType<typeof forDelivery>>[number]
  // The deliveries a claim hands the runner start in one turn of the event loop, each asking for
  // its event: the asks of one turn are read by one statement (a drain read 10,000 events with
  // 10,000 statements, for 1,742 claims).
  type Ask = { id: string; answer: (row: DeliveryRow | undefined) => void; fail: (error: unknown) => void }
  let asked: Ask[] | null = null
  /** A new batch of asks, read once the current turn's asks are all in. */
  const newBatch = (): Ask[] => {
    const batch: Ask[] = []
    asked = batch
    queueMicrotask(() => {
      asked = null
      forDelivery([batch.map((ask) => ask.id)]).then((rows) => {
        const byId = new Map(rows.map((row) => [row.id, row]))
        for (const ask of batch) ask.answer(byId.get(ask.id))
      }, (error: unknown) => {
        for (const ask of batch) ask.fail(error)
      })
    })
    return batch
  }
  return {
    /**
     * Stores a new event and queues its first delivery, due now, in one statement (one round trip
     * less on every confirmation and withdrawal step); inside a transaction the runners hear of it
     * when it commits.
     */
    async queue(values: Insertable<WebhookEventsTable> & { id: string; created_at: Date }, destination: string): Promise<void> {
      const job = jobRow('deliver_webhook', { eventId: values.id, destination }, values.created_at, values.created_at)
      await db
        .with('event', (query) => query.insertInto('webhook_events').values(values))
        .with('queued', (query) => query.insertInto('jobs').values(job).returning('id'))
        .selectFrom('queued')
        .select(notifying('deliver_webhook'))
        .execute()
    },

    /** The event with what sending it needs from its charge or withdrawal. */
    findForDelivery(id: string): Promise<DeliveryRow | undefined> {
      return new Promise((answer, fail) => (asked ?? newBatch()).push({ id, answer, fail }))
    },

    async update(id: string, values: Updateable<WebhookEventsTable>): Promise<void> {
      await db.updateTable('webhook_events').set(values).where('id', '=', id).execute()
    },

    /** Every attempt ever made, counted per HTTP status (null: no answer) (metrics). */
    attemptsByStatusCode(): Promise<Array<{ status_code: number | null; n: number }>> {
      return db.selectFrom('webhook_attempts').select(['status_code', sql<number>`count(*)::int4`.as('n')]).groupBy('status_code').execute()
    },

    /** Logs an attempt and sets the event's count of attempts, and its state when the attempt settles it, in one statement. */
    async recordAttempt(attempt: { eventId: string; at: Date; statusCode: number | null; durationMs: number; error: string | null }, after: { attempts: number; state?: WebhookEventState; deliveredAt?: Date }): Promise<void> {
      await attemptRecorded([attempt.eventId, attempt.at, attempt.statusCode, attempt.durationMs, attempt.error, after.attempts, after.state ?? null, after.deliveredAt ?? null, attempt.eventId])
    },

    /** A merchant's events (its charges' and its own withdrawals'), newest first, optionally for one charge, with their attempts. */
    async listForMerchant(merchantAccountId: number, chargeId: string | null, limit: number) {
      let query = db
        .selectFrom('webhook_events')
        .leftJoin('charges', 'charges.id', 'webhook_events.charge_id')
        .leftJoin('withdrawals', 'withdrawals.id', 'webhook_events.withdrawal_id')
        .select(['webhook_events.id', 'webhook_events.charge_id', 'webhook_events.withdrawal_id', 'webhook_events.event', 'webhook_events.state', 'webhook_events.attempts', 'webhook_events.created_at', 'webhook_events.delivered_at'])
        .where((eb) => eb.or([eb('charges.merchant_account_id', '=', merchantAccountId), eb('withdrawals.account_id', '=', merchantAccountId)]))
      if (chargeId !== null) query = query.where('webhook_events.charge_id', '=', chargeId)
      const events = await query.orderBy('webhook_events.created_at', 'desc').orderBy('webhook_events.id').limit(limit).execute()
      if (events.length === 0) return []
      const attempts = await db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('event_id', 'in', events.map((event) => event.id))
        .orderBy('id')
        .execute()
      return events.map((event) => ({ ...event, attempt_log: attempts.filter((attempt) => attempt.event_id === event.id) }))
    },

    findForMerchant(id: string, merchantAccountId: number) {
      return db
        .selectFrom('webhook_events')
        .leftJoin('charges', 'charges.id', 'webhook_events.charge_id')
        .leftJoin('withdrawals', 'withdrawals.id', 'webhook_events.withdrawal_id')
        .select((eb) => ['webhook_events.id', 'webhook_events.state', eb.fn.coalesce('charges.webhook_url', 'withdrawals.webhook_url').as('webhook_url')])
        .where('webhook_events.id', '=', id)
        .where((eb) => eb.or([eb('charges.merchant_account_id', '=', merchantAccountId), eb('withdrawals.account_id', '=', merchantAccountId)]))
        .executeTakeFirst()
    },
  }
}
