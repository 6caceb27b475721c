import { sql, type Kysely } from 'kysely'
import type { CodePurpose, Database, WalletSignup } from './schema.ts'

/** The Wallet's sign-in codes, kept only as SHA-256 hashes (its sessions: sessions.ts). */
export function walletRepository(db: Kysely<Database>) {
  return {
    /** A code whose mail is queued with it; an action code carries its purpose and subject. */
    async insertCode(values: { email: string; codeHash: string; signup: WalletSignup | null; expiresAt: Date; now: Date; address: string; purpose?: CodePurpose; subject?: string }): Promise<number> {
      const row = await db
        .insertInto('wallet_codes')
        .values({
          email: values.email,
          code_hash: values.codeHash,
          signup: values.signup === null ? null : JSON.stringify(values.signup),
          expires_at: values.expiresAt,
          created_at: values.now,
          requested_from: values.address,
          mail_state: 'pending',
          purpose: values.purpose ?? 'sign_in',
          subject: values.subject ?? null,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      return row.id
    },

    /**
     * Codes of the e-mail made since `since` whose mail was handed to the mail server: the hourly
     * budget. Sign-in codes have theirs, the console's sign-in codes theirs; action codes
     * (destinations, withdrawals) share another.
     */
    async codesMailedSince(email: string, since: Date, budget: 'sign_in' | 'actions' | 'console_sign_in' = 'sign_in'): Promise<number> {
      const purposes: CodePurpose[] = budget === 'actions' ? ['destination', 'withdrawal'] : [budget]
      const row = await db
        .selectFrom('wallet_codes')
        .select(sql<number>`count(*)::int4`.as('n'))
        .where('email', '=', email)
        .where('purpose', 'in', purposes)
        .where('created_at', '>=', since)
        .where('mail_state', '=', 'sent')
        .executeTakeFirstOrThrow()
      return row.n
    },

    /** The e-mail's codes for `purpose` (and `subject`) still usable: unused, unexpired, fewer than `maxTries` wrong tries. */
    usableCodes(email: string, now: Date, maxTries: number, bound: { purpose: CodePurpose; subject: string | null } = { purpose: 'sign_in', subject: null }) {
      let query = db
        .selectFrom('wallet_codes')
        .selectAll()
        .where('email', '=', email)
        .where('purpose', '=', bound.purpose)
      if (bound.subject !== null) query = query.where('subject', '=', bound.subject)
      return query
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .where('attempts', '<', maxTries)
        .orderBy('id', 'desc')
        .limit(50)
        .execute()
    },

    /** The subject's unused, unexpired codes: how many can still be tried, how many wrong tries burned. */
    async liveCodes(email: string, now: Date, maxTries: number, bound: { purpose: CodePurpose; subject: string }): Promise<{ usable: number; burned: number }> {
      const row = await db
        .selectFrom('wallet_codes')
        .select([
          sql<number>`count(*) filter (where attempts < ${maxTries})::int4`.as('usable'),
          sql<number>`count(*) filter (where attempts >= ${maxTries})::int4`.as('burned'),
        ])
        .where('email', '=', email)
        .where('purpose', '=', bound.purpose)
        .where('subject', '=', bound.subject)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirstOrThrow()
      return { usable: row.usable, burned: row.burned }
    },

    async countWrongTry(ids: readonly number[]): Promise<void> {
      if (ids.length === 0) return
      await db.updateTable('wallet_codes').set((eb) => ({ attempts: eb('attempts', '+', 1) })).where('id', 'in', ids).execute()
    },

    /** Marks the code used; false when another request used it first. */
    async useCode(id: number, now: Date): Promise<boolean> {
      const used = await db.updateTable('wallet_codes').set({ used_at: now }).where('id', '=', id).where('used_at', 'is', null).returning('id').executeTakeFirst()
      return used !== undefined
    },
  }
}
