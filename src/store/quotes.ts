import type { Kysely } from 'kysely'
import type { Database } from './schema.ts'

export type QuotedCurrency = 'BTC' | 'USDt'

/** BRL price of one BTC or one USDt, in cents, used when a payment is converted. */
export function quotesRepository(db: Kysely<Database>) {
  return {
    async get(currency: QuotedCurrency): Promise<number | undefined> {
      const row = await db.selectFrom('quotes').select('brl_cents').where('currency', '=', currency).executeTakeFirst()
      return row?.brl_cents
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
