// Background work as rows: written in the same transaction as the change that causes it,
// claimed with FOR UPDATE SKIP LOCKED so several instances never run one job twice at once.
import { sql, type Kysely } from 'kysely'
import { payloadProblem, type JobKind, type JobPayload, type JobRow } from './job-kinds.ts'
import { compiledOnce } from './database.ts'
import type { Database } from './schema.ts'

/** The notification channel committed work is announced on. */
export const JOBS_CHANNEL = 'pix_jobs'

/** A job to queue, of any kind, with its kind's payload. */
export type ScheduledJob = { [K in JobKind]: { kind: K; payload: JobPayload<K>; runAt: Date } }[JobKind]

/**
 * When a parked job is due: never in practice, yet a date both drivers read back. A job is parked
 * rather than deleted because its row is the only record of the work it stood for (a charge to
 * expire, a webhook to send): an operator can mend its payload and run_at instead of rebuilding it.
 */
const PARKED_UNTIL = new Date('9999-12-31T00:00:00.000Z')

/** The select of a statement that queues a job due now: the runners hear of it when it commits. */
export const notifying = (kind: JobKind) => sql<string>`pg_notify(${JOBS_CHANNEL}, ${kind})`.as('notified')

/**
 * Jobs by id, as one array parameter: the claims, leases and deletions name a different number of
 * jobs each time, and as IN lists each count was a text of its own, each prepared on first use
 * (store/database.ts), filling the bound on prepared texts with claims.
 */
const anyOf = (ids: readonly number[]) => sql<boolean>`id = any(${ids}::int8[])`

/** A job as a row of the jobs table. Its payload is checked here too: one built from data, or cast, gets past the types. */
export function jobRow<K extends JobKind>(kind: K, payload: JobPayload<K>, runAt: Date, now: Date) {
  const problem = payloadProblem(kind, payload)
  if (problem !== null) throw new TypeError(`cannot queue a ${kind} job: ${problem}`)
  return { kind, payload: JSON.stringify(payload), run_at: runAt, created_at: now }
}

