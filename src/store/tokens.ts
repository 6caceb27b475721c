import type { Insertable, Kysely } from 'kysely'
import type { ApiToken, ApiTokensTable, Database } from './schema.ts'

export function tokensRepository(db: Kysely<Database>) {
  return {
    findByHash(tokenHash: string): Promise<ApiToken | undefined> {
      return db.selectFrom('api_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst()
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

    /** Records use at most once a minute per token, so a busy merchant does not write per request. */
    async touchLastUsed(id: string, now: Date): Promise<void> {
      await db
        .updateTable('api_tokens')
        .set({ last_used_at: now })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', new Date(now.getTime() - 60_000))]))
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
