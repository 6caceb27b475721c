// The operators' reports in the console, each also a CSV (docs/statements.md): fees earned per
// asset and month; charges the provider's records and ours disagree on; withdrawals, refunds and
// MED losses per month; what each account is owed. Months are read in the service's time zone.
import { amountText, csvSettings, decimalText, localDateTimeText, type CsvFlavour } from '../domain/export-format.ts'
import type { Currency } from '../domain/money.ts'
import { catalogues, fill, type Catalogue } from '../i18n/catalogue.ts'
import type { OwedRow, ProviderMismatch } from '../store/reports.ts'
import type { Store } from '../store/store.ts'
import type { CsvExport } from './exports.ts'

export type FeesRow = { month: string; currency: Currency; deposit: number; withdrawal: number; returned: number; refundPayout: number; net: number; network: number }
export type OutflowRow = {
  month: string; currency: Currency; withdrawals: number; withdrawalsSent: number; withdrawalsReturned: number
  refundsOwed: number; refundsPaid: number; takenFromAccounts: number; medLosses: number
}

const rowKey = (month: string, currency: Currency) => `${month} ${currency}`

function pivot<Row extends { month: string; currency: Currency }>(make: (month: string, currency: Currency) => Row) {
  const rows = new Map<string, Row>()
  return {
    at: (month: string, currency: Currency) => {
      const key = rowKey(month, currency)
      let row = rows.get(key)
      if (row === undefined) rows.set(key, (row = make(month, currency)))
      return row
    },
    /** Newest month first, then by currency. */
    rows: () => [...rows.values()].sort((a, b) => (a.month === b.month ? a.currency.localeCompare(b.currency) : b.month.localeCompare(a.month))),
  }
}

/** What the fees book earned per month and asset: deposit fees, withdrawal fees, less what went back (a returned withdrawal, the provider's fee on a refund we paid); and the network fees the service paid. */
export async function feesReport({ store }: { store: Store }, timeZone: string): Promise<FeesRow[]> {
  const table = pivot<FeesRow>((month, currency) => ({ month, currency, deposit: 0, withdrawal: 0, returned: 0, refundPayout: 0, net: 0, network: 0 }))
  for (const sum of await store.reports.monthlySums(timeZone, ['fees', 'network_fees'])) {
    const row = table.at(sum.month, sum.currency)
    if (sum.book === 'network_fees') {
      row.network += sum.total
      continue
    }
    row.net += sum.total
    if (sum.kind === 'credit') row.deposit += sum.total
    else if (sum.kind === 'withdrawal_settle') row.withdrawal += sum.total
    else if (sum.kind === 'withdrawal_return') row.returned += sum.total
    else if (sum.kind === 'refund_payout_fee') row.refundPayout += sum.total
  }
  return table.rows()
}

/** Money that left per month and asset: withdrawals sent (and returned), refunds owed and paid, what MEDs took back from accounts and what they cost the service. */
export async function outflowsReport({ store }: { store: Store }, timeZone: string): Promise<OutflowRow[]> {
  const table = pivot<OutflowRow>((month, currency) => ({ month, currency, withdrawals: 0, withdrawalsSent: 0, withdrawalsReturned: 0, refundsOwed: 0, refundsPaid: 0, takenFromAccounts: 0, medLosses: 0 }))
  const [service, accounts] = await Promise.all([
    store.reports.monthlySums(timeZone, ['withdrawals_sent', 'refunds_owed', 'refunds_paid', 'med_losses']),
    store.reports.monthlySums(timeZone, ['available', 'held'], ['clawback']),
  ])
  for (const sum of service) {
    const row = table.at(sum.month, sum.currency)
    if (sum.book === 'withdrawals_sent' && sum.kind === 'withdrawal_settle') {
      row.withdrawals += sum.subjects
      row.withdrawalsSent += sum.total
    } else if (sum.book === 'withdrawals_sent' && sum.kind === 'withdrawal_return') row.withdrawalsReturned -= sum.total
    else if (sum.book === 'refunds_owed' && sum.kind === 'refund_owed') row.refundsOwed += sum.total
    else if (sum.book === 'refunds_paid') row.refundsPaid += sum.total
    else if (sum.book === 'med_losses') row.medLosses -= sum.total
  }
  for (const sum of accounts) table.at(sum.month, sum.currency).takenFromAccounts -= sum.total
  return table.rows()
}