export function jobsRepository(db: Kysely<Database>) {
  // A payout's run after its transaction is sent asks to run again: built once. Parameters: run_at, the id.
  const rescheduled = compiledOnce(db, 'job-rescheduled', () => db.updateTable('jobs')
    .set({ run_at: new Date(0), locked_until: sql.lit(null), last_error: sql.lit(null), attempts: sql.lit(0) }).where('id', '=', 0))
  // A lane's claim (every lane but the deliveries'), made after each job or batch ends: built once,
  // its kinds and the finished jobs as arrays (an empty one deletes nothing). Parameters: the
  // finished ids, the lease's end, the finished ids again, now twice, the kinds, the limit.
  const laneClaimed = compiledOnce(db, 'jobs-claimed-for-lane', () => db
    .with('deleted', (query) => query.deleteFrom('jobs').where(anyOf([])))
    .updateTable('jobs')
    .set({ locked_until: new Date(0) })
    .where('id', 'in', db.selectFrom('jobs').select('id')
      .where(sql<boolean>`id <> all(${[]}::int8[])`)
      .where(sql<boolean>`run_at <= ${new Date(0)} and (locked_until is null or locked_until <= ${new Date(0)})`)
      .where(sql<boolean>`kind = any(${[]}::text[])`)
      .orderBy('run_at').limit(0).forUpdate().skipLocked())
    .returning(['id', 'kind', 'payload', 'attempts']))
  return {
    /**
     * Queues a job and notifies every instance listening on JOBS_CHANNEL; inside a transaction the
     * notification goes out when it commits, so the runner never wakes to work it cannot see.
     */
    async enqueue<K extends JobKind>(kind: K, payload: JobPayload<K>, runAt: Date, now: Date): Promise<void> {
      const row = jobRow(kind, payload, runAt, now)
      if (runAt.getTime() > now.getTime()) {
        await db.insertInto('jobs').values(row).execute()
        return
      }
      // Insert and notify in one statement: one round trip less on every confirmation and payout step.
      await db.with('queued', (query) => query.insertInto('jobs').values(row).returning('id'))
        .selectFrom('queued')
        .select(notifying(kind))
        .execute()
    },

    /** Extends the leases of jobs still being worked on (the runner's heartbeat); a job already put back is left alone. */
    async renewLeases(ids: number[], until: Date): Promise<void> {
      if (ids.length > 0) await db.updateTable('jobs').set({ locked_until: until }).where(anyOf(ids)).where('locked_until', 'is not', null).execute()
    },

    /** Puts a claimed job back unchanged, for the next claim (its destination was at its bound). */
    async putBack(id: number): Promise<void> {
      await db.updateTable('jobs').set({ locked_until: null }).where('id', '=', id).execute()
    },

    /** A pending delivery's next attempt, brought forward to now (a redelivery asked for). */
    async deliverNow(eventId: string, now: Date): Promise<void> {
      await db
        .updateTable('jobs')
        .set({ run_at: now })
        .where('kind', '=', 'deliver_webhook')
        .where(sql`payload->>'eventId'`, '=', eventId)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
        .execute()
      await sql`select pg_notify(${JOBS_CHANNEL}, 'deliver_webhook')`.execute(db)
    },

    /** Jobs of a kind waiting for later, due now (the sandbox mined a block: the payouts it confirms are looked at at once). Parked jobs stay parked. */
    async bringForward(kind: JobKind, now: Date): Promise<void> {
      await db.updateTable('jobs').set({ run_at: now }).where('kind', '=', kind).where('run_at', '>', now).where('run_at', '<', PARKED_UNTIL).where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)])).execute()
    },

    /** Queues the one job of its kind a deployment has (a unique index keeps it one), if it is not there. */
    async ensureSingleton<K extends 'sweep_deposits' | 'operator_digest' | 'vacuum_database' | 'unlock_treasury_coins' | 'follow_liquid_payouts'>(kind: K, payload: JobPayload<K>, runAt: Date, now: Date): Promise<void> {
      await db
        .insertInto('jobs')
        .values(jobRow(kind, payload, runAt, now))
        // The literal kind, so the unique partial index of that kind is the one inferred.
        .onConflict((oc) => oc.column('kind').where(sql<boolean>`kind = ${sql.lit(kind)}`).doNothing())
        .execute()
    },

    /**
     * Leases up to `limit` due jobs until `now + leaseMs`; a crashed worker's lease simply runs out.
     * With `spread`, at most `perDestination` jobs per destination, none for the busy ones: a
     * backlog of one merchant's webhooks never fills a claim with work that would have to wait.
     * `finished` jobs (still leased by the caller) are deleted by the same statement, which saves
     * the runner a statement and a commit per job. Payloads come back unchecked: see readJob.
     */
    async claimDue(
      now: Date,
      limit: number,
      leaseMs: number,
      options: { kinds?: JobKind[]; spread?: { perDestination: number; busy: string[] }; finished?: number[] } = {},
    ): Promise<JobRow[]> {
      const { kinds, spread, finished = [] } = options
      if (kinds && !spread) {
        const claimed = await laneClaimed([finished, new Date(now.getTime() + leaseMs), finished, now, now, kinds, limit])
        return claimed.sort((a, b) => a.id - b.id)
      }
      let picked = db.selectFrom('jobs').select('id')
      // A finished job whose lease ran out must not be leased again by the statement deleting it.
      if (finished.length > 0) picked = picked.where(sql<boolean>`id <> all(${finished}::int8[])`)
      if (spread) {
        // Walks the distinct destinations through the jobs_deliveries index (a loose index scan),
        // then takes each free destination's oldest due deliveries: the cost grows with the
        // number of destinations, not with the number of queued events.
        // Due, as greatest(run_at, locked_until) (greatest() passes over a null lease): the same
        // condition as the other lanes', in a form no index on run_at serves, so the choosing walks
        // the deliveries index however few jobs the statistics say are due
        // (test/integration/job-claim-plan.test.ts; docs/performance.md, "The webhook drain").
        const dueUnindexed = sql<boolean>`greatest(run_at, locked_until) <= ${now}`
        const notBusy = spread.busy.length > 0 ? sql`and d.destination <> all(${spread.busy}::text[])` : sql``
        const chosen = sql<number>`
          with recursive destinations(destination) as (
            (select destination from jobs where kind = 'deliver_webhook' and destination is not null order by destination limit 1)
            union all
            select (select j.destination from jobs j where j.kind = 'deliver_webhook' and j.destination > d.destination order by j.destination limit 1)
            from destinations d where d.destination is not null
          )
          select oldest.id from destinations d
          cross join lateral (
            select id from jobs where kind = 'deliver_webhook' and destination = d.destination and ${dueUnindexed}
            order by run_at limit ${spread.perDestination}
          ) oldest
          where d.destination is not null ${notBusy}
          union all
          (select id from jobs where kind = 'deliver_webhook' and destination is null and ${dueUnindexed} order by run_at limit ${limit})`
        // The chosen ids as an array read by primary key: as "id in (…)" the planner joined them
        // against every due delivery (docs/performance.md, "The webhook drain"). Due is checked again
        // under the lock; the kind is not (a job's kind never changes, and checking it would walk the
        // deliveries index).
        picked = picked.where(sql<boolean>`id = any(array(${chosen}))`).where(dueUnindexed)
      } else {
        picked = picked.where(sql<boolean>`run_at <= ${now} and (locked_until is null or locked_until <= ${now})`)
      }
      // One statement: delete the finished, pick (skipping rows another instance is claiming) and lease.
      const claimed = await (finished.length > 0 ? db.with('deleted', (qc) => qc.deleteFrom('jobs').where(anyOf(finished))) : db)
        .updateTable('jobs')
        .set({ locked_until: new Date(now.getTime() + leaseMs) })
        .where('id', 'in', picked.orderBy('run_at').limit(limit).forUpdate().skipLocked())
        .returning(['id', 'kind', 'payload', 'attempts'])
        .execute()
      return claimed.sort((a, b) => a.id - b.id)
    },

    async complete(ids: number[]): Promise<void> {
      if (ids.length > 0) await db.deleteFrom('jobs').where(anyOf(ids)).execute()
    },

    /** A run that failed: `attempts` counts the failures in a row, which set the back-off. */
    async retry(id: number, runAt: Date, error: string): Promise<void> {
      await db
        .updateTable('jobs')
        .set((eb) => ({ run_at: runAt, locked_until: null, last_error: error.slice(0, 2000), attempts: eb('attempts', '+', 1) }))
        .where('id', '=', id)
        .execute()
    },

    /** A run that did its work and asks for another at `runAt`: not a failure, so the count of failures starts again. */
    async reschedule(id: number, runAt: Date): Promise<void> {
      await rescheduled([runAt, id])
    },

    /** Sets aside a job no handler can run, with why: retried, it would fail the same way forever. */
    async park(id: number, problem: string): Promise<void> {
      await db.updateTable('jobs').set({ run_at: PARKED_UNTIL, locked_until: null, last_error: problem.slice(0, 2000) }).where('id', '=', id).execute()
    },

    /** Parked jobs, per kind (metrics): each needs an operator, who reads why in last_error. */
    async parkedByKind(): Promise<Array<{ kind: string; n: number }>> {
      return db.selectFrom('jobs').select(['kind', sql<number>`count(*)::int4`.as('n')]).where('run_at', '=', PARKED_UNTIL).groupBy('kind').execute()
    },

    /** Jobs due by `now`, per kind (metrics). */
    async dueByKind(now: Date): Promise<Array<{ kind: JobKind; n: number }>> {
      const rows = await db.selectFrom('jobs').select(['kind', sql<number>`count(*)::int4`.as('n')]).where('run_at', '<=', now).groupBy('kind').execute()
      return rows as Array<{ kind: JobKind; n: number }>
    },

    /** When the oldest job due by `now` was due; null when none is (metrics). */
    async oldestDue(now: Date): Promise<Date | null> {
      const row = await db.selectFrom('jobs').select(sql<Date | null>`min(run_at)`.as('oldest')).where('run_at', '<=', now).executeTakeFirst()
      return row?.oldest ?? null
    },
  }
}
