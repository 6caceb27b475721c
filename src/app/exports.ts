// CSV exports of an account's statement, charges and withdrawals (docs/statements.md): rows read a
// batch at a time (keyset pages on both databases, so PostgreSQL and PGlite run one code path)
// and written by csv-stringify as they come, so memory stays flat whatever the length.
import { Readable } from 'node:stream'
import { stringify } from 'csv-stringify'
import { fixedFeeOf } from '../domain/money.ts'
import { amountText, csvSettings, decimalText, localDateTimeText, type CsvFlavour } from '../domain/export-format.ts'
import { maskTaxNumber } from '../domain/tax-number.ts'
import { catalogues, fill } from '../i18n/catalogue.ts'
import type { Catalogue } from '../i18n/catalogue.ts'
import type { Charge, Withdrawal } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { newestPayouts } from './list-withdrawals.ts'
import { keysetBatches } from './page-cursor.ts'
import { statementBatches, type StatementFilter } from './statement.ts'
import { maskDestination } from './withdrawal-records.ts'

/** Text a payer typed, made inert for a spreadsheet: one that starts like a formula is read as text. */
const inert = (text: string): string => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text)

/** Rows read per batch for the lists (charges, withdrawals). */
const LIST_BATCH = 500

export type CsvExport = { header: string[]; rows: AsyncIterable<string[]> }

type Headers = Catalogue['csvHeaders']

function headerOf(flavour: CsvFlavour, timeZone: string, columns: ReadonlyArray<keyof Headers>): string[] {
  const texts = catalogues[csvSettings(flavour).lang].csvHeaders
  return columns.map((column) => fill(texts[column], { zone: timeZone }))
}

/** The export as a byte stream: csv-stringify writes each row as it is read, with the flavour's delimiter and BOM. */
export function csvStream(file: CsvExport, flavour: CsvFlavour): Readable {
  const settings = csvSettings(flavour)
  const source = Readable.from((async function* () {
    yield file.header
    yield* file.rows
  })())
  const writer = stringify({ delimiter: settings.delimiter, bom: settings.bom, record_delimiter: 'windows' })
  source.on('error', (error) => writer.destroy(error))
  return source.pipe(writer)
}

/** The statement, oldest first, as the API's lines: signed amounts, balances after, times in the owner's zone and in UTC. */
export function statementExport(deps: { store: Store }, account: { id: number; timeZone: string }, filter: StatementFilter, flavour: CsvFlavour): CsvExport {
  const types = catalogues[csvSettings(flavour).lang].statementTypes
  const header = headerOf(flavour, account.timeZone, ['date', 'type', 'currency', 'amount', 'available_amount', 'balance_after', 'available_after', 'payment_id', 'withdrawal_id', 'quote_brl', 'created_at_utc', 'line_id'])
  async function* rows(): AsyncGenerator<string[]> {
    for await (const batch of statementBatches(deps.store, account.id, filter)) {
      for (const line of batch) {
        yield [
          localDateTimeText(line.createdAt, account.timeZone, flavour),
          flavour === 'br' ? types[line.type] : line.type,
          line.currency,
          amountText(line.currency, line.amount, flavour),
          amountText(line.currency, line.available, flavour),
          amountText(line.currency, line.balanceAfter, flavour),
          amountText(line.currency, line.availableAfter, flavour),
          line.chargeId ?? '',
          line.withdrawalId ?? '',
          line.quoteMicros === null ? '' : decimalText(line.quoteMicros, 6, flavour),
          line.createdAt.toISOString(),
          `bt_${line.postingId}_${line.part}`,
        ]
      }
    }
  }
  return { header, rows: rows() }
}

