// Background work as rows: written in the same transaction as the change that causes it,
// claimed with FOR UPDATE SKIP LOCKED so several instances never run one job twice at once.
import { sql, type ExpressionBuilder, type Kysely } from 'kysely'
import type { Database } from './schema.ts'

/** The notification channel committed work is announced on. */
export const JOBS_CHANNEL = 'pix_jobs'

export type JobKind = 'expire_charge' | 'reconcile_charge' | 'release_hold' | 'deliver_webhook' | 'sweep_deposits'

export type Job = { id: number; kind: JobKind; payload: Record<string, unknown>; attempts: number }

export function jobsRepository(db: Kysely<Database>) {
  return {
    /**
     * Queues a job and notifies every instance listening on JOBS_CHANNEL; inside a transaction the
     * notification goes out when it commits, so the runner never wakes to work it cannot see.
     */
    async enqueue(kind: JobKind, payload: Record<string, unknown>, runAt: Date, now: Date): Promise<void> {
      await db.insertInto('jobs').values({ kind, payload: JSON.stringify(payload), run_at: runAt, created_at: now }).execute()
      if (runAt.getTime() <= now.getTime()) await sql`select pg_notify(${JOBS_CHANNEL}, ${kind})`.execute(db)
    },

    /** Puts a claimed job back, unchanged but for when it runs (its destination was busy). */
    async postpone(id: number, runAt: Date): Promise<void> {
      await db.updateTable('jobs').set({ run_at: runAt, locked_until: null }).where('id', '=', id).execute()
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

    /** Queues the one job of its kind a deployment has (a unique index keeps it one), if it is not there. */
    async ensureSingleton(kind: 'sweep_deposits', payload: Record<string, unknown>, runAt: Date, now: Date): Promise<void> {
      await db
        .insertInto('jobs')
        .values({ kind, payload: JSON.stringify(payload), run_at: runAt, created_at: now })
        .onConflict((oc) => oc.column('kind').where('kind', '=', 'sweep_deposits').doNothing())
        .execute()
    },

    /**
     * Leases up to `limit` due jobs until `now + leaseMs`; a crashed worker's lease simply runs out.
     * With `spread`, at most `perDestination` jobs per destination, none for the busy ones: a
     * backlog of one merchant's webhooks never fills a claim with work that would have to wait.
     */
    async claimDue(now: Date, limit: number, leaseMs: number, kinds?: JobKind[], spread?: { perDestination: number; busy: string[] }): Promise<Job[]> {
      return db.transaction().execute(async (trx) => {
        let query = trx.selectFrom('jobs').select(['id', 'kind', 'payload', 'attempts'])
        const dueNow = (eb: ExpressionBuilder<Database, 'jobs'>) =>
          eb.and([eb('run_at', '<=', now), eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]), ...(kinds ? [eb('kind', 'in', kinds)] : [])])
        if (spread) {
          const destination = sql<string>`coalesce(payload->>'destination', 'event:' || (payload->>'eventId'))`
          const ranked = trx
            .selectFrom('jobs')
            .select(['id', 'run_at', sql<number>`row_number() over (partition by ${destination} order by run_at, id)`.as('rank')])
            .where(dueNow)
            .$if(spread.busy.length > 0, (q) => q.where(destination, 'not in', spread.busy))
          const chosen = trx.selectFrom(ranked.as('ranked')).select('id').where('rank', '<=', spread.perDestination).orderBy('run_at').orderBy('id').limit(limit)
          query = query.where('id', 'in', chosen)
        }
        const due = await query
          .where(dueNow)
          .orderBy('run_at')
          .limit(limit)
          .forUpdate()
          .skipLocked()
          .execute()
        if (due.length === 0) return []
        await trx
          .updateTable('jobs')
          .set({ locked_until: new Date(now.getTime() + leaseMs) })
          .where('id', 'in', due.map((job) => job.id))
          .execute()
        return due.map((job) => ({ id: job.id, kind: job.kind as JobKind, payload: job.payload as Record<string, unknown>, attempts: job.attempts }))
      })
    },

    async complete(id: number): Promise<void> {
      await db.deleteFrom('jobs').where('id', '=', id).execute()
    },

    async retry(id: number, runAt: Date, error: string): Promise<void> {
      await db
        .updateTable('jobs')
        .set((eb) => ({ run_at: runAt, locked_until: null, last_error: error.slice(0, 2000), attempts: eb('attempts', '+', 1) }))
        .where('id', '=', id)
        .execute()
    },

    /** Jobs due by `now`, per kind, and when the oldest of them was due (metrics). */
    async backlog(now: Date): Promise<{ dueByKind: Array<{ kind: JobKind; n: number }>; oldestDue: Date | null }> {
      const dueByKind = await db.selectFrom('jobs').select(['kind', sql<number>`count(*)::int4`.as('n')]).where('run_at', '<=', now).groupBy('kind').execute()
      const oldest = await db.selectFrom('jobs').select(sql<Date | null>`min(run_at)`.as('oldest')).where('run_at', '<=', now).executeTakeFirst()
      return { dueByKind: dueByKind as Array<{ kind: JobKind; n: number }>, oldestDue: oldest?.oldest ?? null }
    },
  }
}
