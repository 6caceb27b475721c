// Double-entry postings: every balance change is a posting whose entries sum to zero in each
// currency. Customer books carry an account; the service's own books do not. The service's books
// say what the provider and the service did: DePix the provider delivered and took back
// (provider_clearing), the fixed fees, conversions, what claw-backs cost the service, and what is
// owed to payers and paid to them.
import { fixedFeeOf, type Currency } from './money.ts'
import type { TakeBack } from './clawback.ts'

export const customerBooks = ['available', 'held', 'withdrawing'] as const
export const serviceBooks = ['provider_clearing', 'fees', 'conversion', 'med_losses', 'refunds_owed', 'refunds_paid', 'withdrawals_sent', 'payout_fees', 'network_fees', 'service_lbtc'] as const
export type Book = (typeof customerBooks)[number] | (typeof serviceBooks)[number]

/** The service books that only ever hold DEPIX: the provider moves DePix, never BTC or USDt. */
export const depixOnlyBooks: readonly Book[] = ['provider_clearing', 'fees', 'med_losses', 'refunds_owed', 'refunds_paid', 'payout_fees']

export type Entry = { book: Book; accountId: number | null; currency: Currency; amount: number }

export type PostingKind = 'credit' | 'release' | 'clawback' | 'refund_owed' | 'refund_settled' | 'refund_payout_fee' | 'withdrawal_reserve' | 'withdrawal_release' | 'withdrawal_settle' | 'withdrawal_return' | 'network_fee' | 'merchant_refund_reserve' | 'merchant_refund_release' | 'merchant_refund_settle'

export type Posting = { key: string; kind: PostingKind; entries: Entry[] }

export function isBalanced(entries: readonly Entry[]): boolean {
  const sums = new Map<Currency, number>()
  for (const entry of entries) {
    if (!Number.isSafeInteger(entry.amount)) return false
    sums.set(entry.currency, (sums.get(entry.currency) ?? 0) + entry.amount)
  }
  return [...sums.values()].every((sum) => sum === 0)
}

/** A posting of the entries that move something (zero entries are left out), checked to balance. */
function posting(key: string, kind: PostingKind, entries: Entry[]): Posting {
  const moving = entries.filter((entry) => entry.amount !== 0)
  if (!isBalanced(moving)) throw new Error(`posting ${key} does not balance`)
  return { key, kind, entries: moving }
}

/**
 * A confirmed payment: the provider delivered what arrived in DEPIX (clearing), the fixed fee goes
 * to fees, the rest to the account (available, or held for a third-party payment), converted
 * through the conversion book when credited as BTC or USDt. `units` is what the state machine
 * decided the account gets.
 */
export function creditPosting(charge: { id: string; accountId: number; currency: Currency; arrivedCents: number; units: number; held: boolean }): Posting {
  const book: Book = charge.held ? 'held' : 'available'
  const fee = fixedFeeOf(charge.arrivedCents)
  const net = charge.arrivedCents - fee
  const entries: Entry[] = [
    { book: 'provider_clearing', accountId: null, currency: 'DEPIX', amount: -charge.arrivedCents },
    { book: 'fees', accountId: null, currency: 'DEPIX', amount: fee },
  ]
  if (charge.currency === 'DEPIX') {
    if (charge.units !== net) throw new Error(`a DEPIX credit of ${charge.arrivedCents} is ${net}, not ${charge.units}`)
    entries.push({ book, accountId: charge.accountId, currency: 'DEPIX', amount: net })
  } else {
    entries.push(
      { book: 'conversion', accountId: null, currency: 'DEPIX', amount: net },
      { book: 'conversion', accountId: null, currency: charge.currency, amount: -charge.units },
      { book, accountId: charge.accountId, currency: charge.currency, amount: charge.units },
    )
  }
  return posting(`credit:${charge.id}`, 'credit', entries)
}

/** The end of a third-party hold: what is still held becomes available. */
export function releasePosting(charge: { id: string; accountId: number; currency: Currency; units: number }): Posting {
  return posting(`release:${charge.id}`, 'release', [
    { book: 'held', accountId: charge.accountId, currency: charge.currency, amount: -charge.units },
    { book: 'available', accountId: charge.accountId, currency: charge.currency, amount: charge.units },
  ])
}

/**
 * The provider took DePix back from a credited payment: clearing gets it back in DEPIX; the account
 * pays its part in its own currency (through the conversion book for BTC and USDt), from where the
 * credit sits, and may go negative; the rest is the service's MED loss. Keyed by the cumulative
 * amount taken, so each step posts once.
 */
