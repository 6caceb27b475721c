// /ops/ledger-check: the books against what happened (docs/treasury.md, "The books meet the
// treasury"). The running balances agree with the entries; every posting balances per currency;
// the books that only the provider's DePix moves hold only DEPIX; charge by charge, each book holds
// exactly what the charge records (what arrived, the fee, what was credited and converted, what
// the provider took back and what that cost, what is owed to or was paid to the payer, what the
// merchant's refunds reserved or paid); and payout
// by payout, what the books say left the treasury is what the node's own record of the
// transaction says it sent, fee included. Reads every posting and asks the node once per payout:
// an operator's check, not a request path.
import { bookKey, expectedChargeBooks, expectedWithdrawalBooks, type Book } from '../domain/ledger.ts'
import { isReserved } from '../domain/withdrawal.ts'
import type { Currency } from '../domain/money.ts'
import { refundPayoutMaxDeposit } from '../domain/refund-payout.ts'
import { minorUnitsIn } from '../domain/withdrawal.ts'
import type { Store } from '../store/store.ts'
import type { Treasury } from '../treasury/treasury.ts'

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
  /**
   * Payouts whose books disagree with what left the treasury: `sent` (what the node sent away, in
   * the currency's minor units) or `network_fee` (satoshis) against what was posted, `offered`
   * (what the provider was to be sent against what the payout offered), `transaction` (the node
   * does not know it). Null `actual`: the node could not say.
   */
  payouts: Array<{ withdrawal_id: string | null; refund_payout_id: string | null; txid: string; field: 'sent' | 'network_fee' | 'offered' | 'transaction'; expected: number; actual: number | null }>
  /** Every book's balance per currency. */
  books: Array<{ book: Book; currency: Currency; total: number }>
}

export async function checkLedger(deps: { store: Store; treasury: Treasury }): Promise<LedgerCheck> {
  const { ledger } = deps.store
  const [disagreements, unbalanced, foreign, allSums, books] = await Promise.all([
    ledger.disagreements(),
    ledger.unbalancedPostings(),
    ledger.foreignCurrencyInDepixBooks(),
    ledger.subjectBookSums(),
    ledger.bookTotals(),
  ])
  const sums = allSums.filter((row) => row.withdrawal_id === null)
  const withdrawalSums = allSums.flatMap((row) => (row.withdrawal_id === null ? [] : [{ ...row, withdrawal_id: row.withdrawal_id }]))
  const withdrawals = await withdrawalMismatches(deps.store, withdrawalSums)
  const payouts = await payoutMismatches(deps, withdrawalSums)
  const chargeIds = [...new Set(sums.flatMap((row) => (row.charge_id === null ? [] : [row.charge_id])))]
  const [charges, refunds, merchantRefunds] = await Promise.all([deps.store.charges.findByIds(chargeIds), deps.store.refunds.owedFor(chargeIds), deps.store.merchantRefunds.listForCharges(chargeIds)])
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
      refundDisputeLossCents: charge.refund_dispute_loss_cents,
      merchantRefunds: merchantRefunds.filter((row) => row.charge_id === charge.id).map((row) => ({
        id: row.id, accountId: row.account_id, currency: row.currency, amountCents: row.amount_cents, feeCents: row.fee_cents, units: row.units, heldUnits: row.held_units,
        state: row.status === 'pending' ? 'reserved' as const : row.status === 'failed' ? 'none' as const : 'settled' as const, depositCents: row.deposit_cents, networkFeeSats: row.network_fee_sats,
      })),
      refund: refund ? { amountCents: refund.amount_cents, owedCents: refund.owed_cents, paidByUsCents: refund.paid_by_us_cents, lossCents: refund.loss_cents, payoutFeeCents: refund.payout_fee_cents, networkFeeSats: refund.network_fee_sats } : null,
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
    ok: disagreements.length === 0 && unbalanced.length === 0 && foreign.length === 0 && mismatches.length === 0 && withdrawals.length === 0 && payouts.length === 0,
    disagreements,
    unbalanced,
    foreign_currency: foreign,
    charges: mismatches,
    withdrawals,
    payouts,
    books,
  }
}

/**
 * Every payout whose transaction left, against the node's record of it: a withdrawal's books say
 * its net amount left (as the asset itself on Liquid, as DePix to the provider for a Pix-out, which
 * must also be what was offered), a refund payout's that the provider's deposit left and was no
 * more than the payout allows; and each fee posted is the fee the transaction paid.
 */
