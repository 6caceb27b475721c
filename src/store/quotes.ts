import type { Kysely } from 'kysely'
import type { Database } from './schema.ts'

export type QuotedCurrency = 'BTC' | 'USDt'

/** The operator's override of the BRL price of one BTC or one USDt, in cents, while it is set. */
export function quotesRepository(db: Kysely<Database>) {
  return {
    find(currency: QuotedCurrency) {
      return db.selectFrom('quotes').select(['brl_cents', 'updated_at']).where('currency', '=', currency).executeTakeFirst()
    },

    async clear(currency: QuotedCurrency): Promise<void> {
      await db.deleteFrom('quotes').where('currency', '=', currency).execute()
    },

    async all(): Promise<Partial<Record<QuotedCurrency, number>>> {
      const rows = await db.selectFrom('quotes').select(['currency', 'brl_cents']).execute()
      return Object.fromEntries(rows.map((row) => [row.currency, row.brl_cents]))
    },

    async set(currency: QuotedCurrency, brlCents: number, now: Date): Promise<void> {
      await db
        .insertInto('quotes')
        .values({ currency, brl_cents: brlCents, updated_at: now })
        .onConflict((oc) => oc.column('currency').doUpdateSet({ brl_cents: brlCents, updated_at: now }))
        .execute()
    },
  }
}
