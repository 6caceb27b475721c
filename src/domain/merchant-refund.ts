// Merchant refunds (docs/rules.md#merchant-refunds): what may be refunded, what it costs the
// account, and how a refund follows its payout. No I/O: app/merchant-refunds.ts brings the facts.
import type { ChargeStatus } from './charge.ts'
import { isCredited } from './charge.ts'
import type { Currency } from './money.ts'
import { unitsPerWhole } from './money.ts'
import type { PayoutFailure, PayoutStatus } from './payout.ts'
import { refundPayoutMaxDeposit, refundPixOutRefusal } from './refund-payout.ts'

export const merchantRefundStatuses = ['pending', 'sent', 'completed', 'failed'] as const
export type MerchantRefundStatus = (typeof merchantRefundStatuses)[number]

/** Why a refund ended with nothing paid (the amount went back to the account). */
export const merchantRefundFailures = ['payer_key_not_found', 'payout_expired', 'rejected_by_support', 'abandoned_by_support', 'payout_failed'] as const
export type MerchantRefundFailure = (typeof merchantRefundFailures)[number]

/** A payment may be refunded this long after it was paid (the BCB's devolução window). */
export const REFUND_WINDOW_DAYS = 90

/** A refund's id: `rf_` and 24 lowercase hex characters. */
export const merchantRefundIdPattern = '^rf_[0-9a-f]{24}$'

export type RefundRefusal = 'payment_not_refundable' | 'refund_window_closed' | 'refund_exceeds_paid' | 'payer_key_unknown' | 'amount_below_minimum' | 'amount_above_maximum'

/** What the charge says, read under its lock, that decides whether `amountCents` may be refunded now. */
export type RefundFacts = {
  status: ChargeStatus
  paidCents: number | null
  /** When the payment was credited (its depix_sent or after7d). */
  paidAt: Date | null
  /** What refunds not failed already give back. */
  refundedCents: number
  /** The payer's own CPF/CNPJ, unmasked; null when the service does not know it whole. */
  payerKey: string | null
  now: Date
}

/** What is left to refund on a charge: what arrived less what refunds not failed give back. */
export function refundableCents(facts: Pick<RefundFacts, 'paidCents' | 'refundedCents'>): number {
  return Math.max(0, (facts.paidCents ?? 0) - facts.refundedCents)
}

/** Why `amountCents` may not be refunded now, or null (docs/rules.md#merchant-refund-rules). */
export function refundRefusal(facts: RefundFacts, amountCents: number): RefundRefusal | null {
  if (!isCredited(facts.status) || facts.paidCents === null || facts.paidAt === null) return 'payment_not_refundable'
  if (facts.now.getTime() - facts.paidAt.getTime() > REFUND_WINDOW_DAYS * 24 * 3_600_000) return 'refund_window_closed'
  if (amountCents > refundableCents(facts)) return 'refund_exceeds_paid'
  const bounds = refundPixOutRefusal(amountCents)
  if (bounds !== null) return bounds
  if (facts.payerKey === null) return 'payer_key_unknown'
  return null
}

/** What a refund costs: the payer receives `amountCents`; the account pays that and the provider's fee, in its currency. */
export type RefundPrice = {
  amountCents: number
  /** The provider's Pix-out fee on top: the most its published fee may ask. */
  feeCents: number
  /** The account's debit in the charge's currency (minor units), rounded against the account. */
  units: number
  /** The part of `units` taken from the charge's own held credit (after7d). */
  heldUnits: number
}

/**
 * The price of refunding `amountCents` from a charge credited in `currency`: DEPIX at face value;
 * BTC and USDt at `quoteMicros` (the accepted price of one whole unit, micro-reais), rounded up,
 * no conversion fee; the charge's own held credit (`heldLeftUnits`) used first.
 */
export function priceRefund(amountCents: number, currency: Currency, quoteMicros: number | null, heldLeftUnits: number): RefundPrice {
  const debitCents = refundPayoutMaxDeposit(amountCents)
  const units = unitsForCents(debitCents, currency, quoteMicros)
  return { amountCents, feeCents: debitCents - amountCents, units, heldUnits: Math.max(0, Math.min(units, heldLeftUnits)) }
}

/** `cents` in the currency's minor units at `quoteMicros` per whole unit, rounded up (against the account). */
export function unitsForCents(cents: number, currency: Currency, quoteMicros: number | null): number {
  if (currency === 'DEPIX') return cents
  if (quoteMicros === null || quoteMicros <= 0) throw new Error(`a ${currency} refund needs a positive quote`)
  const numerator = BigInt(cents) * 10_000n * unitsPerWhole[currency]
  const price = BigInt(quoteMicros)
  return Number((numerator + price - 1n) / price)
}

/** Where a refund stands, from its payout's status: it follows its payout (docs/rules.md#merchant-refund-statuses). */
export function refundStatusOf(payout: PayoutStatus): MerchantRefundStatus {
  switch (payout) {
    case 'queued':
    case 'sending':
    case 'in_review':
      return 'pending'
    case 'sent':
      return 'sent'
    case 'completed':
      return 'completed'
    case 'failed':
    case 'returned':
      return 'failed'
  }
}

/** Why a refund failed, from its payout's failure: a key the provider refuses is the payer's key not found. */
export function refundFailureOf(code: PayoutFailure | null): MerchantRefundFailure {
  switch (code) {
    case 'provider_refused':
      return 'payer_key_not_found'
    case 'payout_expired':
    case 'rejected_by_support':
    case 'abandoned_by_support':
      return code
    default:
      return 'payout_failed'
  }
}
