import type { Kysely } from 'kysely'
import type { Database } from './schema.ts'

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000
/**
 * How long an in-flight request owns its key. Longer than any provider call; when a process dies
 * mid-request, a retry takes the key over after this. Correctness does not hang on it: the key
 * fixes the record's id, so two owners can never store two.
 */
export const IDEMPOTENCY_LEASE_MS = 60_000

export type IdempotencyClaim =
  /** `subjectId`: the id the record this request makes will have (a charge's, a withdrawal's). */
  | { outcome: 'claimed'; subjectId: string }
  /** The previous owner's lease lapsed unfinished: its record may or may not have been stored. */
  | { outcome: 'resumed'; subjectId: string; claimedAt: Date }
  | { outcome: 'replay'; status: number; body: unknown }
  | { outcome: 'reused' }
  | { outcome: 'in_use'; retryAfterSeconds: number }

/** What a key's row holds once its request is answered: a retry with it gets this answer again. */
export function answeredKey(status: number, body: unknown) {
  return { state: 'done' as const, response_status: status, response_body: JSON.stringify(body), lease_until: null }
}

/** A key whose request is answered by the statement that stores its charge (charges.open). */
export type AnsweringKey = { accountId: number; key: string; body: unknown }

export function idempotencyRepository(db: Kysely<Database>) {
  return {
    /**
     * Stores the key, with the id its record will have, before any side effect. The insert either
     * wins (claimed) or finds the earlier request: other body → reused; same body and finished →
     * its response; unfinished and leased → in use; unfinished with its lease lapsed → taken over
     * (resumed). A key older than 24 h is forgotten and claimed afresh.
     */
    async claim(accountId: number, key: string, requestHash: string, subjectId: string, now: Date): Promise<IdempotencyClaim> {
      const leaseUntil = new Date(now.getTime() + IDEMPOTENCY_LEASE_MS)
      const claimed = { request_hash: requestHash, state: 'in_flight' as const, created_at: now, lease_until: leaseUntil, subject_id: subjectId }
      // A new key, as nearly every key is (the SDK sends one with every create), is claimed by
      // this statement alone: one round trip before the provider is asked, not two.
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({ account_id: accountId, key, ...claimed })
        .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst()
      if (inserted) return { outcome: 'claimed', subjectId }
      // A key older than 24 h is forgotten: claimed afresh, as a new one would be. Conditional on
      // its age, so of two requests renewing it at once only one wins.
      const renewed = await db
        .updateTable('idempotency_keys')
        .set({ ...claimed, response_status: null, response_body: null })
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .where('created_at', '<', new Date(now.getTime() - IDEMPOTENCY_TTL_MS))
        .returning('key')
        .executeTakeFirst()
      if (renewed) return { outcome: 'claimed', subjectId }
      const existing = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .executeTakeFirst()
      // Deleted between our insert and select: the other request gave its key back.
      if (!existing) return { outcome: 'in_use', retryAfterSeconds: 1 }
      if (existing.request_hash !== requestHash) return { outcome: 'reused' }
      if (existing.state === 'done' && existing.response_status !== null) {
        return { outcome: 'replay', status: existing.response_status, body: existing.response_body }
      }
      const leased = existing.lease_until ?? new Date(existing.created_at.getTime() + IDEMPOTENCY_LEASE_MS)
      if (leased.getTime() > now.getTime()) {
        return { outcome: 'in_use', retryAfterSeconds: Math.max(1, Math.ceil((leased.getTime() - now.getTime()) / 1000)) }
      }
      // Only one retry wins the take-over: the update is conditional on the lapsed lease.
      const taken = await db
        .updateTable('idempotency_keys')
        .set((eb) => ({ lease_until: leaseUntil, subject_id: eb.fn.coalesce('subject_id', eb.val(subjectId)) }))
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .where('state', '=', 'in_flight')
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
        .returning('subject_id')
        .executeTakeFirst()
      if (!taken) return { outcome: 'in_use', retryAfterSeconds: 1 }
      return { outcome: 'resumed', subjectId: taken.subject_id ?? subjectId, claimedAt: existing.created_at }
    },

    async complete(accountId: number, key: string, status: number, body: unknown): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set(answeredKey(status, body))
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
