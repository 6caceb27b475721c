// The statement's reads: an account's postings summed per posting and currency, a batch at a time
// in posting order (the ledger_entries_statement index), and what came before a batch.
import { sql, type Kysely } from 'kysely'
import type { Currency } from '../domain/money.ts'
import type { Balances, PostingMovement } from '../domain/statement.ts'
import type { Database } from './schema.ts'

export type MovementFilter = {
  currency: Currency | null
  /** Inclusive. */
  from: Date | null
  /** Exclusive. */
  to: Date | null
}

type MovementRow = {
  posting_id: string | number
  kind: string
  charge_id: string | null
  withdrawal_id: string | null
  created_at: Date
  currency: Currency
  total: string | number
  available: string | number
  fee: string | number
  quote_micros: string | number | null
}

const toMovement = (row: MovementRow): PostingMovement => ({
  postingId: Number(row.posting_id), kind: row.kind, chargeId: row.charge_id, withdrawalId: row.withdrawal_id, createdAt: row.created_at, currency: row.currency,
  total: Number(row.total), available: Number(row.available), fee: Number(row.fee), quoteMicros: row.quote_micros === null ? null : Number(row.quote_micros),
})

export function statementRepository(db: Kysely<Database>) {
  const sums = async (accountId: number, condition: ReturnType<typeof sql>): Promise<Balances> => {
    const rows = await sql<{ currency: Currency; balance: string; available: string }>`
      select currency, sum(amount)::text as balance, coalesce(sum(amount) filter (where book = 'available'), 0)::text as available
      from ledger_entries where account_id = ${accountId} and ${condition} group by currency`.execute(db)
    return new Map(rows.rows.map((row) => [row.currency, { balance: Number(row.balance), available: Number(row.available) }]))
  }
  return {
    /**
     * The account's movements of `limit` postings, per posting and currency, in posting order:
     * after `afterId` oldest first, or before (and including) `throughId` newest first. The
     * postings are picked first from the statement index (a posting's currencies are never split
     * between batches), then summed, with the fee each took in the line's currency.
     */
    async movements(accountId: number, filter: MovementFilter, page: { order: 'asc'; afterId: number | null; limit: number } | { order: 'desc'; throughId: number | null; limit: number }): Promise<{ rows: PostingMovement[]; postings: number }> {
      const conditions = [sql`e.account_id = ${accountId}`]
      if (filter.currency !== null) conditions.push(sql`e.currency = ${filter.currency}`)
      if (filter.from !== null) conditions.push(sql`p.created_at >= ${filter.from}`)
      if (filter.to !== null) conditions.push(sql`p.created_at < ${filter.to}`)
      if (page.order === 'asc' && page.afterId !== null) conditions.push(sql`e.posting_id > ${page.afterId}`)
      if (page.order === 'desc' && page.throughId !== null) conditions.push(sql`e.posting_id <= ${page.throughId}`)
      const order = page.order === 'asc' ? sql`asc` : sql`desc`
      const dated = filter.from !== null || filter.to !== null
      const rows = await sql<MovementRow>`
        with batch as (
          select distinct e.posting_id from ledger_entries e ${dated ? sql`join ledger_postings p on p.id = e.posting_id` : sql``}
          where ${sql.join(conditions, sql` and `)}
          order by e.posting_id ${order} limit ${page.limit}
        )
        select e.posting_id, p.kind, p.charge_id, p.withdrawal_id, p.created_at, e.currency,
          sum(e.amount)::text as total, coalesce(sum(e.amount) filter (where e.book = 'available'), 0)::text as available,
          (select coalesce(sum(f.amount), 0) from ledger_entries f where f.posting_id = e.posting_id and f.book = 'fees' and f.currency = e.currency)::text as fee,
          c.quote_micros
        from batch join ledger_entries e on e.posting_id = batch.posting_id and e.account_id = ${accountId}
          join ledger_postings p on p.id = e.posting_id left join charges c on c.id = p.charge_id
        ${filter.currency === null ? sql`` : sql`where e.currency = ${filter.currency}`}
        group by e.posting_id, p.kind, p.charge_id, p.withdrawal_id, p.created_at, e.currency, c.quote_micros
        order by e.posting_id ${order}, e.currency`.execute(db)
      const movements = rows.rows.map(toMovement)
      return { rows: movements, postings: new Set(movements.map((row) => row.postingId)).size }
    },

    /** One charge's movements on the account, oldest first (a charge has a handful). */
    async movementsOfCharge(accountId: number, chargeId: string): Promise<PostingMovement[]> {
      const rows = await sql<MovementRow>`
        select e.posting_id, p.kind, p.charge_id, p.withdrawal_id, p.created_at, e.currency,
          sum(e.amount)::text as total, coalesce(sum(e.amount) filter (where e.book = 'available'), 0)::text as available,
          (select coalesce(sum(f.amount), 0) from ledger_entries f where f.posting_id = e.posting_id and f.book = 'fees' and f.currency = e.currency)::text as fee,
          null as quote_micros
        from ledger_postings p join ledger_entries e on e.posting_id = p.id and e.account_id = ${accountId}
        where p.charge_id = ${chargeId}
        group by e.posting_id, p.kind, p.charge_id, p.withdrawal_id, p.created_at, e.currency
        order by e.posting_id, e.currency`.execute(db)
      return rows.rows.map(toMovement)
    },

    async balancesThrough(accountId: number, postingId: number, inclusive: boolean): Promise<Balances> {
      return sums(accountId, inclusive ? sql`posting_id <= ${postingId}` : sql`posting_id < ${postingId}`)
    },

    /** The account's balances after every posting made before `at`: a period's opening balance. */
    async balancesBefore(accountId: number, at: Date): Promise<Balances> {
      return sums(accountId, sql`exists (select 1 from ledger_postings p where p.id = posting_id and p.created_at < ${at})`)
    },

    /**
     * The account's balances after every posting up to `postingId`, from the running balances less
     * what came after it: for the newest pages, which are read most, a short sum.
     */
    async balancesThroughFromNow(accountId: number, postingId: number): Promise<Balances> {
      const rows = await sql<{ currency: Currency; balance: string; available: string }>`
        select currency, sum(amount)::text as balance, coalesce(sum(amount) filter (where book = 'available'), 0)::text as available from (
          select currency, book, amount from account_balances where account_id = ${accountId}
          union all
          select currency, book, -amount from ledger_entries where account_id = ${accountId} and posting_id > ${postingId}
        ) as moves group by currency`.execute(db)
      return new Map(rows.rows.map((row) => [row.currency, { balance: Number(row.balance), available: Number(row.available) }]))
    },
  }
}
