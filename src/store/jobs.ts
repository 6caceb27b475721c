// Background work as rows: written in the same transaction as the change that causes it,
// claimed with FOR UPDATE SKIP LOCKED so several instances never run one job twice at once.
import type { Kysely } from 'kysely'
import type { Database } from './schema.ts'

export type JobKind = 'expire_charge' | 'reconcile_charge' | 'release_hold' | 'deliver_webhook' | 'sweep_deposits'

export type Job = { id: number; kind: JobKind; payload: Record<string, unknown>; attempts: number }

export function jobsRepository(db: Kysely<Database>) {
  return {
    async enqueue(kind: JobKind, payload: Record<string, unknown>, runAt: Date, now: Date): Promise<void> {
      await db.insertInto('jobs').values({ kind, payload: JSON.stringify(payload), run_at: runAt, created_at: now }).execute()
    },

    /** Queues the one job of its kind a deployment has (a unique index keeps it one), if it is not there. */
    async ensureSingleton(kind: 'sweep_deposits', payload: Record<string, unknown>, runAt: Date, now: Date): Promise<void> {
      await db
        .insertInto('jobs')
        .values({ kind, payload: JSON.stringify(payload), run_at: runAt, created_at: now })
        .onConflict((oc) => oc.column('kind').where('kind', '=', 'sweep_deposits').doNothing())
        .execute()
    },

    /** Leases up to `limit` due jobs until `now + leaseMs`; a crashed worker's lease simply runs out. */
    async claimDue(now: Date, limit: number, leaseMs: number): Promise<Job[]> {
      return db.transaction().execute(async (trx) => {
        const due = await trx
          .selectFrom('jobs')
          .select(['id', 'kind', 'payload', 'attempts'])
          .where('run_at', '<=', now)
          .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
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
  }
}
