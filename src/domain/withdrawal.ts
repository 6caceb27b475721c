// Withdrawals (docs/rules.md#withdrawals): what an owner may take out, what it costs, and the one
// function that moves a withdrawal from status to status. No I/O: the use cases bring the facts
// (the balance, the limits used, the treasury's word) and carry out the effects.
import type { Decision } from './decision.ts'
import { unitsPerWhole, type Currency } from './money.ts'
import type { PayoutFailure, PayoutStatus, ReviewReason } from './payout.ts'

export const withdrawalStatuses = ['requested', 'confirmed', 'in_review', 'sending', 'sent', 'completed', 'failed', 'canceled'] as const
export type WithdrawalStatus = (typeof withdrawalStatuses)[number]

export const destinationTypes = ['pix', 'liquid'] as const
export type DestinationType = (typeof destinationTypes)[number]

/** Why a withdrawal waits for support: its own limits, or why its payout waits (domain/payout.ts). */
export { reviewReasons, type ReviewReason } from './payout.ts'

/** Why a withdrawal ended without paying; the amount went back to available. */
export const failureCodes = ['canceled_by_owner', 'rejected_by_support', 'code_expired', 'provider_refused', 'payout_expired', 'payout_returned', 'destination_canceled'] as const
export type FailureCode = (typeof failureCodes)[number]

/** What a refused request answers; each is a code of the error catalogue. */
export type WithdrawalRefusal =
  | 'insufficient_funds'
  | 'amount_below_minimum'
  | 'amount_above_maximum'
  | 'withdrawal_limit_exceeded'
  | 'withdrawal_not_allowed'
  | 'withdrawal_not_cancelable'
  | 'withdrawal_not_in_review'

export const DEPIX_WITHDRAWAL_FEE_PERCENT = 2
/** Eulen's own payout fee on a Pix-out: 1 % of what it receives, at least R$ 1,00; the key receives the rest. */
export const PIX_PAYOUT_FEE_PERCENT = 1
export const PIX_PAYOUT_MIN_FEE_CENTS = 100
/** Pix-out per withdrawal (docs/rules.md#withdrawal-fees): R$ 2,00 to R$ 6.000,00. */
export const pixOutBoundsCents = { min: 200, max: 600_000 } as const
/**
 * The least worth sending on Liquid, per currency (the service pays the network fee, about 30
 * satoshis of L-BTC; below these a withdrawal costs more than it moves): R$ 1,00, 1 000 sats, 1 USDt.
 */
export const liquidMinimum: Record<Currency, number> = { DEPIX: 100, BTC: 1_000, USDt: 1_000_000 }

/** a × p / 100, rounded up to the unit. */
function percentRoundedUp(amount: number, percent: number): number {
  return Number((BigInt(amount) * BigInt(percent) + 99n) / 100n)
}

/** The service's fee on a withdrawal: 2 % of DEPIX, rounded up to the centavo; none on L-BTC and USDt (taken at conversion). */
export function withdrawalFee(currency: Currency, amount: number): number {
  return currency === 'DEPIX' ? percentRoundedUp(amount, DEPIX_WITHDRAWAL_FEE_PERCENT) : 0
}

/** Eulen's payout fee on `depositCents` of DePix sent to it for a Pix-out. */
export function pixPayoutFee(depositCents: number): number {
  return Math.max(PIX_PAYOUT_MIN_FEE_CENTS, percentRoundedUp(depositCents, PIX_PAYOUT_FEE_PERCENT))
}

/** What the owner sees before confirming: the amount, our fee, what leaves the treasury, and what a Pix key receives. */
export type WithdrawalPrice = { amount: number; fee: number; net: number; payoutCents: number | null }

/**
 * The price of a withdrawal, or why it is refused. The Pix-out bounds apply to what is sent to the
 * provider, after our fee (the provider refuses a deposit outside them), not to what the owner asks.
 */
export function priceWithdrawal(type: DestinationType, currency: Currency, amount: number): WithdrawalPrice | { refused: 'amount_below_minimum' | 'amount_above_maximum' } {
  if (!Number.isSafeInteger(amount) || amount <= 0) return { refused: 'amount_below_minimum' }
  if (type === 'pix' && currency !== 'DEPIX') throw new Error('a Pix key receives DEPIX only')
  if (type === 'liquid' && amount < liquidMinimum[currency]) return { refused: 'amount_below_minimum' }
  const fee = withdrawalFee(currency, amount)
  const net = amount - fee
  if (type === 'pix') {
    if (net < pixOutBoundsCents.min) return { refused: 'amount_below_minimum' }
    if (net > pixOutBoundsCents.max) return { refused: 'amount_above_maximum' }
  }
  const payoutCents = type === 'pix' ? net - pixPayoutFee(net) : null
  if (payoutCents !== null && payoutCents <= 0) return { refused: 'amount_below_minimum' }
  return { amount, fee, net, payoutCents }
}

