import type { Kysely } from 'kysely'
import type { Database } from './schema.ts'

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000

export type IdempotencyClaim =
  | { outcome: 'claimed' }
  | { outcome: 'replay'; status: number; body: unknown }
  | { outcome: 'reused' }
  | { outcome: 'in_use' }

export function idempotencyRepository(db: Kysely<Database>) {
  return {
    /**
     * Stores the key before any side effect. The insert either wins (claimed) or finds the
     * earlier request: same body and finished → its response; other body → reused; unfinished →
     * in use. A key older than 24 h is forgotten and claimed afresh.
     */
    async claim(accountId: number, key: string, requestHash: string, now: Date): Promise<IdempotencyClaim> {
      await db
        .deleteFrom('idempotency_keys')
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .where('created_at', '<', new Date(now.getTime() - IDEMPOTENCY_TTL_MS))
        .execute()
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({ account_id: accountId, key, request_hash: requestHash, state: 'in_flight', created_at: now })
        .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst()
      if (inserted) return { outcome: 'claimed' }
      const existing = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .executeTakeFirst()
      // Deleted between our insert and select: the other request gave its key back.
      if (!existing) return { outcome: 'in_use' }
      if (existing.request_hash !== requestHash) return { outcome: 'reused' }
      if (existing.state === 'in_flight' || existing.response_status === null) return { outcome: 'in_use' }
      return { outcome: 'replay', status: existing.response_status, body: existing.response_body }
    },

    async complete(accountId: number, key: string, status: number, body: unknown): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'done', response_status: status, response_body: JSON.stringify(body) })
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .execute()
    },

    /** Gives the key back after a failure the client may retry (provider down, our own fault). */
    async release(accountId: number, key: string): Promise<void> {
      await db.deleteFrom('idempotency_keys').where('account_id', '=', accountId).where('key', '=', key).execute()
    },
  }
}
