// /ops/ledger-check: the books against what happened (decisions 14). The running balances agree
// with the entries; every posting balances per currency; the books that only the provider's DePix
// moves hold only DEPIX; and, charge by charge, each book holds exactly what the charge records
// (what arrived, the fee, what was credited and converted, what the provider took back and what
// that cost, what is owed to or was paid to the payer). Reads every posting: an operator's check,
// not a request path.
import { bookKey, expectedChargeBooks, expectedWithdrawalBooks, type Book } from '../domain/ledger.ts'
import { isReserved } from '../domain/withdrawal.ts'
import type { Currency } from '../domain/money.ts'
import type { Store } from '../store/store.ts'

export type LedgerCheck = {
  ok: boolean
  /** Running balances that disagree with their entries. */
  disagreements: Awaited<ReturnType<Store['ledger']['disagreements']>>
  unbalanced: Awaited<ReturnType<Store['ledger']['unbalancedPostings']>>
  /** BTC or USDt in a book only the provider's DePix moves. */
  foreign_currency: Awaited<ReturnType<Store['ledger']['foreignCurrencyInDepixBooks']>>
  /** Books that hold other than what their charge records (charge null: postings of no charge). */
  charges: Array<{ charge_id: string | null; book: Book; currency: Currency; expected: number; actual: number }>
  /** Books that hold other than what their withdrawal's status says (reserved, sent, or given back). */
  withdrawals: Array<{ withdrawal_id: string; book: Book; currency: Currency; expected: number; actual: number }>
  /** Every book's balance per currency. */
  books: Array<{ book: Book; currency: Currency; total: number }>
}

export async function checkLedger(deps: { store: Store }): Promise<LedgerCheck> {
  const { ledger } = deps.store
  const [disagreements, unbalanced, foreign, allSums, books] = await Promise.all([
    ledger.disagreements(),
    ledger.unbalancedPostings(),
    ledger.foreignCurrencyInDepixBooks(),
    ledger.subjectBookSums(),
    ledger.bookTotals(),
  ])
  const sums = allSums.filter((row) => row.withdrawal_id === null)
  const withdrawals = await withdrawalMismatches(deps.store, allSums.flatMap((row) => (row.withdrawal_id === null ? [] : [{ ...row, withdrawal_id: row.withdrawal_id }])))
  const chargeIds = [...new Set(sums.flatMap((row) => (row.charge_id === null ? [] : [row.charge_id])))]
  const [charges, refunds] = await Promise.all([deps.store.charges.findByIds(chargeIds), deps.store.refunds.owedFor(chargeIds)])
  const expected = new Map<string, Map<string, number>>()
  for (const charge of charges) {
    const refund = refunds.get(charge.id)
    expected.set(charge.id, expectedChargeBooks({
      currency: charge.currency,
      creditedUnits: charge.credited_units,
      arrivedCents: charge.paid_cents,
      takenBackCents: charge.credited_units === null ? 0 : charge.taken_back_cents,
      takenBackUnits: charge.taken_back_units,
      held: charge.status === 'after7d',
      refund: refund ? { amountCents: refund.amount_cents, owedCents: refund.owed_cents, paidByUsCents: refund.paid_by_us_cents, lossCents: refund.loss_cents, payoutFeeCents: refund.payout_fee_cents } : null,
    }))
  }
  const mismatches: LedgerCheck['charges'] = []
  const actualByCharge = new Map<string | null, Map<string, { book: Book; currency: Currency; total: number }>>()
  for (const row of sums) {
    const books = actualByCharge.get(row.charge_id) ?? new Map()
    books.set(bookKey(row.book, row.currency), row)
    actualByCharge.set(row.charge_id, books)
  }
  for (const [chargeId, actual] of actualByCharge) {
    const want = (chargeId === null ? undefined : expected.get(chargeId)) ?? new Map<string, number>()
    for (const key of new Set([...actual.keys(), ...want.keys()])) {
      const [book, currency] = key.split(':') as [Book, Currency]
      const has = actual.get(key)?.total ?? 0
      const should = want.get(key) ?? 0
      if (has !== should) mismatches.push({ charge_id: chargeId, book, currency, expected: should, actual: has })
    }
  }
  return {
    ok: disagreements.length === 0 && unbalanced.length === 0 && foreign.length === 0 && mismatches.length === 0 && withdrawals.length === 0,
    disagreements,
    unbalanced,
    foreign_currency: foreign,
    charges: mismatches,
    withdrawals,
    books,
  }
}

/** Withdrawal by withdrawal: reserved while it waits or is sent, settled once sent, nothing when given back. */
async function withdrawalMismatches(store: Store, sums: Array<{ withdrawal_id: string; book: Book; currency: Currency; total: number }>): Promise<LedgerCheck['withdrawals']> {
  const ids = [...new Set(sums.map((row) => row.withdrawal_id))]
  const mismatches: LedgerCheck['withdrawals'] = []
  for (const withdrawal of await store.withdrawals.findByIds(ids)) {
    const settled = withdrawal.status === 'sent' || withdrawal.status === 'completed'
    const want = expectedWithdrawalBooks({
      id: withdrawal.id, accountId: withdrawal.account_id, currency: withdrawal.currency, amount: withdrawal.amount, fee: withdrawal.fee, net: withdrawal.net_amount,
      status: settled ? 'settled' : isReserved(withdrawal.status) ? 'reserved' : 'none',
    })
    const actual = new Map(sums.filter((row) => row.withdrawal_id === withdrawal.id).map((row) => [bookKey(row.book, row.currency), row.total]))
    for (const key of new Set([...actual.keys(), ...want.keys()])) {
      const [book, currency] = key.split(':') as [Book, Currency]
      const has = actual.get(key) ?? 0
      const should = want.get(key) ?? 0
      if (has !== should) mismatches.push({ withdrawal_id: withdrawal.id, book, currency, expected: should, actual: has })
    }
  }
  return mismatches
}
