import { sql, type Kysely } from 'kysely'
import { depixOnlyBooks, isBalanced, type Book, type Posting } from '../domain/ledger.ts'
import type { Currency } from '../domain/money.ts'
import { compiledOnce } from './database.ts'
import type { Database } from './schema.ts'

export type Balances = Record<Currency, number>

/** An account's balances from its rows of one book (a currency without a row holds 0; a null currency, a left join's empty row, is skipped). */
export function balancesFrom(rows: ReadonlyArray<{ currency: Currency | null; amount: number | null }>): Balances {
  const balances: Balances = { DEPIX: 0, BTC: 0, USDt: 0 }
  for (const row of rows) if (row.currency !== null) balances[row.currency] = row.amount ?? 0
  return balances
}

export function ledgerRepository(db: Kysely<Database>) {
  // get-balance's read; the parameters are the account and the book.
  const balanceRows = compiledOnce(db, 'account-balances', () =>
    db.selectFrom('account_balances').select(['currency', 'amount']).where('account_id', '=', 0).where('book', '=', 'available'),
  )
  return {
    /**
     * Writes a balanced posting once: its key is unique, so a replayed event finds it taken and
     * writes nothing. Returns whether this call posted it. Call inside the transaction of the
     * state change that caused it, after charges.lockById/lockByDepositId locked the account.
     */
    async post(posting: Posting, chargeId: string | null, now: Date, withdrawalId: string | null = null): Promise<boolean> {
      if (!isBalanced(posting.entries)) throw new Error(`posting ${posting.key} does not balance`)
      // Each account's running balance moves by the sum of its entries in the posting: one row per
      // balance, as an upsert may touch a row only once per statement.
      const moves = new Map<string, { accountId: number; book: Book; currency: Currency; amount: number }>()
      for (const entry of posting.entries) {
        if (entry.accountId === null) continue
        const key = `${entry.accountId} ${entry.book} ${entry.currency}`
        const move = moves.get(key) ?? { accountId: entry.accountId, book: entry.book, currency: entry.currency, amount: 0 }
        move.amount += entry.amount
        moves.set(key, move)
      }
      const balances = [...moves.values()]
      // The posting, its entries and the running balances in one statement: one round trip
      // instead of three on every confirmation, claw-back and withdrawal, atomic on its own. The
      // entries and balances are taken from the posting's row, so a replayed key (the insert
      // finds it taken and answers no row) writes nothing. Arrays keep the text one whatever the
      // number of entries.
      const posted = await sql<{ id: number }>`
        with posting as (
          insert into ledger_postings (key, charge_id, withdrawal_id, kind, created_at)
          values (${posting.key}, ${chargeId}, ${withdrawalId}, ${posting.kind}, ${now})
          on conflict (key) do nothing
          returning id
        ), entries as (
          insert into ledger_entries (posting_id, account_id, book, currency, amount)
          select posting.id, entry.account_id, entry.book, entry.currency, entry.amount
          from posting, unnest(${posting.entries.map((entry) => entry.accountId)}::int8[], ${posting.entries.map((entry) => entry.book)}::text[],
            ${posting.entries.map((entry) => entry.currency)}::text[], ${posting.entries.map((entry) => entry.amount)}::int8[])
            with ordinality as entry(account_id, book, currency, amount, n)
          order by entry.n
        ), balances as (
          insert into account_balances (account_id, book, currency, amount)
          select balance.account_id, balance.book, balance.currency, balance.amount
          from posting, unnest(${balances.map((move) => move.accountId)}::int8[], ${balances.map((move) => move.book)}::text[],
            ${balances.map((move) => move.currency)}::text[], ${balances.map((move) => move.amount)}::int8[]) as balance(account_id, book, currency, amount)
          on conflict (account_id, book, currency) do update set amount = account_balances.amount + excluded.amount
        )
        select id from posting`.execute(db)
      return posted.rows.length > 0
    },

    /** An account's balance in one book, per currency (0 where there is none): one indexed read. */
    async balances(accountId: number, book: Book = 'available'): Promise<Balances> {
      return balancesFrom(await balanceRows([accountId, book]))
    },

    /** Several accounts' balances in one book, in one read (a queue of work shows one per row). */
    async balancesOf(accountIds: readonly number[], book: Book = 'available'): Promise<Map<number, Balances>> {
      const byAccount = new Map<number, Balances>(accountIds.map((id) => [id, { DEPIX: 0, BTC: 0, USDt: 0 }]))
      if (accountIds.length === 0) return byAccount
      const rows = await db.selectFrom('account_balances').select(['account_id', 'currency', 'amount']).where('account_id', 'in', [...byAccount.keys()]).where('book', '=', book).execute()
      for (const row of rows) byAccount.get(row.account_id)![row.currency] = row.amount
      return byAccount
    },

    /**
     * Where the running balances and the sum of the entries (the truth) disagree; empty when they
     * agree everywhere. Read in one statement, so one snapshot.
     */
    async disagreements(): Promise<Array<{ account_id: number; book: string; currency: string; entries: number; balance: number }>> {
      const rows = await sql<{ account_id: number; book: string; currency: string; entries: string; balance: string }>`
        select coalesce(e.account_id, b.account_id) as account_id, coalesce(e.book, b.book) as book, coalesce(e.currency, b.currency) as currency,
               coalesce(e.total, 0)::text as entries, coalesce(b.amount, 0)::text as balance
        from (select account_id, book, currency, sum(amount) as total from ledger_entries where account_id is not null group by 1, 2, 3) e
        full join account_balances b on b.account_id = e.account_id and b.book = e.book and b.currency = e.currency
        where coalesce(e.total, 0) <> coalesce(b.amount, 0)`.execute(db)
      return rows.rows.map((row) => ({ ...row, account_id: Number(row.account_id), entries: Number(row.entries), balance: Number(row.balance) }))
    },

    /** Postings whose entries do not sum to zero in some currency (never, if every write went through post()). */
    async unbalancedPostings(): Promise<Array<{ key: string; currency: string; sum: number }>> {
      const rows = await sql<{ key: string; currency: string; sum: string }>`
        select p.key, e.currency, sum(e.amount)::text as sum from ledger_entries e join ledger_postings p on p.id = e.posting_id
        group by p.key, e.currency having sum(e.amount) <> 0`.execute(db)
      return rows.rows.map((row) => ({ ...row, sum: Number(row.sum) }))
    },

    /**
     * Every book's balance per currency: the service's own books, and the customers' summed over
     * all accounts.
     */
    async bookTotals(): Promise<Array<{ book: Book; currency: Currency; total: number }>> {
      const rows = await sql<{ book: Book; currency: Currency; total: string }>`
        select book, currency, sum(amount)::text as total from ledger_entries group by book, currency order by book, currency`.execute(db)
      return rows.rows.map((row) => ({ ...row, total: Number(row.total) }))
    },

    /**
     * BTC or USDt left in a book only the provider's DePix moves, per book and currency. Totals,
     * not entries: a restatement (migration 013) cancels an old entry with an opposite one.
     */
    async foreignCurrencyInDepixBooks(): Promise<Array<{ book: Book; currency: Currency; total: number }>> {
      const rows = await sql<{ book: Book; currency: Currency; total: string }>`
        select book, currency, sum(amount)::text as total from ledger_entries
        where book in (${sql.join([...depixOnlyBooks])}) and currency <> 'DEPIX'
        group by book, currency having sum(amount) <> 0`.execute(db)
      return rows.rows.map((row) => ({ ...row, total: Number(row.total) }))
    },

    /** Each charge's postings summed per book and currency (customer books over the charge's account). */
    /** Every book's sum per charge and per withdrawal (both null: postings of neither). */
    async subjectBookSums(): Promise<Array<{ charge_id: string | null; withdrawal_id: string | null; book: Book; currency: Currency; total: number }>> {
      const rows = await sql<{ charge_id: string | null; withdrawal_id: string | null; book: Book; currency: Currency; total: string }>`
        select p.charge_id, p.withdrawal_id, e.book, e.currency, sum(e.amount)::text as total
        from ledger_entries e join ledger_postings p on p.id = e.posting_id
        group by p.charge_id, p.withdrawal_id, e.book, e.currency`.execute(db)
      return rows.rows.map((row) => ({ ...row, total: Number(row.total) }))
    },

    /** What accounts are owed per currency: every customer book of every account (available may be negative after a claw-back). */
    /**
     * Per currency, what the accounts are owed and what they owe: each account's books (available,
     * held, withdrawing) summed, its positive totals owed, its negative ones a debt (a MED took more
     * than was left). Summed apart, so one account's debt never hides another's claim.
     */
    async owedToAccounts(): Promise<Array<{ currency: Currency; owed: number; debts: number }>> {
      const rows = await sql<{ currency: Currency; owed: string; debts: string }>`
        select currency, sum(greatest(total, 0))::text as owed, sum(least(total, 0))::text as debts
        from (select account_id, currency, sum(amount) as total from account_balances group by account_id, currency) as per_account
        group by currency`.execute(db)
      return rows.rows.map((row) => ({ currency: row.currency, owed: Number(row.owed), debts: -Number(row.debts) }))
    },
  }
}