/** Limits per account in BRL cents (all positive: a limit is never "off"). */
export type WithdrawalLimits = { perWithdrawalCents: number; dailyCents: number; monthlyCents: number; reviewCents: number }

/**
 * Refused above the per-withdrawal limit; otherwise waits for support beyond the rolling 24-hour
 * or 30-day limits or above the review threshold; otherwise goes on its own
 * (docs/rules.md#withdrawal-fees).
 * `last24hCents` and `last30dCents` are what the account withdrew (not failed or canceled) before.
 */
export function limitDecision(
  amountCents: number,
  used: { last24hCents: number; last30dCents: number },
  limits: WithdrawalLimits,
): { refused: 'withdrawal_limit_exceeded' } | { review: ReviewReason | null } {
  if (amountCents > limits.perWithdrawalCents) return { refused: 'withdrawal_limit_exceeded' }
  if (used.last24hCents + amountCents > limits.dailyCents) return { review: 'daily_limit' }
  if (used.last30dCents + amountCents > limits.monthlyCents) return { review: 'monthly_limit' }
  if (amountCents > limits.reviewCents) return { review: 'over_threshold' }
  return { review: null }
}

/** A withdrawal's amount in BRL cents, for the limits: DEPIX is BRL; BTC and USDt at the price in micro-reais, rounded up. */
export function brlCentsOf(currency: Currency, amount: number, priceMicros: number | null): number {
  if (currency === 'DEPIX') return amount
  if (priceMicros === null) throw new Error(`${currency} in BRL needs a price`)
  const micros = BigInt(amount) * BigInt(priceMicros)
  const perCent = unitsPerWhole[currency] * 10_000n
  return Number((micros + perCent - 1n) / perCent)
}

/** Liquid assets have 8 decimals: one DePix (a real) or one USDt is 10^8 units, as a satoshi is of one L-BTC. */
const assetUnitsPerMinor: Record<Currency, bigint> = { DEPIX: 10n ** 6n, BTC: 1n, USDt: 100n }

/** A minor-unit amount as the asset amount a Liquid transaction carries (8 decimals). */
export function toAssetUnits(currency: Currency, amount: number): bigint {
  return BigInt(amount) * assetUnitsPerMinor[currency]
}

/** The whole minor units in an asset amount (what is below one centavo, satoshi or 10^-6 USDt pays no one). */
export function minorUnitsIn(currency: Currency, units: bigint): number {
  return Number(units / assetUnitsPerMinor[currency])
}

/** Statuses in which the amount sits in the withdrawing book. */
export function isReserved(status: WithdrawalStatus): boolean {
  return status === 'confirmed' || status === 'in_review' || status === 'sending'
}

/** Until money may have left, the owner (or support) can still stop it. */
export function isCancelable(status: WithdrawalStatus): boolean {
  return status === 'requested' || status === 'confirmed' || status === 'in_review'
}

export function isFinal(status: WithdrawalStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'canceled'
}

/** What a withdrawal learns of its payout: the payout's new status, with why it waits or ended. */
export type PayoutOutcome = { status: PayoutStatus; reason: ReviewReason | null; code: PayoutFailure | null }

export type WithdrawalEvent =
  /** The owner's code, or an API request: reserve the amount if the balance covers it. */
  | { kind: 'confirm'; available: number; allowed: boolean; review: ReviewReason | null }
  /** The owner (or support) stops it; `signed`: its payout's transaction is stored and may still pay. */
  | { kind: 'cancel'; signed: boolean }
  | { kind: 'code_expired' }
  /** Support's approval of a withdrawal held before any payout (its limits), with the facts the owner's confirm has. */
  | { kind: 'approve'; allowed: boolean }
  /** Support refuses a withdrawal held before any payout: the amount goes back. */
  | { kind: 'reject' }
  /** Its payout moved: the withdrawal follows its outcome (docs/treasury.md, "Payouts"). */
  | { kind: 'payout'; outcome: PayoutOutcome }

export type WithdrawalEffect =
  | { kind: 'reserve' }
  | { kind: 'release' }
  | { kind: 'settle' }
  | { kind: 'unsettle' }
  /** A payout for it is opened and queued. */
  | { kind: 'open_payout' }
  /** Its live payout, if any, is told the owner withdrew (it ends, nothing having left). */
  | { kind: 'close_payout' }
  /** The owner is e-mailed about the move (ownerIsTold). */
  | { kind: 'notify_owner' }

export type WithdrawalDecision = Decision<WithdrawalStatus, ReviewReason, FailureCode, WithdrawalEffect, WithdrawalRefusal>

const moved = (status: WithdrawalStatus, effects: WithdrawalEffect[], more: { reviewReason?: ReviewReason; failureCode?: FailureCode } = {}): WithdrawalDecision => ({
  outcome: 'moved',
  status,
  reviewReason: more.reviewReason ?? null,
  failureCode: more.failureCode ?? null,
  effects,
})

