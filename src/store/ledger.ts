import { sql, type Kysely } from 'kysely'
import type { Currency } from '../domain/money.ts'
import type { Database, LedgerBook } from './schema.ts'

export type Balances = Record<Currency, number>

export function ledgerRepository(db: Kysely<Database>) {
  return {
    /** Sum of an account's entries in one book, per currency (0 where there are none). */
    async balances(accountId: number, book: LedgerBook = 'available'): Promise<Balances> {
      const rows = await db
        .selectFrom('ledger_entries')
        .select(['currency', sql<string>`sum(amount)::text`.as('total')])
        .where('account_id', '=', accountId)
        .where('book', '=', book)
        .groupBy('currency')
        .execute()
      const balances: Balances = { DEPIX: 0, BTC: 0, USDt: 0 }
      for (const row of rows) balances[row.currency] = Number(row.total)
      return balances
    },
  }
}
