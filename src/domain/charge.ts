// A charge's statuses (spec section 3) and the one transition function: given the charge, what
// the provider said and the facts about the payer, the next status and what must happen with it.
import { stripTaxNumber } from './tax-number.ts'

export const chargeStatuses = [
  'waiting_payment',
  'pending',
  'under_review',
  'security_hold',
  'depix_sent',
  'canceled',
  'expired',
  'will_refund',
  'refunded',
  'after7d',
  'error',
] as const
export type ChargeStatus = (typeof chargeStatuses)[number]

/** QR validity: 10 minutes after creation. */
export const QR_VALIDITY_SECONDS = 600
/** A third-party payment stays held this long before it is released. */
export const THIRD_PARTY_HOLD_SECONDS = 7 * 24 * 3600

export function expiresAtFor(createdAt: Date): Date {
  return new Date(createdAt.getTime() + QR_VALIDITY_SECONDS * 1000)
}

export type HoldReason = 'prior_med' | 'identity_bound_elsewhere' | 'amount_mismatch' | 'payer_mismatch' | 'quote_unavailable'

/** What the provider reported about a deposit, in our words. */
export type ProviderReport = {
  status: string
  /** What the payer paid, as the provider reports it (decisions 13); null when it did not say. */
  valueInCents: number | null
  payerEuid: string | null
  payerTaxNumber: string | null
}

export type ChargeFacts = {
  /** The charge's e-mail, or the payer's tax number or EUID, has a prior MED. */
  blocked: boolean
  /** The payer's EUID or tax number is already bound to another account. */
  boundElsewhere: boolean
  /** A BRL price is known for the credited currency (always true for DEPIX). */
  quoteAvailable: boolean
}

export type ChargeView = {
  status: ChargeStatus
  valueCents: number
  informedEuid: string | null
  informedTaxNumber: string | null
}

export type Transition =
  | { kind: 'ignore' }
  | { kind: 'move'; to: ChargeStatus }
  | { kind: 'hold'; reason: HoldReason }
  | { kind: 'credit'; to: 'depix_sent' | 'after7d' }

/** Provider statuses (reference/eulen-api.md) as ours; depix_sent is decided by our checks. */
const providerStatusMap: Record<string, ChargeStatus | 'checks'> = {
  pending: 'waiting_payment',
  delayed: 'pending',
  approved: 'pending',
  under_review: 'under_review',
  depix_sent: 'checks',
  will_refund: 'will_refund',
  refunded: 'refunded',
  canceled: 'canceled',
  expired: 'expired',
  error: 'error',
}

/**
 * Where each of our statuses may go on the provider's word. A status never moves backwards;
 * money that arrived (delayed, approved, under_review, depix_sent) is processed even after our
 * own expiry or a provider cancel/error, because money that arrived is never dropped.
 */
const forwardMoves: Record<ChargeStatus, readonly (ChargeStatus | 'checks')[]> = {
  waiting_payment: ['pending', 'under_review', 'checks', 'will_refund', 'refunded', 'canceled', 'expired', 'error'],
  expired: ['pending', 'under_review', 'checks', 'will_refund', 'refunded'],
  canceled: ['pending', 'under_review', 'checks'],
  error: ['pending', 'under_review', 'checks', 'will_refund', 'refunded'],
  pending: ['under_review', 'checks', 'will_refund', 'refunded', 'canceled', 'error'],
  under_review: ['checks', 'will_refund', 'refunded', 'canceled', 'error'],
  will_refund: ['refunded'],
  // Decided by us: only support review (security_hold), the release job (after7d) or a MED move them.
  security_hold: [],
  depix_sent: [],
  after7d: [],
  refunded: [],
}

/** A provider tax number may come masked ("***.444.777-**"): compare the characters shown. */
export function taxNumberMatches(reported: string, informed: string): boolean {
  const digits = stripTaxNumber(reported)
  if (digits.length !== informed.length) return false
  for (let i = 0; i < digits.length; i++) {
    if (digits[i] !== '*' && digits[i] !== informed[i]) return false
  }
  return digits.includes('*') ? digits.replace(/\*/g, '').length >= 6 : true
}

/** Is the payer who paid the payer the merchant informed? EUID when the charge had one. */
export function payerMatches(charge: ChargeView, report: ProviderReport): boolean {
  if (charge.informedEuid !== null) return report.payerEuid === charge.informedEuid
  if (charge.informedTaxNumber !== null && report.payerTaxNumber !== null) {
    return taxNumberMatches(report.payerTaxNumber, charge.informedTaxNumber)
  }
  return false
}

/** How far what arrived may differ from the charge value and still be credited (decisions 13). */
export const PAID_AMOUNT_TOLERANCE_PERCENT = 5

/** What arrived is close enough to the charge value to credit it without review. */
export function paidAmountFits(valueCents: number, paidCents: number | null): boolean {
  return paidCents !== null && paidCents > 0 && Math.abs(paidCents - valueCents) * 100 <= PAID_AMOUNT_TOLERANCE_PERCENT * valueCents
}

/** The checks of decisions section 4 (amended by 13), in order, once the provider says the money arrived. */
export function decideArrival(charge: ChargeView, report: ProviderReport, facts: ChargeFacts): Transition {
  if (facts.blocked) return { kind: 'hold', reason: 'prior_med' }
  if (facts.boundElsewhere) return { kind: 'hold', reason: 'identity_bound_elsewhere' }
  if (!paidAmountFits(charge.valueCents, report.valueInCents)) return { kind: 'hold', reason: 'amount_mismatch' }
  const matches = payerMatches(charge, report)
  if (!matches && charge.informedEuid === null) return { kind: 'hold', reason: 'payer_mismatch' }
  if (!facts.quoteAvailable) return { kind: 'hold', reason: 'quote_unavailable' }
  return { kind: 'credit', to: matches ? 'depix_sent' : 'after7d' }
}

export function transition(charge: ChargeView, report: ProviderReport, facts: ChargeFacts): Transition {
  const target = providerStatusMap[report.status]
  if (target === undefined || !forwardMoves[charge.status].includes(target)) return { kind: 'ignore' }
  if (target === 'checks') return decideArrival(charge, report, facts)
  return { kind: 'move', to: target }
}

/** Statuses whose provider state we keep asking about when webhooks go quiet. */
export function awaitsProvider(status: ChargeStatus): boolean {
  return status === 'waiting_payment' || status === 'pending' || status === 'under_review' || status === 'expired' || status === 'will_refund'
}

/** Statuses that hold credited value, which a MED takes back. */
export function isCredited(status: ChargeStatus): boolean {
  return status === 'depix_sent' || status === 'after7d'
}
