import { sql, type Insertable, type Kysely, type Updateable } from 'kysely'
import { batchedByTurn, compiledOnce } from './database.ts'
import { jobRow, notifying } from './jobs.ts'
import type { WebhookEventState } from '../domain/charge.ts'
import type { Database, WebhookEventsTable } from './schema.ts'

type Attempt = { eventId: string; at: Date; statusCode: number | null; durationMs: number; error: string | null }
/** The event after an attempt: its count of attempts, and its state when the attempt settles it. */
type AfterAttempt = { attempts: number; state?: WebhookEventState; deliveredAt?: Date }

export function webhookEventsRepository(db: Kysely<Database>) {
  // Every delivery attempt starts here: built once, prepared once per connection. Its parameter
  // is an array of event ids.
  const forDelivery = compiledOnce(db, 'webhook-events-for-delivery', () =>
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
  // The deliveries a claim hands the runner start in one turn of the event loop, each asking for
  // its event: the asks of one turn are read by one statement, not one each (docs/performance.md,
  // "The webhook drain").
  const readForDelivery = batchedByTurn(queueMicrotask, async (ids: string[]) => {
    const byId = new Map((await forDelivery([ids])).map((row) => [row.id, row]))
    return ids.map((id) => byId.get(id))
  })
  // Deliveries end as their receivers answer, and the answers read in one poll of the sockets are
  // recorded by one statement, not one each. Every attempt is logged; the event takes the count
  // and the state of its latest attempt.
  const recordAttempts = batchedByTurn(setImmediate, async (records: Array<{ attempt: Attempt; after: AfterAttempt }>) => {
    const column = <T>(value: (record: { attempt: Attempt; after: AfterAttempt }) => T) => records.map(value)
    await sql`
      with attempt as (
        select * from unnest(${column((r) => r.attempt.eventId)}::text[], ${column((r) => r.attempt.at.toISOString())}::timestamptz[],
          ${column((r) => r.attempt.statusCode)}::int4[], ${column((r) => r.attempt.durationMs)}::int4[], ${column((r) => r.attempt.error)}::text[],
          ${column((r) => r.after.attempts)}::int4[], ${column((r) => r.after.state ?? null)}::text[], ${column((r) => r.after.deliveredAt?.toISOString() ?? null)}::timestamptz[])
          as attempt(event_id, at, status_code, duration_ms, error, attempts, state, delivered_at)
      ), logged as (
        insert into webhook_attempts (event_id, at, status_code, duration_ms, error)
        select event_id, at, status_code, duration_ms, error from attempt
      )
      update webhook_events set attempts = latest.attempts, state = coalesce(latest.state, webhook_events.state), delivered_at = coalesce(latest.delivered_at, webhook_events.delivered_at)
      from (select distinct on (event_id) * from attempt order by event_id, attempts desc) latest
      where webhook_events.id = latest.event_id`.execute(db)
    return records.map(() => undefined)
  })
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
    findForDelivery: readForDelivery,

    async update(id: string, values: Updateable<WebhookEventsTable>): Promise<void> {
      await db.updateTable('webhook_events').set(values).where('id', '=', id).execute()
    },

    /** Every attempt ever made, counted per HTTP status (null: no answer) (metrics). */
    attemptsByStatusCode(): Promise<Array<{ status_code: number | null; n: number }>> {
      return db.selectFrom('webhook_attempts').select(['status_code', sql<number>`count(*)::int4`.as('n')]).groupBy('status_code').execute()
    },

    /** Logs an attempt and sets the event's count of attempts, and its state when the attempt settles it. */
    recordAttempt(attempt: Attempt, after: AfterAttempt): Promise<void> {
      return recordAttempts({ attempt, after })
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