/**
 * Whether the owner is e-mailed about a move (docs/rules.md#withdrawals): when their confirmation
 * takes effect (confirmed, or held for support at once) and when the withdrawal ends, not at the
 * steps between (sending, sent, held or sent again later). A request never confirmed that ends
 * (its code expired, or the owner dropped it) reserved nothing and is not told.
 */
export function ownerIsTold(from: WithdrawalStatus, to: WithdrawalStatus): boolean {
  if (from === 'requested') return to !== 'canceled'
  return isFinal(to)
}

/**
 * Every event a withdrawal can meet, and what follows: the next status and what must be done
 * with it. An event that does not apply to the status leaves it unchanged (a replayed job, a
 * second click), except a person's request, which is refused with its reason. Once its payout is
 * open, the withdrawal moves only as the payout does.
 */
export function decideWithdrawal(withdrawal: { status: WithdrawalStatus; amount: number }, event: WithdrawalEvent): WithdrawalDecision {
  const decision = decideMove(withdrawal, event)
  if (decision.outcome !== 'moved' || !ownerIsTold(withdrawal.status, decision.status)) return decision
  return { ...decision, effects: [...decision.effects, { kind: 'notify_owner' }] }
}

function decideMove(withdrawal: { status: WithdrawalStatus; amount: number }, event: WithdrawalEvent): WithdrawalDecision {
  const { status } = withdrawal
  switch (event.kind) {
    case 'confirm':
      if (status !== 'requested') return { outcome: 'unchanged' }
      if (!event.allowed) return { outcome: 'refused', code: 'withdrawal_not_allowed' }
      if (event.available < withdrawal.amount) return { outcome: 'refused', code: 'insufficient_funds' }
      return event.review === null
        ? moved('confirmed', [{ kind: 'reserve' }, { kind: 'open_payout' }])
        : moved('in_review', [{ kind: 'reserve' }], { reviewReason: event.review })
    case 'cancel':
      // A signed transaction is stored: it may still be broadcast and pay, so the amount cannot go back.
      if (!isCancelable(status) || event.signed) return { outcome: 'refused', code: 'withdrawal_not_cancelable' }
      return moved('canceled', isReserved(status) ? [{ kind: 'release' }, { kind: 'close_payout' }] : [], { failureCode: 'canceled_by_owner' })
    case 'code_expired':
      return status === 'requested' ? moved('canceled', [], { failureCode: 'code_expired' }) : { outcome: 'unchanged' }
    case 'approve':
      if (status !== 'in_review') return { outcome: 'refused', code: 'withdrawal_not_in_review' }
      if (!event.allowed) return { outcome: 'refused', code: 'withdrawal_not_allowed' }
      return moved('confirmed', [{ kind: 'open_payout' }])
    case 'reject':
      if (status !== 'in_review') return { outcome: 'refused', code: 'withdrawal_not_in_review' }
      return moved('canceled', [{ kind: 'release' }], { failureCode: 'rejected_by_support' })
    case 'payout':
      return followPayout(status, event.outcome)
  }
}

/** The withdrawal as its payout goes: sending, waiting, sent (settled), completed, or ended with the amount back. */
function followPayout(status: WithdrawalStatus, payout: PayoutOutcome): WithdrawalDecision {
  const unchanged: WithdrawalDecision = { outcome: 'unchanged' }
  switch (payout.status) {
    case 'queued':
      // Sent again by support, or a new payout in place of one that asked another amount.
      return status === 'in_review' ? moved('confirmed', []) : unchanged
    case 'sending':
      return status === 'confirmed' ? moved('sending', []) : unchanged
    case 'in_review':
      return status === 'confirmed' || status === 'sending' ? moved('in_review', [], { reviewReason: payout.reason ?? 'payout_failed' }) : unchanged
    case 'sent':
      return status === 'sending' ? moved('sent', [{ kind: 'settle' }]) : unchanged
    case 'completed':
      return status === 'sent' ? moved('completed', []) : unchanged
    case 'returned':
      // Money that left may come back, even after the provider said it arrived (a refunded Pix-out).
      return status === 'sent' || status === 'completed' ? moved('failed', [{ kind: 'unsettle' }], { failureCode: 'payout_returned' }) : unchanged
    case 'failed':
      // Replaced: the new payout moves it. The owner withdrew: it is canceled already.
      if (payout.code === 'replaced' || payout.code === 'owner_withdrew' || !isReserved(status)) return unchanged
      if (payout.code === 'rejected_by_support' || payout.code === 'abandoned_by_support') return moved('canceled', [{ kind: 'release' }], { failureCode: 'rejected_by_support' })
      return moved('failed', [{ kind: 'release' }], { failureCode: payout.code === 'provider_refused' || payout.code === 'payout_expired' || payout.code === 'destination_canceled' ? payout.code : 'provider_refused' })
  }
}