export function clawbackPosting(charge: { id: string; accountId: number; currency: Currency; from: 'available' | 'held'; step: TakeBack }): Posting {
  const { step } = charge
  const entries: Entry[] = [
    { book: 'provider_clearing', accountId: null, currency: 'DEPIX', amount: step.principalCents },
    { book: 'med_losses', accountId: null, currency: 'DEPIX', amount: -step.lossCents },
    { book: charge.from, accountId: charge.accountId, currency: charge.currency, amount: -step.units },
  ]
  if (charge.currency !== 'DEPIX') {
    entries.push(
      { book: 'conversion', accountId: null, currency: 'DEPIX', amount: -step.conversionCents },
      { book: 'conversion', accountId: null, currency: charge.currency, amount: step.units },
    )
  }
  return posting(`clawback:${charge.id}:${step.takenBackCents}`, 'clawback', entries)
}

/** Support decided to refund a held payment: the DePix that arrived is owed to the payer. */
export function refundOwedPosting(charge: { id: string; amountCents: number }): Posting {
  return posting(`refund_owed:${charge.id}`, 'refund_owed', [
    { book: 'provider_clearing', accountId: null, currency: 'DEPIX', amount: -charge.amountCents },
    { book: 'refunds_owed', accountId: null, currency: 'DEPIX', amount: charge.amountCents },
  ])
}

/**
 * A refund owed is settled: paid to the payer by us (`refunds_paid`), or taken back by the provider
 * (clearing). `owedAfter` keys the step, so a partial settlement posts once.
 */
export function refundSettledPosting(charge: { id: string; amountCents: number; by: 'us' | 'provider'; owedAfter: number }): Posting {
  return posting(`refund_settled:${charge.id}:${charge.owedAfter}`, 'refund_settled', [
    { book: 'refunds_owed', accountId: null, currency: 'DEPIX', amount: -charge.amountCents },
    { book: charge.by === 'us' ? 'refunds_paid' : 'provider_clearing', accountId: null, currency: 'DEPIX', amount: charge.amountCents },
  ])
}

/** The provider took back DePix we had already paid out to the payer: it comes out of clearing as the service's loss. */
export function clawbackLossPosting(charge: { id: string; amountCents: number; lossAfter: number }): Posting {
  return posting(`clawback_loss:${charge.id}:${charge.lossAfter}`, 'clawback', [
    { book: 'provider_clearing', accountId: null, currency: 'DEPIX', amount: charge.amountCents },
    { book: 'med_losses', accountId: null, currency: 'DEPIX', amount: -charge.amountCents },
  ])
}

/**
 * A refund paid by Pix-out: the provider's payout fee, which the service pays from its fees so the
 * payer receives all that was owed.
 */
export function refundPayoutFeePosting(payout: { id: string; feeCents: number }): Posting {
  return posting(`refund_payout_fee:${payout.id}`, 'refund_payout_fee', [
    { book: 'fees', accountId: null, currency: 'DEPIX', amount: -payout.feeCents },
    { book: 'payout_fees', accountId: null, currency: 'DEPIX', amount: payout.feeCents },
  ])
}

/**
 * A payout's transaction left the treasury: the L-BTC network fee it paid, as the node built it,
 * is the service's cost, paid from the service's own L-BTC (service_lbtc), never an account's.
 * Keyed by the payout, so it is posted once.
 */
export function networkFeePosting(payout: { id: string; feeSats: number }): Posting {
  return posting(`network_fee:${payout.id}`, 'network_fee', [
    { book: 'service_lbtc', accountId: null, currency: 'BTC', amount: -payout.feeSats },
    { book: 'network_fees', accountId: null, currency: 'BTC', amount: payout.feeSats },
  ])
}

/** What a merchant refund's postings need (docs/rules.md#merchant-refund-amounts). */
export type MerchantRefundAmounts = { id: string; accountId: number; currency: Currency; amountCents: number; feeCents: number; units: number; heldUnits: number }

/**
 * A merchant refund asked: what the account pays leaves its balance (the charge's own held credit
 * first) for the withdrawing book, until the payout sends it or fails.
 */
export function merchantRefundReservePosting(r: MerchantRefundAmounts): Posting {
  return posting(`merchant_refund_reserve:${r.id}`, 'merchant_refund_reserve', [
    { book: 'held', accountId: r.accountId, currency: r.currency, amount: -r.heldUnits },
    { book: 'available', accountId: r.accountId, currency: r.currency, amount: -(r.units - r.heldUnits) },
    { book: 'withdrawing', accountId: r.accountId, currency: r.currency, amount: r.units },
  ])
}

/** Failed before anything left: the amount goes back, the held part to the hold while the charge is still held. */
export function merchantRefundReleasePosting(r: MerchantRefundAmounts & { toHeld: boolean }): Posting {
  const held = r.toHeld ? r.heldUnits : 0
  return posting(`merchant_refund_release:${r.id}`, 'merchant_refund_release', [
    { book: 'withdrawing', accountId: r.accountId, currency: r.currency, amount: -r.units },
    { book: 'held', accountId: r.accountId, currency: r.currency, amount: held },
    { book: 'available', accountId: r.accountId, currency: r.currency, amount: r.units - held },
  ])
}