async function payoutMismatches(deps: { store: Store; treasury: Treasury }, withdrawalSums: Array<{ withdrawal_id: string; book: Book; currency: Currency; total: number }>): Promise<LedgerCheck['payouts']> {
  const mismatches: LedgerCheck['payouts'] = []
  const posted = (id: string, book: Book, currency: Currency) => withdrawalSums.filter((row) => row.withdrawal_id === id && row.book === book && row.currency === currency).reduce((sum, row) => sum + row.total, 0)
  const compare = async (payout: { withdrawal_id: string | null; refund_payout_id: string | null; txid: string }, currency: Currency, sent: number, fee: number | null): Promise<void> => {
    const node = await deps.treasury.sentTransaction(payout.txid).catch(() => undefined)
    if (node === null) {
      mismatches.push({ ...payout, field: 'transaction', expected: 1, actual: 0 })
      return
    }
    const nodeSent = node === undefined ? null : minorUnitsIn(currency, node.sent.filter((output) => output.currency === currency).reduce((sum, output) => sum + output.units, 0n))
    if (nodeSent !== sent) mismatches.push({ ...payout, field: 'sent', expected: sent, actual: nodeSent })
    const nodeFee = node === undefined ? null : minorUnitsIn('BTC', node.feeUnits)
    if (fee !== null && nodeFee !== fee) mismatches.push({ ...payout, field: 'network_fee', expected: fee, actual: nodeFee })
  }
  const sentPayouts = await deps.store.payouts.sentTransactions()
  const withdrawals = new Map((await deps.store.withdrawals.findByIds(sentPayouts.flatMap((payout) => (payout.withdrawal_id === null ? [] : [payout.withdrawal_id])))).map((row) => [row.id, row]))
  for (const sent of sentPayouts) {
    const payout = { withdrawal_id: sent.withdrawal_id, refund_payout_id: sent.refund_id === null ? null : sent.id, txid: sent.txid! }
    const withdrawal = sent.withdrawal_id === null ? undefined : withdrawals.get(sent.withdrawal_id)
    if (withdrawal) {
      // Never more than offered: a Pix-out's provider was sent exactly the withdrawal's net amount.
      if (sent.rail === 'pix' && sent.provider_deposit_cents !== withdrawal.net_amount) mismatches.push({ ...payout, field: 'offered', expected: withdrawal.net_amount, actual: sent.provider_deposit_cents })
      // What the books say left (settled): the net amount; a Pix-out's is DePix sent to the provider.
      await compare(payout, withdrawal.currency, withdrawal.net_amount, sent.network_fee_sats === null ? null : posted(withdrawal.id, 'network_fees', 'BTC'))
      continue
    }
    const deposit = sent.provider_deposit_cents ?? 0
    if (deposit > refundPayoutMaxDeposit(sent.amount)) mismatches.push({ ...payout, field: 'offered', expected: refundPayoutMaxDeposit(sent.amount), actual: deposit })
    await compare(payout, 'DEPIX', deposit, sent.network_fee_sats)
  }
  return mismatches
}

/** Withdrawal by withdrawal: reserved while it waits or is sent, settled once sent, nothing when given back. */
async function withdrawalMismatches(store: Store, sums: Array<{ withdrawal_id: string; book: Book; currency: Currency; total: number }>): Promise<LedgerCheck['withdrawals']> {
  const ids = [...new Set(sums.map((row) => row.withdrawal_id))]
  const mismatches: LedgerCheck['withdrawals'] = []
  // What each withdrawal's payouts paid the network: every one whose transaction left.
  const networkFees = new Map<string, number>()
  for (const payout of await store.payouts.listForWithdrawals(ids)) {
    if (payout.status === 'sent' || payout.status === 'completed' || payout.status === 'returned') networkFees.set(payout.withdrawal_id!, (networkFees.get(payout.withdrawal_id!) ?? 0) + (payout.network_fee_sats ?? 0))
  }
  for (const withdrawal of await store.withdrawals.findByIds(ids)) {
    const settled = withdrawal.status === 'sent' || withdrawal.status === 'completed'
    const want = expectedWithdrawalBooks({
      id: withdrawal.id, accountId: withdrawal.account_id, currency: withdrawal.currency, amount: withdrawal.amount, fee: withdrawal.fee, net: withdrawal.net_amount,
      status: settled ? 'settled' : isReserved(withdrawal.status) ? 'reserved' : 'none',
      // Posted when its transactions left, and kept if the amount came back.
      networkFeeSats: networkFees.get(withdrawal.id) ?? 0,
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
