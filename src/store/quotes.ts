import type { Kysely } from 'kysely'
import type { QuotedCurrency } from '../domain/quotes.ts'
import type { Database } from './schema.ts'

/**
 * The operator's price overrides (BRL micro-reais per BTC or USDt), each until it expires, and the
 * last accepted price per currency that fetched prices are checked against.
 */
export function quotesRepository(db: Kysely<Database>) {
  return {
    /** The override in force at `now`, if any. */
    findOverride(currency: QuotedCurrency, now: Date) {
      return db.selectFrom('quotes').select(['brl_micros', 'updated_at', 'expires_at']).where('currency', '=', currency).where('expires_at', '>', now).executeTakeFirst()
    },

    async clear(currency: QuotedCurrency): Promise<void> {
      await db.deleteFrom('quotes').where('currency', '=', currency).execute()
    },

    /** Overrides in force at `now`. */
    overrides(now: Date) {
      return db.selectFrom('quotes').select(['currency', 'brl_micros', 'updated_at', 'expires_at']).where('expires_at', '>', now).execute()
    },

    async set(currency: QuotedCurrency, micros: number, now: Date, expiresAt: Date): Promise<void> {
      const values = { brl_micros: micros, updated_at: now, expires_at: expiresAt }
      await db.insertInto('quotes').values({ currency, ...values }).onConflict((oc) => oc.column('currency').doUpdateSet(values)).execute()
    },

    reference(currency: QuotedCurrency) {
      return db.selectFrom('quote_references').select(['brl_micros', 'source', 'accepted_at']).where('currency', '=', currency).executeTakeFirst()
    },

    references() {
      return db.selectFrom('quote_references').selectAll().execute()
    },

    async accept(currency: QuotedCurrency, micros: number, source: string, now: Date): Promise<void> {
      const values = { brl_micros: micros, source, accepted_at: now }
      await db.insertInto('quote_references').values({ currency, ...values }).onConflict((oc) => oc.column('currency').doUpdateSet(values)).execute()
    },
  }
}