/** The charges the account received or made, newest first: what was charged, what was paid, the fee, what was credited, what was taken back. */
export function chargesExport(deps: { store: Store }, account: { id: number; timeZone: string }, filter: { from: Date | null; to: Date | null }, flavour: CsvFlavour): CsvExport {
  const statuses = catalogues[csvSettings(flavour).lang].statuses
  const brl = (cents: number | null) => (cents === null ? '' : decimalText(cents, 2, flavour))
  const header = headerOf(flavour, account.timeZone, ['date', 'id', 'status', 'value_brl', 'paid_brl', 'fee_brl', 'currency', 'credited', 'taken_back_brl', 'payer_name', 'payer_tax_number', 'confirmed', 'created_at_utc'])
  const row = (charge: Charge): string[] => {
    const credited = charge.credited_units !== null
    const arrived = charge.paid_cents ?? charge.value_cents
    return [
      localDateTimeText(charge.created_at, account.timeZone, flavour),
      charge.id,
      flavour === 'br' ? statuses[charge.status] : charge.status,
      brl(charge.value_cents),
      brl(charge.paid_cents),
      credited ? brl(fixedFeeOf(arrived)) : '',
      charge.currency,
      credited ? amountText(charge.currency, charge.credited_units!, flavour) : '',
      brl(charge.taken_back_cents),
      inert(charge.payer_name ?? ''),
      charge.payer_tax_number === null ? '' : maskTaxNumber(charge.payer_tax_number),
      charge.confirmed_at === null ? '' : localDateTimeText(charge.confirmed_at, account.timeZone, flavour),
      charge.created_at.toISOString(),
    ]
  }
  async function* rows(): AsyncGenerator<string[]> {
    for await (const page of keysetBatches(LIST_BATCH, (before) => deps.store.charges.list({ accountId: account.id }, { status: null, before, createdFrom: filter.from, createdTo: filter.to, limit: LIST_BATCH }))) {
      yield* page.map(row)
    }
  }
  return { header, rows: rows() }
}

/** The account's withdrawals, newest first: amount, our fee, what was sent, what a Pix key received, and the proof (Liquid txid or Pix receipt). */
export function withdrawalsExport(deps: { store: Store }, account: { id: number; timeZone: string }, filter: { from: Date | null; to: Date | null }, flavour: CsvFlavour): CsvExport {
  const statuses = catalogues[csvSettings(flavour).lang].withdrawalStatuses
  const header = headerOf(flavour, account.timeZone, ['date', 'id', 'status', 'currency', 'amount', 'fee', 'net_amount', 'payout_brl', 'destination_type', 'destination', 'txid', 'receipt', 'updated', 'created_at_utc'])
  async function* rows(): AsyncGenerator<string[]> {
    const destinations = new Map((await deps.store.withdrawals.listDestinationsWithCanceled(account.id)).map((destination) => [destination.id, destination]))
    for await (const page of keysetBatches<Withdrawal>(LIST_BATCH, (before) => deps.store.withdrawals.list(account.id, { status: null, before, createdFrom: filter.from, createdTo: filter.to, limit: LIST_BATCH }))) {
      const payouts = newestPayouts(await deps.store.payouts.listForWithdrawals(page.map((withdrawal) => withdrawal.id)))
      for (const withdrawal of page) {
        const destination = destinations.get(withdrawal.destination_id)
        const payout = payouts.get(withdrawal.id)
        const pix = destination?.type === 'pix'
        yield [
          localDateTimeText(withdrawal.created_at, account.timeZone, flavour),
          withdrawal.id,
          flavour === 'br' ? statuses[withdrawal.status] : withdrawal.status,
          withdrawal.currency,
          amountText(withdrawal.currency, withdrawal.amount, flavour),
          amountText(withdrawal.currency, withdrawal.fee, flavour),
          amountText(withdrawal.currency, withdrawal.net_amount, flavour),
          withdrawal.payout_cents === null ? '' : decimalText(payout?.payout_cents ?? withdrawal.payout_cents, 2, flavour),
          destination?.type ?? '',
          destination === undefined ? '' : maskDestination(destination),
          pix ? '' : (payout?.txid ?? ''),
          pix ? (payout?.provider_receipt_url ?? '') : '',
          localDateTimeText(withdrawal.updated_at, account.timeZone, flavour),
          withdrawal.created_at.toISOString(),
        ]
      }
    }
  }
  return { header, rows: rows() }
}