/**
 * The refund's DePix left the treasury (`depositCents`, what the provider asked, at most the
 * amount and fee the account paid): converted back from the account's currency at the price it
 * was paid at; the payer's amount is paid, the provider's fee is its fee, and what the provider
 * did not ask is the service's.
 */
export function merchantRefundSettlePosting(r: MerchantRefundAmounts & { depositCents: number }): Posting {
  const debit = r.amountCents + r.feeCents
  if (r.depositCents < r.amountCents || r.depositCents > debit) throw new Error(`merchant refund ${r.id}: a deposit of ${r.depositCents} is outside ${r.amountCents}..${debit}`)
  const entries: Entry[] = [{ book: 'withdrawing', accountId: r.accountId, currency: r.currency, amount: -r.units }]
  if (r.currency === 'DEPIX') {
    if (r.units !== debit) throw new Error(`merchant refund ${r.id}: ${r.units} is not ${debit}`)
  } else {
    entries.push({ book: 'conversion', accountId: null, currency: r.currency, amount: r.units }, { book: 'conversion', accountId: null, currency: 'DEPIX', amount: -debit })
  }
  entries.push(
    { book: 'refunds_paid', accountId: null, currency: 'DEPIX', amount: r.amountCents },
    { book: 'payout_fees', accountId: null, currency: 'DEPIX', amount: r.depositCents - r.amountCents },
    { book: 'fees', accountId: null, currency: 'DEPIX', amount: debit - r.depositCents },
  )
  return posting(`merchant_refund_settle:${r.id}`, 'merchant_refund_settle', entries)
}

/** What a withdrawal's postings need: its account, currency, amount, our fee and what left the treasury. */
export type WithdrawalAmounts = { id: string; accountId: number; currency: Currency; amount: number; fee: number; net: number }

/** A withdrawal confirmed: its amount leaves available for the withdrawing book until it is sent or given back. */
export function withdrawalReservePosting(w: WithdrawalAmounts): Posting {
  return posting(`withdrawal_reserve:${w.id}`, 'withdrawal_reserve', [
    { book: 'available', accountId: w.accountId, currency: w.currency, amount: -w.amount },
    { book: 'withdrawing', accountId: w.accountId, currency: w.currency, amount: w.amount },
  ])
}

/** Canceled, rejected or failed before anything left: the amount goes back to available. */
export function withdrawalReleasePosting(w: WithdrawalAmounts): Posting {
  return posting(`withdrawal_release:${w.id}`, 'withdrawal_release', [
    { book: 'withdrawing', accountId: w.accountId, currency: w.currency, amount: -w.amount },
    { book: 'available', accountId: w.accountId, currency: w.currency, amount: w.amount },
  ])
}

/** The money left the treasury: our fee is earned, the rest is what was sent. */
export function withdrawalSettlePosting(w: WithdrawalAmounts): Posting {
  if (w.fee + w.net !== w.amount) throw new Error(`withdrawal ${w.id}: ${w.fee} + ${w.net} is not ${w.amount}`)
  return posting(`withdrawal_settle:${w.id}`, 'withdrawal_settle', [
    { book: 'withdrawing', accountId: w.accountId, currency: w.currency, amount: -w.amount },
    { book: 'fees', accountId: null, currency: w.currency, amount: w.fee },
    { book: 'withdrawals_sent', accountId: null, currency: w.currency, amount: w.net },
  ])
}

/** What was sent came back to the treasury (a refunded payout, seen by support): the account gets its amount back. */
export function withdrawalReturnPosting(w: WithdrawalAmounts): Posting {
  return posting(`withdrawal_return:${w.id}`, 'withdrawal_return', [
    { book: 'withdrawals_sent', accountId: null, currency: w.currency, amount: -w.net },
    { book: 'fees', accountId: null, currency: w.currency, amount: -w.fee },
    { book: 'available', accountId: w.accountId, currency: w.currency, amount: w.amount },
  ])
}

/**
 * The balances a withdrawal's postings must leave, from its status: reserved while it waits or
 * is being sent, settled once sent, nothing when it was given back (or never confirmed).
 */
