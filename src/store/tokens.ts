import type { Insertable, Kysely } from 'kysely'
import type { ApiToken, ApiTokensTable, Database } from './schema.ts'

export type TokenWithEmail = ApiToken & { email: string }

const LAST_USE_RESOLUTION_MS = 60_000

export function tokensRepository(db: Kysely<Database>) {
  return {
    /** The token and its account's e-mail, which never changes: what a request with it is answered as. */
    findByHash(tokenHash: string): Promise<TokenWithEmail | undefined> {
      return db
        .selectFrom('api_tokens')
        .innerJoin('accounts', 'accounts.id', 'api_tokens.account_id')
        .selectAll('api_tokens')
        .select('accounts.email')
        .where('api_tokens.token_hash', '=', tokenHash)
        .executeTakeFirst()
    },

    findById(id: string): Promise<ApiToken | undefined> {
      return db.selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** Revokes every unrevoked token of the account (at most one, by the unique index). */
    async revokeAllOf(accountId: number, now: Date): Promise<void> {
      await db
        .updateTable('api_tokens')
        .set({ status: 'revoked', revoked_at: now })
        .where('account_id', '=', accountId)
        .where('status', '<>', 'revoked')
        .execute()
    },

    /** The account's live (unrevoked) token, if any. */
    liveOf(accountId: number): Promise<ApiToken | undefined> {
      return db.selectFrom('api_tokens').selectAll().where('account_id', '=', accountId).where('status', '<>', 'revoked').executeTakeFirst()
    },

    /**
     * Records use at most once a minute per token, so a busy merchant does not write per request:
     * nothing is sent when the row just read says it was used within the minute; the update's own
     * condition covers instances racing on the same token.
     */
    async touchLastUsed(token: ApiToken, now: Date): Promise<void> {
      const dueBefore = new Date(now.getTime() - LAST_USE_RESOLUTION_MS)
      if (token.last_used_at !== null && token.last_used_at >= dueBefore) return
      await db
        .updateTable('api_tokens')
        .set({ last_used_at: now })
        .where('id', '=', token.id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', dueBefore)]))
        .execute()
    },

    insert(values: Insertable<ApiTokensTable>): Promise<ApiToken> {
      return db.insertInto('api_tokens').values(values).returningAll().executeTakeFirstOrThrow()
    },

    activate(id: string, merchantId: string): Promise<ApiToken | undefined> {
      return db
        .updateTable('api_tokens')
        .set({ status: 'active', merchant_id: merchantId })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .returningAll()
        .executeTakeFirst()
    },
  }
}
