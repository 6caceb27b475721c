// The operators' reports (docs/statements.md): sums over the ledger by month in a time zone, the
// charges the provider's records and ours disagree on, and what each account is owed.
import { sql, type Kysely } from 'kysely'
import type { Currency } from '../domain/money.ts'
import type { Database } from './schema.ts'

export type MonthKindSum = { month: string; currency: Currency; book: string; kind: string; total: number; subjects: number }

export type ProviderMismatch = {
  side: 'provider_paid_not_credited' | 'credited_not_paid_by_provider'
  qr_id: string
  status: string | null
  provider_status: string
  value_cents: number | null
  paid_cents: number | null
  credited: number | null
  currency: Currency | null
  account_email: string | null
  seen_at: Date
}

export type OwedRow = { account_id: number; email: string; currency: Currency; available: number; held: number; withdrawing: number }

export function reportsRepository(db: Kysely<Database>) {
  return {
    /**
     * The service's books (and what accounts paid back in claw-backs) summed per month of
     * `timeZone`, currency, book and posting kind, with how many charges or withdrawals made them.
     */
    async monthlySums(timeZone: string, books: readonly string[], kinds: readonly string[] | null = null): Promise<MonthKindSum[]> {
      const rows = await sql<{ month: string; currency: Currency; book: string; kind: string; total: string; subjects: string }>`
        select to_char(p.created_at at time zone ${timeZone}, 'YYYY-MM') as month, e.currency, e.book, p.kind, sum(e.amount)::text as total,
          count(distinct coalesce(p.charge_id, p.withdrawal_id))::text as subjects
        from ledger_entries e join ledger_postings p on p.id = e.posting_id
        where e.book in (${sql.join([...books])}) ${kinds === null ? sql`` : sql`and p.kind in (${sql.join([...kinds])})`}
        group by 1, 2, 3, 4 order by 1 desc, 2, 3, 4`.execute(db)
      return rows.rows.map((row) => ({ ...row, total: Number(row.total), subjects: Number(row.subjects) }))
    },

    /**
     * Charges the provider and we disagree on: what the provider says was paid (a deposit we do
     * not know, or a charge it reports `depix_sent` that credited nothing and owes no refund), and
     * the reverse (a credit whose charge the provider does not report paid, and did not take back).
     */
    async providerMismatches(limit: number): Promise<ProviderMismatch[]> {
      const rows = await sql<ProviderMismatch & { value_cents: string | null; paid_cents: string | null; credited: string | null }>`
        (select 'provider_paid_not_credited' as side, u.qr_id, null as status, u.status as provider_status, u.value_cents, u.value_cents as paid_cents,
          null::int8 as credited, null as currency, null as account_email, u.last_seen_at as seen_at
         from unknown_deposits u where u.status = 'depix_sent' order by u.first_seen_at limit ${limit})
        union all
        (select 'provider_paid_not_credited', c.id, c.status, c.provider_status, c.value_cents, c.paid_cents, null, c.currency, a.email, c.updated_at
         from charges c join accounts a on a.id = c.account_id
         where c.provider_status = 'depix_sent' and c.credited_units is null and c.status not in ('refunded', 'will_refund')
           and not exists (select 1 from refunds r where r.charge_id = c.id)
         order by c.updated_at limit ${limit})
        union all
        (select 'credited_not_paid_by_provider', c.id, c.status, c.provider_status, c.value_cents, c.paid_cents, c.credited_units, c.currency, a.email, c.updated_at
         from charges c join accounts a on a.id = c.account_id
         where c.credited_units is not null and c.provider_status <> 'depix_sent' and not c.taken_back_all and c.taken_back_cents = 0
         order by c.updated_at limit ${limit})`.execute(db)
      return rows.rows.map((row) => ({
        ...row,
        value_cents: row.value_cents === null ? null : Number(row.value_cents),
        paid_cents: row.paid_cents === null ? null : Number(row.paid_cents),
        credited: row.credited === null ? null : Number(row.credited),
      }))
    },

    /** What each account holds per currency, by book, accounts in id order after `afterId`: a page of the owed report. */
    async owedPage(afterId: number, limit: number): Promise<OwedRow[]> {
      const rows = await sql<{ account_id: string; email: string; currency: Currency; available: string; held: string; withdrawing: string }>`
        select b.account_id, a.email, b.currency,
          coalesce(sum(b.amount) filter (where b.book = 'available'), 0)::text as available,
          coalesce(sum(b.amount) filter (where b.book = 'held'), 0)::text as held,
          coalesce(sum(b.amount) filter (where b.book = 'withdrawing'), 0)::text as withdrawing
        from account_balances b join accounts a on a.id = b.account_id
        where b.account_id in (select distinct account_id from account_balances where account_id > ${afterId} and amount <> 0 order by account_id limit ${limit})
        group by b.account_id, a.email, b.currency
        having sum(abs(b.amount)) <> 0
        order by b.account_id, b.currency`.execute(db)
      return rows.rows.map((row) => ({ ...row, account_id: Number(row.account_id), available: Number(row.available), held: Number(row.held), withdrawing: Number(row.withdrawing) }))
    },
  }
}