export function expectedWithdrawalBooks(w: WithdrawalAmounts & { status: 'reserved' | 'settled' | 'none'; networkFeeSats?: number }): Map<BookKey, number> {
  const books = new Map<BookKey, number>()
  const add = (book: Book, currency: Currency, amount: number) => {
    if (amount !== 0) books.set(bookKey(book, currency), (books.get(bookKey(book, currency)) ?? 0) + amount)
  }
  if (w.status === 'reserved') {
    add('available', w.currency, -w.amount)
    add('withdrawing', w.currency, w.amount)
  } else if (w.status === 'settled') {
    add('available', w.currency, -w.amount)
    add('fees', w.currency, w.fee)
    add('withdrawals_sent', w.currency, w.net)
  }
  // A transaction that left stays left, even when its amount came back: its fee was paid.
  add('service_lbtc', 'BTC', -(w.networkFeeSats ?? 0))
  add('network_fees', 'BTC', w.networkFeeSats ?? 0)
  return books
}

/** What one charge's postings must add up to, per book and currency, from what the charge records. */
export type ChargeBooks = {
  currency: Currency
  /** Null: never credited. */
  creditedUnits: number | null
  arrivedCents: number | null
  takenBackCents: number
  takenBackUnits: number
  /** Whether the credit still sits in `held` (after7d not yet released). */
  held: boolean
  /** A refund obligation: what was owed, what is still owed, what we paid (and the provider's fee on a Pix-out), what claw-backs cost after. */
  refund: { amountCents: number; owedCents: number; paidByUsCents: number; lossCents: number; payoutFeeCents?: number; networkFeeSats?: number } | null
  /** What MEDs took back after the merchant refunded it in full (part of takenBackCents): the service's loss, not the account's. */
  refundDisputeLossCents?: number
  /** The merchant's refunds of it: reserved while pending, settled once sent, nothing once failed. */
  merchantRefunds?: ReadonlyArray<MerchantRefundAmounts & { state: 'reserved' | 'settled' | 'none'; depositCents: number | null; networkFeeSats: number }>
}

type BookKey = `${Book}:${Currency}`
export const bookKey = (book: Book, currency: Currency): BookKey => `${book}:${currency}`

/**
 * The balances a charge's postings must leave in each book (customer books summed over the
 * charge's account): what `/ops/ledger-check` holds the ledger to, charge by charge.
 */
export function expectedChargeBooks(charge: ChargeBooks): Map<BookKey, number> {
  const books = new Map<BookKey, number>()
  const add = (book: Book, currency: Currency, amount: number) => {
    if (amount !== 0) books.set(bookKey(book, currency), (books.get(bookKey(book, currency)) ?? 0) + amount)
  }
  if (charge.creditedUnits !== null && charge.arrivedCents !== null) {
    const arrived = charge.arrivedCents
    const net = arrived - fixedFeeOf(arrived)
    const disputeLoss = charge.refundDisputeLossCents ?? 0
    const taken = charge.takenBackCents - disputeLoss
    add('provider_clearing', 'DEPIX', -arrived + taken + disputeLoss)
    add('fees', 'DEPIX', fixedFeeOf(arrived))
    const conversionBack = Math.min(taken, net)
    add('med_losses', 'DEPIX', -(taken - conversionBack) - disputeLoss)
    add(charge.held ? 'held' : 'available', charge.currency, charge.creditedUnits - charge.takenBackUnits)
    if (charge.currency !== 'DEPIX') {
      add('conversion', 'DEPIX', net - conversionBack)
      add('conversion', charge.currency, -(charge.creditedUnits - charge.takenBackUnits))
    }
  }
  for (const refund of charge.merchantRefunds ?? []) {
    add('service_lbtc', 'BTC', -refund.networkFeeSats)
    add('network_fees', 'BTC', refund.networkFeeSats)
    if (refund.state === 'none') continue
    // Taken from the charge's credit where it sits (held, while the charge still is) and from available.
    add(charge.held ? 'held' : 'available', charge.currency, -refund.heldUnits)
    add('available', charge.currency, -(refund.units - refund.heldUnits))
    if (refund.state === 'reserved') {
      add('withdrawing', charge.currency, refund.units)
      continue
    }
    for (const entry of merchantRefundSettlePosting({ ...refund, depositCents: refund.depositCents ?? 0 }).entries) {
      if (entry.book !== 'withdrawing') add(entry.book, entry.currency, entry.amount)
    }
  }
  if (charge.refund !== null) {
    const { amountCents, owedCents, paidByUsCents, lossCents, payoutFeeCents = 0, networkFeeSats = 0 } = charge.refund
    add('service_lbtc', 'BTC', -networkFeeSats)
    add('network_fees', 'BTC', networkFeeSats)
    add('fees', 'DEPIX', -payoutFeeCents)
    add('payout_fees', 'DEPIX', payoutFeeCents)
    add('provider_clearing', 'DEPIX', -amountCents + (amountCents - owedCents - paidByUsCents) + lossCents)
    add('refunds_owed', 'DEPIX', owedCents)
    add('refunds_paid', 'DEPIX', paidByUsCents)
    add('med_losses', 'DEPIX', -lossCents)
  }
  return books
}
