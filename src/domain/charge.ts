// A charge's statuses (spec section 3) and the one transition function: given the charge, what
// the provider said and the facts about the payer, the next status and what must happen with it.
import { isMaskedTaxNumber, stripTaxNumber } from './tax-number.ts'

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

/** A payment id: 128 random bits as 32 lower-case hex characters. */
export function isChargeId(value: string): boolean {
  return /^[0-9a-f]{32}$/.test(value)
}

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
  /** For a support review: the payer who paid is the payer the merchant informed. */
  payerMatchesInformed?: boolean
}

export type ChargeView = {
  status: ChargeStatus
  valueCents: number
  informedEuid: string | null
  informedTaxNumber: string | null
  /** The extra webhook events the merchant opted into at creation (decisions 12). */
  webhookEvents: readonly WebhookEventName[]
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
  return isMaskedTaxNumber(digits) ? digits.replace(/\*/g, '').length >= 6 : true
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

/** Everything that can happen to a charge. */
export type ChargeEvent =
  | { kind: 'provider_report'; report: ProviderReport }
  /** The QR's 10 minutes are over. */
  | { kind: 'expiry_due'; now: Date; expiresAt: Date }
  /** The 7 days of a third-party hold are over. */
  | { kind: 'release_due'; now: Date; releaseAt: Date | null }
  | { kind: 'review'; decision: 'release' | 'refund' }
  /** A refund dispute (MED), from the provider's MED webhook or its "refunded" after credit. */
  | { kind: 'med' }

/** The spec's two events, sent to every charge with a webhook_url. */
export const defaultWebhookEvents = ['payment.confirmed', 'balance.released'] as const
/** Sent only to a charge that lists them in `webhook_events` (decisions 12). */
export const optInWebhookEvents = ['payment.expired', 'payment.held', 'payment.under_review', 'payment.refunded', 'payment.disputed'] as const
export const webhookEventNames = [...defaultWebhookEvents, ...optInWebhookEvents] as const
export type WebhookEventName = (typeof webhookEventNames)[number]

/** What must happen with a move, in order, besides the new status. */
export type ChargeEffect =
  /** Convert and post the credit, held (after7d: release scheduled) or available. */
  | { kind: 'credit'; held: boolean }
  /** The held credit becomes available. */
  | { kind: 'release_credit' }
  /** A MED takes back what the payment credited, from where it sits. */
  | { kind: 'take_back_credit'; held: boolean }
  /** The receiving e-mail and the payer's tax number and EUID are blocked (prior MED). */
  | { kind: 'block_identities' }
  /** The payer's identities bind to the receiving account; the owner's own purchase gives it its EUID. */
  | { kind: 'bind_payer' }
  | { kind: 'queue_webhook'; event: WebhookEventName }

export type ChargeDecision =
  /** Nothing changes (a duplicate, a stale report, a time not yet come). */
  | { kind: 'ignore' }
  /** The event is not allowed now; the caller is told why. */
  | { kind: 'refuse'; code: 'payment_not_held' | 'quote_unavailable' }
  /** `holdReason` undefined leaves the charge's own as it is. */
  | { kind: 'move'; to: ChargeStatus; holdReason?: HoldReason | null; effects: ChargeEffect[] }

const creditEffects = (to: 'depix_sent' | 'after7d'): ChargeEffect[] =>
  to === 'after7d'
    ? [{ kind: 'credit', held: true }, { kind: 'queue_webhook', event: 'payment.confirmed' }]
    : [{ kind: 'credit', held: false }, { kind: 'bind_payer' }, { kind: 'queue_webhook', event: 'payment.confirmed' }]

function fromTransition(next: Transition): ChargeDecision {
  if (next.kind === 'ignore') return next
  if (next.kind === 'hold') return { kind: 'move', to: 'security_hold', holdReason: next.reason, effects: [] }
  if (next.kind === 'credit') return { kind: 'move', to: next.to, holdReason: null, effects: creditEffects(next.to) }
  return { kind: 'move', to: next.to, holdReason: null, effects: [] }
}

/**
 * The charge's one state machine: every event, with the facts gathered for it, to the next
 * status and what must happen with it. Nothing outside this function decides a status.
 */
export function decideCharge(charge: ChargeView, event: ChargeEvent, facts: ChargeFacts): ChargeDecision {
  const decision = decideMove(charge, event, facts)
  if (decision.kind !== 'move') return decision
  const optIn = optInEventFor(charge.status, decision.to)
  if (optIn === null || !charge.webhookEvents.includes(optIn)) return decision
  return { ...decision, effects: [...decision.effects, { kind: 'queue_webhook', event: optIn }] }
}

/** The opt-in event a move announces, if any: only a change of status is news. */
function optInEventFor(from: ChargeStatus, to: ChargeStatus): WebhookEventName | null {
  if (from === to) return null
  switch (to) {
    case 'expired':
      return 'payment.expired'
    case 'security_hold':
      return 'payment.held'
    case 'under_review':
      return 'payment.under_review'
    // Both steps of a refund are news: it is coming (will_refund), it is done (refunded).
    case 'will_refund':
      return 'payment.refunded'
    case 'refunded':
      // Money we had credited and a MED took back is a dispute, not a refund of an unpaid charge.
      return isCredited(from) ? 'payment.disputed' : 'payment.refunded'
    default:
      return null
  }
}

function decideMove(charge: ChargeView, event: ChargeEvent, facts: ChargeFacts): ChargeDecision {
  switch (event.kind) {
    case 'provider_report':
      // A provider "refunded" after we credited is a MED arriving through the deposit webhook.
      if (event.report.status === 'refunded' && isCredited(charge.status)) return decideMove(charge, { kind: 'med' }, facts)
      return fromTransition(transition(charge, event.report, facts))
    case 'expiry_due':
      if (charge.status !== 'waiting_payment' || event.expiresAt.getTime() > event.now.getTime()) return { kind: 'ignore' }
      return { kind: 'move', to: 'expired', holdReason: null, effects: [] }
    case 'release_due':
      if (charge.status !== 'after7d' || event.releaseAt === null || event.releaseAt.getTime() > event.now.getTime()) return { kind: 'ignore' }
      return { kind: 'move', to: 'depix_sent', holdReason: null, effects: [{ kind: 'release_credit' }, { kind: 'queue_webhook', event: 'balance.released' }] }
    case 'review': {
      if (charge.status !== 'security_hold') return { kind: 'refuse', code: 'payment_not_held' }
      if (event.decision === 'refund') return { kind: 'move', to: 'will_refund', holdReason: null, effects: [] }
      if (!facts.quoteAvailable) return { kind: 'refuse', code: 'quote_unavailable' }
      // Released by support: continues at the payer checks (decisions 4, step 3 or 4).
      const to = facts.payerMatchesInformed ? 'depix_sent' : 'after7d'
      return { kind: 'move', to, holdReason: null, effects: creditEffects(to) }
    }
    case 'med':
      // Never credited: the blocks are recorded, the charge stays open to a real payment (decisions 13).
      if (!isCredited(charge.status)) return { kind: 'move', to: charge.status, effects: [{ kind: 'block_identities' }] }
      return { kind: 'move', to: 'refunded', holdReason: null, effects: [{ kind: 'block_identities' }, { kind: 'take_back_credit', held: charge.status === 'after7d' }] }
  }
}

/** Statuses whose provider state we keep asking about when webhooks go quiet. */
export function awaitsProvider(status: ChargeStatus): boolean {
  return status === 'waiting_payment' || status === 'pending' || status === 'under_review' || status === 'expired' || status === 'will_refund'
}

/** Statuses that hold credited value, which a MED takes back. */
export function isCredited(status: ChargeStatus): boolean {
  return status === 'depix_sent' || status === 'after7d'
}
