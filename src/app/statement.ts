// The account's statement (docs/statements.md): GET /api/balance-transactions a page at a time,
// newest first; the Wallet's Extrato and the CSV exports oldest first, in batches. One walk for
// all: the store sums each posting per currency, the domain makes lines and their balances.
import type { BalanceTransaction, BalanceTransactionList } from '../contract/api.ts'
import { DomainError } from '../domain/errors.ts'
import { currencies, formatUnits, type Currency } from '../domain/money.ts'
import { linesOf, priceNewestFirst, priceOldestFirst, statementLineTypes, type Balances, type PricedLine, type StatementLineType } from '../domain/statement.ts'
import type { MovementFilter } from '../store/statement.ts'
import type { Store } from '../store/store.ts'
import { dateFilter, encodeKeyCursor, readCursor } from './page-cursor.ts'

export type StatementFilter = MovementFilter & { type: StatementLineType | null }

/** Postings read per batch: big enough that a long export makes few round trips, small enough to keep memory flat. */
export const STATEMENT_BATCH = 500

/** The statement cursor names the last line given: its posting and its part. */
export function encodeLineCursor(line: { postingId: number; part: number }): string {
  return encodeKeyCursor(`L${line.postingId}_${line.part}`)
}

function parseLineCursor(value: string | undefined): { postingId: number; part: number } | null {
  const match = readCursor(value, /^L(\d{1,15})_(\d)$/, (found) => Number.isSafeInteger(Number(found[1])))
  return match === null ? null : { postingId: Number(match[1]), part: Number(match[2]) }
}

/** The filters a request names, checked: unknown currencies and types and bad dates are refused with the parameter named. */
export function statementFilter(query: { currency?: string; type?: string; createdFrom?: string; createdTo?: string }): StatementFilter {
  if (query.currency !== undefined && query.currency !== '' && !(currencies as readonly string[]).includes(query.currency)) {
    throw new DomainError('invalid_request', { param: 'currency', message: 'Unknown currency.' })
  }
  if (query.type !== undefined && query.type !== '' && !(statementLineTypes as readonly string[]).includes(query.type)) {
    throw new DomainError('invalid_request', { param: 'type', message: 'Unknown line type.' })
  }
  return {
    currency: query.currency ? (query.currency as Currency) : null,
    type: query.type ? (query.type as StatementLineType) : null,
    from: dateFilter(query.createdFrom, 'created_from'),
    to: dateFilter(query.createdTo, 'created_to'),
  }
}

/** One page of lines, newest first, and the cursor of the next. */
export async function statementPage(store: Store, accountId: number, filter: StatementFilter, page: { cursor: string | undefined; limit: number }): Promise<{ lines: PricedLine[]; nextCursor: string | null }> {
  const cursor = parseLineCursor(page.cursor)
  const found: PricedLine[] = []
  let throughId = cursor?.postingId ?? null
  let balances: Balances | null = null
  for (;;) {
    const { rows, postings } = await store.statement.movements(accountId, filter, { order: 'desc', throughId, limit: STATEMENT_BATCH })
    if (rows.length === 0) break
    balances ??= await store.statement.balancesThroughFromNow(accountId, rows[0]!.postingId)
    // Newest first: a posting's lines in reverse order.
    const lines = priceNewestFirst(rows.flatMap((row) => linesOf(row).reverse()), balances)
    for (const line of lines) {
      if (cursor !== null && line.postingId === cursor.postingId && line.part >= cursor.part) continue
      if (filter.type !== null && line.type !== filter.type) continue
      found.push(line)
    }
    if (found.length > page.limit || postings < STATEMENT_BATCH) break
    throughId = rows.at(-1)!.postingId - 1
  }
  const lines = found.slice(0, page.limit)
  return { lines, nextCursor: found.length > page.limit ? encodeLineCursor(lines.at(-1)!) : null }
}

/**
 * Every line of the filter, oldest first, a batch at a time: what the exports stream and the
 * Extrato shows. `opening` is the balances before the first line, moved along as lines are read.
 */
export async function* statementBatches(store: Store, accountId: number, filter: StatementFilter): AsyncGenerator<PricedLine[]> {
  let afterId: number | null = null
  let running: Balances | null = null
  for (;;) {
    const { rows, postings } = await store.statement.movements(accountId, filter, { order: 'asc', afterId, limit: STATEMENT_BATCH })
    if (rows.length === 0) return
    running ??= await store.statement.balancesThrough(accountId, rows[0]!.postingId, false)
    const lines = priceOldestFirst(rows.flatMap((row) => linesOf(row)), running)
    yield filter.type === null ? lines : lines.filter((line) => line.type === filter.type)
    if (postings < STATEMENT_BATCH) return
    afterId = rows.at(-1)!.postingId
  }
}

export function toBalanceTransaction(line: PricedLine): BalanceTransaction {
  return {
    id: `bt_${line.postingId}_${line.part}`,
    type: line.type,
    currency: line.currency,
    amount: line.amount,
    available_amount: line.available,
    balance_after: line.balanceAfter,
    available_after: line.availableAfter,
    payment_id: line.chargeId,
    withdrawal_id: line.withdrawalId,
    quote_brl: line.quoteMicros === null ? null : formatUnits(line.quoteMicros, 6),
    created_at: line.createdAt.toISOString(),
  }
}

export async function listBalanceTransactions(
  deps: { store: Store },
  request: { accountId: number; currency?: string; type?: string; createdFrom?: string; createdTo?: string; limit?: number; cursor?: string },
): Promise<BalanceTransactionList> {
  const page = await statementPage(deps.store, request.accountId, statementFilter(request), { cursor: request.cursor, limit: request.limit ?? 20 })
  return { balance_transactions: page.lines.map(toBalanceTransaction), next_cursor: page.nextCursor }
}

export type StatementSummary = { opening: number; in: number; out: number; fees: number; closing: number; availableClosing: number }

/**
 * The Extrato: a period's lines oldest first (at most `maxLines` kept, the CSV has them all), and
 * per currency the balance before it, what came in, what went out (of which fees), and the
 * balance after it, summed over every line of the period.
 */
export async function statementView(deps: { store: Store }, accountId: number, filter: StatementFilter, maxLines: number): Promise<{ lines: PricedLine[]; more: boolean; summary: Map<Currency, StatementSummary> }> {
  const opening = filter.from === null ? new Map() as Balances : await deps.store.statement.balancesBefore(accountId, filter.from)
  const summary = new Map<Currency, StatementSummary>()
  for (const currency of currencies) {
    const before = opening.get(currency) ?? { balance: 0, available: 0 }
    if (filter.currency === null || filter.currency === currency) {
      summary.set(currency, { opening: before.balance, in: 0, out: 0, fees: 0, closing: before.balance, availableClosing: before.available })
    }
  }
  const lines: PricedLine[] = []
  let more = false
  for await (const batch of statementBatches(deps.store, accountId, filter)) {
    for (const line of batch) {
      const sums = summary.get(line.currency)!
      if (line.amount > 0) sums.in += line.amount
      else sums.out -= line.amount
      if (line.type === 'fee' || line.type === 'withdrawal_fee') sums.fees -= line.amount
      sums.closing = line.balanceAfter
      sums.availableClosing = line.availableAfter
      if (lines.length < maxLines) lines.push(line)
      else more = true
    }
  }
  return { lines, more, summary }
}
