import { sql, type Kysely } from 'kysely'
import { isBalanced, type Posting } from '../domain/ledger.ts'
import type { Currency } from '../domain/money.ts'
import type { Database, LedgerBook } from './schema.ts'

export type Balances = Record<Currency, number>

export function ledgerRepository(db: Kysely<Database>) {
  return {
    /**
     * Writes a balanced posting once: its key is unique, so a replayed event finds it taken and
     * writes nothing. Returns whether this call posted it. Call inside the transaction of the
     * state change that caused it, after charges.lockById/lockByDepositId locked the account.
     */
    async post(posting: Posting, chargeId: string | null, now: Date): Promise<boolean> {
      if (!isBalanced(posting.entries)) throw new Error(`posting ${posting.key} does not balance`)
      const inserted = await db
        .insertInto('ledger_postings')
        .values({ key: posting.key, charge_id: chargeId, kind: posting.kind, created_at: now })
        .onConflict((oc) => oc.column('key').doNothing())
        .returning('id')
        .executeTakeFirst()
      if (!inserted) return false
      await db
        .insertInto('ledger_entries')
        .values(posting.entries.map((entry) => ({
          posting_id: inserted.id,
          account_id: entry.accountId,
          book: entry.book,
          currency: entry.currency,
          amount: entry.amount,
        })))
        .execute()
      return true
    },

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