export function providerReport({ store }: { store: Store }, limit: number): Promise<ProviderMismatch[]> {
  return store.reports.providerMismatches(limit)
}

export type OwedTotals = Map<Currency, { owed: number; debts: number }>

/** Every account's balances per currency, a page at a time in account order. */
export async function* owedPages(store: Store, pageSize = 500): AsyncGenerator<OwedRow[]> {
  let afterId = 0
  for (;;) {
    const rows = await store.reports.owedPage(afterId, pageSize)
    if (rows.length === 0) return
    yield rows
    afterId = rows.at(-1)!.account_id
  }
}

const owedOf = (row: OwedRow) => row.available + row.held + row.withdrawing

type Headers = Catalogue['csvHeaders']
function header(flavour: CsvFlavour, columns: ReadonlyArray<keyof Headers>, zone: string): string[] {
  const texts = catalogues[csvSettings(flavour).lang].csvHeaders
  return columns.map((column) => fill(texts[column], { zone }))
}
async function* once<T>(rows: T[]): AsyncGenerator<T> {
  yield* rows
}

export function feesCsv(rows: FeesRow[], flavour: CsvFlavour, zone: string): CsvExport {
  return {
    header: header(flavour, ['month', 'currency', 'deposit_fees', 'withdrawal_fees', 'fees_returned', 'refund_payout_fees', 'net_fees', 'network_fees'], zone),
    rows: once(rows.map((row) => [row.month, row.currency, ...[row.deposit, row.withdrawal, row.returned, row.refundPayout, row.net].map((units) => amountText(row.currency, units, flavour)), row.network === 0 ? '' : amountText(row.currency, row.network, flavour)])),
  }
}

export function outflowsCsv(rows: OutflowRow[], flavour: CsvFlavour, zone: string): CsvExport {
  return {
    header: header(flavour, ['month', 'currency', 'withdrawals_count', 'withdrawals_sent', 'withdrawals_returned', 'refunds_owed', 'refunds_paid', 'taken_from_accounts', 'med_losses'], zone),
    rows: once(rows.map((row) => [row.month, row.currency, String(row.withdrawals), ...[row.withdrawalsSent, row.withdrawalsReturned, row.refundsOwed, row.refundsPaid, row.takenFromAccounts, row.medLosses].map((units) => amountText(row.currency, units, flavour))])),
  }
}

export function providerCsv(rows: ProviderMismatch[], flavour: CsvFlavour, zone: string): CsvExport {
  const brl = (cents: number | null) => (cents === null ? '' : decimalText(cents, 2, flavour))
  return {
    header: header(flavour, ['side', 'id', 'status', 'provider_status', 'value_brl', 'paid_brl', 'currency', 'credited', 'account', 'date'], zone),
    rows: once(rows.map((row) => [row.side, row.qr_id, row.status ?? '', row.provider_status, brl(row.value_cents), brl(row.paid_cents), row.currency ?? '',
      row.credited === null || row.currency === null ? '' : amountText(row.currency, row.credited, flavour), row.account_email ?? '', localDateTimeText(row.seen_at, zone, flavour)])),
  }
}

export function owedCsv({ store }: { store: Store }, flavour: CsvFlavour, zone: string): CsvExport {
  async function* rows(): AsyncGenerator<string[]> {
    for await (const page of owedPages(store)) {
      for (const row of page) {
        yield [String(row.account_id), row.email, row.currency, ...[row.available, row.held, row.withdrawing, owedOf(row)].map((units) => amountText(row.currency, units, flavour))]
      }
    }
  }
  return { header: header(flavour, ['account_id', 'account', 'currency', 'available', 'held', 'withdrawing', 'owed'], zone), rows: rows() }
}

/** The owed report's first page and its totals over every account: what is owed (positive totals) and what accounts owe (negative ones). */
export async function owedReport({ store }: { store: Store }, shown: number): Promise<{ rows: Array<OwedRow & { owed: number }>; more: boolean; totals: Array<{ currency: Currency; owed: number; debts: number }> }> {
  const first = await store.reports.owedPage(0, shown + 1)
  const accounts = new Set(first.map((row) => row.account_id))
  const kept = [...accounts].slice(0, shown)
  return {
    rows: first.filter((row) => kept.includes(row.account_id)).map((row) => ({ ...row, owed: owedOf(row) })),
    more: accounts.size > shown,
    totals: await store.ledger.owedToAccounts(),
  }
}
