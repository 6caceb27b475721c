// A charge's statuses (docs/rules.md#charge-statuses) and the one transition function:
// every event, carrying the facts it needs, to the next status and what must happen with
// it: what to credit, release or take back, in which amounts. Nothing outside
// decideCharge decides a status or an amount.
import type { Decision } from './decision.ts'
import { takeBack, type ClawbackKind, type TakeBack } from './clawback.ts'
import { creditedAmount, type Currency } from './money.ts'
import { creditCapUnits, type Quote } from './quotes.ts'
import type { ProviderMed, ProviderReport, ProviderStatus } from './provider-report.ts'
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
export const chargeIdPattern = '^[0-9a-f]{32}$'
const chargeId = new RegExp(chargeIdPattern)
export function isChargeId(value: string): boolean {
  return chargeId.test(value)
}

/** QR validity: 10 minutes after creation. */
export const QR_VALIDITY_SECONDS = 600
/** A third-party payment stays held this long before it is released. */
export const THIRD_PARTY_HOLD_SECONDS = 7 * 24 * 3600

export function expiresAtFor(createdAt: Date): Date {
  return new Date(createdAt.getTime() + QR_VALIDITY_SECONDS * 1000)
}

export const holdReasons = ['prior_med', 'identity_bound_elsewhere', 'amount_mismatch', 'payer_mismatch', 'quote_unavailable'] as const
export type HoldReason = (typeof holdReasons)[number]

/** What the provider reported about a payment that delivered its DePix (depix_sent). */
export type PaymentReport = {
  /** What the payer paid (docs/rules.md#amount-arrived); null when the provider did not say. */
  valueInCents: number | null
  payerEuid: string | null
  payerTaxNumber: string | null
}

/** What the arrival checks (docs/rules.md#arrival-checks) need when money arrives. */
export type ArrivalFacts = {
  /** The charge's e-mail, or the payer's tax number or EUID, has a prior MED. */
  blocked: boolean
  /** The payer's EUID or tax number is already bound to another account (read under the identity's lock). */
  boundElsewhere: boolean
  /** The price a BTC/USDt credit converts at, once it passed the checks; null when none may be used. */
  quote: Quote | null
}

/** What support's release of a hold needs. */
export type ReleaseFacts = {
  quote: Quote | null
  /** The payer who paid is the payer the merchant informed. */
  payerMatchesInformed: boolean
}

export type ChargeView = {
  status: ChargeStatus
  valueCents: number
  currency: Currency
  informedEuid: string | null
  informedTaxNumber: string | null
  /** The extra webhook events the merchant opted into at creation (docs/rules.md#webhook-events). */
  webhookEvents: readonly WebhookEventName[]
  /** The payer who paid, as the provider reported them; a claw-back blocks them. */
  payerEuid: string | null
  payerTaxNumber: string | null
  /** What arrived, as the provider reported it (or support entered it); null until known. */
  paidCents: number | null
  /** What the credit put on the account (minor units of `currency`); null before any credit. */
  creditedUnits: number | null
  /** The price the credit converted at (micro-reais); null for DEPIX or before a credit. */
  quoteMicros: number | null
  /** DEPIX centavos the provider took back so far, and what that took from the account. */
  takenBackCents: number
  takenBackUnits: number
  /** The provider said it took back everything (a MED without an amount, its `refunded`). */
  takenBackAll: boolean
  /** The latest claw-back the provider reported: once there is one, nothing is credited. */
  clawback: ClawbackKind | null
  /** The provider reported it returns (or returned) the payment itself (will_refund, refunded). */
  providerReturning: boolean
  /** A refund obligation: what it still owes the payer, what we paid, what claw-backs cost after we paid. */
  refund: { owedCents: number; paidByUsCents: number; lossCents: number } | null
  /** Why it is held, kept by the moves that keep its status. */
  holdReason: HoldReason | null
  /** The part of the held credit the merchant's refunds not failed took (docs/rules.md#merchant-refund-amounts): not released again. */
  refundedHeldUnits: number
  /** What the merchant's refunds not failed give back, in centavos. */
  merchantRefundedCents: number
  /** What MEDs took back after the merchant refunded it in full. */
  refundDisputeLossCents: number
}

/** Everything that can happen to a charge, each with the facts it needs. */
export type ChargeEvent =
  /** The provider reports a status other than delivery; `said` is its report as the moves record it. */
  | { kind: 'provider_status'; status: Exclude<ProviderStatus, 'depix_sent'>; said: ProviderSaid }
  /** The provider delivered the DePix (depix_sent): the arrival checks decide (docs/rules.md#arrival-checks). */
  | { kind: 'money_arrived'; report: PaymentReport; facts: ArrivalFacts; said: ProviderSaid }
  /** The QR's 10 minutes are over. */
  | { kind: 'expiry_due'; now: Date; expiresAt: Date }
  /** The 7 days of a third-party hold are over. */
  | { kind: 'release_due'; now: Date; releaseAt: Date | null }
  /** Support releases a hold; `enteredPaidCents` is what support says arrived when the provider never said. */
  | { kind: 'review'; decision: 'release'; facts: ReleaseFacts; enteredPaidCents: number | null }
  /** Support refunds a hold to the payer, from the money that is still with us. */
  | { kind: 'review'; decision: 'refund'; enteredPaidCents: number | null }
  /** Support closes a hold the provider already took back. */
  | { kind: 'review'; decision: 'close' }
  /** A refund dispute (MED) for `principalCents` (null: the provider did not say, so all of it), naming its payer. */
  | ({ kind: 'med' } & Pick<ProviderMed, 'principalCents' | 'euid' | 'taxNumber' | 'report'>)
  /** Support paid the payer what a refund obligation owed. */
  | { kind: 'refund_paid' }
  /** The merchant withdraws a charge nobody paid yet (POST /api/payments/{id}/cancel). */
  | { kind: 'merchant_cancel' }
  /** A merchant's refund of it reached the payer; `completedCents`: what its completed refunds gave back in all. */
  | { kind: 'merchant_refund_completed'; completedCents: number }

/** A provider report behind a charge event: its status as the provider wrote it (kept on the charge it moves) and its record. */
export type ProviderSaid = { statusText: string; report: ProviderReport }

/** The spec's two events, sent to every charge with a webhook_url. */
export const defaultWebhookEvents = ['payment.confirmed', 'balance.released'] as const
/** Sent only to a charge that lists them in `webhook_events` (docs/rules.md#webhook-events). */
export const optInWebhookEvents = ['payment.expired', 'payment.held', 'payment.under_review', 'payment.refunded', 'payment.disputed', 'refund.created', 'refund.completed', 'refund.failed'] as const
/** What the merchant's refunds announce (docs/rules.md#merchant-refund-statuses), opted into as the others. */
export type RefundWebhookEvent = Extract<WebhookEventName, `refund.${string}`>
export const webhookEventNames = [...defaultWebhookEvents, ...optInWebhookEvents] as const
export type WebhookEventName = (typeof webhookEventNames)[number]

/** Where a webhook event's delivery stands: being tried, acknowledged, given up on, or refused for good (410). */
export type WebhookEventState = 'pending' | 'delivered' | 'failed' | 'gone'

/** What must happen with a move, in order, besides the new status. Amounts are decided here. */
export type ChargeEffect =
  /** Post the credit of what arrived: `units` to the account, available or held (after7d: release scheduled). */
  | { kind: 'credit'; held: boolean; arrivedCents: number; units: number; quote: Quote | null }
  /** `units` still held become available. */
  | { kind: 'release_credit'; units: number }
  /** Post a claw-back step of a credited payment, from where its credit sits. */
  | { kind: 'take_back'; from: 'available' | 'held'; step: TakeBack }
  /**
   * Keep what the provider reported taking back (`principalCents`, null when it did not say), with
   * the running total taken (`all`: it said everything), under the report's key, with its body.
   */
  | { kind: 'record_clawback'; clawback: ClawbackKind; takenBackCents: number; all: boolean; principalCents: number | null; key: string; body: unknown }
  /** The provider took back what we had already paid the payer: the service's loss. */
  | { kind: 'clawback_loss'; amountCents: number; lossAfter: number }
  /** A MED took back a payment the merchant had refunded in full: the service's loss, for support ("refunded, then disputed"). */
  | { kind: 'refund_dispute_loss'; amountCents: number; lossAfter: number }
  /** Owe the payer `amountCents` (a liability), to be paid by us or taken back by the provider. */
  | { kind: 'owe_refund'; amountCents: number; arrivedCents: number }
  /** `amountCents` of what is owed is settled, by us or by the provider taking it back. */
  | { kind: 'settle_refund'; amountCents: number; by: 'us' | 'provider'; owedAfter: number }
  /** The receiving e-mail and the payer's tax number and EUID are blocked (prior MED), for `reason`. */
  | { kind: 'block_identities'; taxNumber: string | null; euid: string | null; reason: string }
  /** The payer's identities bind to the receiving account (domain/payer-binding.ts decides how). */
  | { kind: 'bind_payer' }
  | { kind: 'queue_webhook'; event: WebhookEventName }
  /** The provider's status, as it wrote it, is kept on the charge its report moved. */
  | { kind: 'keep_provider_status'; statusText: string }

export type RefusalCode = 'payment_not_cancelable' | 'payment_not_held' | 'quote_unavailable' | 'paid_amount_required' | 'payment_taken_back' | 'payment_not_taken_back' | 'refund_not_owed'

/**
 * The one decision shape (domain/decision.ts): unchanged (a duplicate, a stale report, a time not
 * yet come); refused with why; or moved, with why it is held (`reviewReason`, null when it is not;
 * a move that keeps the status keeps the charge's own) and the effects.
 */
export type ChargeDecision = Decision<ChargeStatus, HoldReason, never, ChargeEffect, RefusalCode>

const unchanged: ChargeDecision = { outcome: 'unchanged' }
const refuse = (code: RefusalCode): ChargeDecision => ({ outcome: 'refused', code })
const move = (to: ChargeStatus, holdReason: HoldReason | null, effects: ChargeEffect[]): ChargeDecision => ({ outcome: 'moved', status: to, reviewReason: holdReason, failureCode: null, effects })

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
export function payerMatches(charge: Pick<ChargeView, 'informedEuid' | 'informedTaxNumber'>, payer: { payerEuid: string | null; payerTaxNumber: string | null }): boolean {
  if (charge.informedEuid !== null) return payer.payerEuid === charge.informedEuid
  if (charge.informedTaxNumber !== null && payer.payerTaxNumber !== null) {
    return taxNumberMatches(payer.payerTaxNumber, charge.informedTaxNumber)
  }
  return false
}

/** How far what arrived may differ from the charge value and still be credited (docs/rules.md#amount-arrived). */
export const PAID_AMOUNT_TOLERANCE_PERCENT = 5

/** What arrived is close enough to the charge value to credit it without review. */
export function paidAmountFits(valueCents: number, paidCents: number | null): boolean {
  return paidCents !== null && paidCents > 0 && Math.abs(paidCents - valueCents) * 100 <= PAID_AMOUNT_TOLERANCE_PERCENT * valueCents
}

/**
 * What crediting `arrivedCents` puts on the account, or null when no sane quote allows it: BTC and
 * USDt need a quote, and no charge credits beyond what arrived at the last accepted price before
 * it, plus 1 %.
 */
export function creditUnits(currency: Currency, arrivedCents: number, quote: Quote | null): number | null {
  if (currency === 'DEPIX') return creditedAmount(arrivedCents, 'DEPIX', null)
  if (quote === null) return null
  const units = creditedAmount(arrivedCents, currency, quote.micros)
  return units <= creditCapUnits(arrivedCents, currency, quote.referenceMicros) ? units : null
}

const creditEffects = (to: 'depix_sent' | 'after7d', arrivedCents: number, units: number, quote: Quote | null): ChargeEffect[] => {
  const credit: ChargeEffect = { kind: 'credit', held: to === 'after7d', arrivedCents, units, quote }
  return to === 'after7d'
    ? [credit, { kind: 'queue_webhook', event: 'payment.confirmed' }]
    : [credit, { kind: 'bind_payer' }, { kind: 'queue_webhook', event: 'payment.confirmed' }]
}

const hold = (reason: HoldReason): ChargeDecision => move('security_hold', reason, [])

/** The arrival checks (docs/rules.md#arrival-checks), in order, once the provider says the money arrived. */
export function decideArrival(charge: ChargeView, report: PaymentReport, facts: ArrivalFacts): ChargeDecision {
  // A claw-back reported before the delivery: this money is disputed (docs/rules.md#clawbacks).
  if (facts.blocked || charge.clawback !== null) return hold('prior_med')
  if (facts.boundElsewhere) return hold('identity_bound_elsewhere')
  if (!paidAmountFits(charge.valueCents, report.valueInCents)) return hold('amount_mismatch')
  const arrived = report.valueInCents!
  const matches = payerMatches(charge, report)
  if (!matches && charge.informedEuid === null) return hold('payer_mismatch')
  const units = creditUnits(charge.currency, arrived, facts.quote)
  if (units === null) return hold('quote_unavailable')
  const to = matches ? 'depix_sent' : 'after7d'
  return move(to, null, creditEffects(to, arrived, units, charge.currency === 'DEPIX' ? null : facts.quote))
}

/**
 * Where each of our statuses may go on the provider's word, delivery included ('arrival'). A
 * status never moves backwards; money that arrived (delayed, approved, under_review, depix_sent)
 * is processed even after our own expiry or a provider cancel/error, because money that arrived
 * is never dropped. Credited, held and refunded charges are handled apart (claw-backs).
 */
const forwardMoves: Record<ChargeStatus, readonly (ChargeStatus | 'arrival')[]> = {
  waiting_payment: ['pending', 'under_review', 'arrival', 'will_refund', 'refunded', 'canceled', 'expired', 'error'],
  expired: ['pending', 'under_review', 'arrival', 'will_refund', 'refunded'],
  canceled: ['pending', 'under_review', 'arrival'],
  error: ['pending', 'under_review', 'arrival', 'will_refund', 'refunded'],
  pending: ['under_review', 'arrival', 'will_refund', 'refunded', 'canceled', 'error'],
  under_review: ['arrival', 'will_refund', 'refunded', 'canceled', 'error'],
  will_refund: ['refunded'],
  security_hold: [],
  depix_sent: [],
  after7d: [],
  refunded: [],
}

/** Provider statuses (other than delivery) as ours. */
const providerStatusMap: Record<Exclude<ProviderStatus, 'depix_sent'>, ChargeStatus> = {
  pending: 'waiting_payment',
  delayed: 'pending',
  approved: 'pending',
  under_review: 'under_review',
  will_refund: 'will_refund',
  refunded: 'refunded',
  canceled: 'canceled',
  expired: 'expired',
  error: 'error',
}

/** Statuses in which the provider's delivery is still news: the arrival checks (docs/rules.md#arrival-checks) run on it. */
export function awaitsArrival(status: ChargeStatus): boolean {
  return forwardMoves[status].includes('arrival')
}

/** Statuses that hold credited value, which a claw-back takes back. */
export function isCredited(status: ChargeStatus): boolean {
  return status === 'depix_sent' || status === 'after7d'
}

/** What of a third-party payment's credit is still held: credited, less what was taken back and what the merchant's refunds took. */
export function heldLeft(charge: Pick<ChargeView, 'creditedUnits' | 'takenBackUnits' | 'refundedHeldUnits'>): number {
  return Math.max(0, (charge.creditedUnits ?? 0) - charge.takenBackUnits - charge.refundedHeldUnits)
}

/** Everything that arrived was taken back, as far as the provider told us. */
function allTakenBack(charge: ChargeView): boolean {
  return charge.takenBackAll || (charge.paidCents !== null && charge.takenBackCents >= charge.paidCents)
}

/** A claw-back the provider reported, as its effects record it; `euid`/`taxNumber`: the payer it names (null: the charge's own). */
type Claim = { kind: ClawbackKind; principalCents: number | null; report: ProviderReport; euid: string | null; taxNumber: string | null }

const record = (claim: Claim, takenBackCents: number, all: boolean): ChargeEffect => ({
  kind: 'record_clawback', clawback: claim.kind, takenBackCents, all, principalCents: claim.principalCents, key: claim.report.key, body: claim.report.body,
})
const block = (charge: ChargeView, claim: Claim): ChargeEffect => ({
  kind: 'block_identities', taxNumber: claim.taxNumber ?? charge.payerTaxNumber, euid: claim.euid ?? charge.payerEuid, reason: claim.report.blockReason,
})

/** What the provider took back from a credited payment: the account's part, blocks, and `refunded` once it is all gone. */
function clawBackCredit(charge: ChargeView, claim: Claim): ChargeDecision {
  const arrivedCents = charge.paidCents ?? charge.valueCents
  const step = takeBack({ currency: charge.currency, arrivedCents, creditedUnits: charge.creditedUnits ?? 0, quoteMicros: charge.quoteMicros, takenBackCents: charge.takenBackCents, takenBackUnits: charge.takenBackUnits }, claim.principalCents)
  // Nothing left to take: the blocks a MED brings still count.
  if (step === null) return claim.kind === 'med' ? move(charge.status, charge.holdReason, [block(charge, claim)]) : unchanged
  return move(step.whole ? 'refunded' : charge.status, step.whole ? null : charge.holdReason, [
    block(charge, claim),
    { kind: 'take_back', from: charge.status === 'after7d' ? 'held' : 'available', step },
    record(claim, step.takenBackCents, claim.principalCents === null),
  ])
}

/**
 * A claw-back reported on a charge that holds no credit (held, or not yet paid as far as we know):
 * recorded, never posted (nothing was), and from then on nothing is credited
 * (docs/rules.md#clawbacks): a held charge can no longer be released, and a payment that arrives
 * later is held for support.
 */
function recordClawback(charge: ChargeView, claim: Claim): ChargeDecision {
  const { kind, principalCents } = claim
  if (kind !== 'med' && (kind === 'will_refund' ? charge.providerReturning : charge.clawback === 'refunded')) return unchanged
  const arrived = charge.paidCents
  const all = kind === 'refunded' || (kind === 'med' && principalCents === null)
  const taken = kind === 'will_refund' ? charge.takenBackCents
    : arrived === null ? charge.takenBackCents + (principalCents ?? 0)
    : Math.min(arrived, charge.takenBackCents + (all ? arrived : principalCents!))
  return move(charge.status, charge.holdReason, [...(kind === 'will_refund' ? [] : [block(charge, claim)]), record(claim, taken, all)])
}

/** The provider took back (part of) what a refund obligation owes the payer: it settles that part. */
function providerSettlesRefund(charge: ChargeView, claim: Claim): ChargeDecision {
  const owed = charge.refund?.owedCents ?? 0
  if (owed === 0) return unchanged
  const { principalCents } = claim
  const amount = principalCents === null || principalCents <= 0 ? owed : Math.min(principalCents, owed)
  return move(amount === owed ? 'refunded' : charge.status, charge.holdReason, [
    { kind: 'settle_refund', amountCents: amount, by: 'provider', owedAfter: owed - amount },
    record(claim, charge.takenBackCents + amount, principalCents === null),
  ])
}

/** A MED on a payment whose refund we already paid: the provider took back money that left us. */
function clawBackPaidRefund(charge: ChargeView, claim: Claim): ChargeDecision {
  const refund = charge.refund!
  const left = refund.paidByUsCents - refund.lossCents
  if (left <= 0) return move(charge.status, charge.holdReason, [block(charge, claim)])
  const { principalCents } = claim
  const amount = principalCents === null || principalCents <= 0 ? left : Math.min(principalCents, left)
  return move(charge.status, charge.holdReason, [block(charge, claim), { kind: 'clawback_loss', amountCents: amount, lossAfter: refund.lossCents + amount }, record(claim, charge.takenBackCents + amount, principalCents === null)])
}

/** A MED on a payment the merchant refunded in full: what it takes, up to what arrived, is the service's loss. */
function disputeAfterMerchantRefund(charge: ChargeView, claim: Claim): ChargeDecision {
  const left = charge.paidCents! - charge.takenBackCents
  if (left <= 0) return move(charge.status, charge.holdReason, [block(charge, claim)])
  const { principalCents } = claim
  const amount = principalCents === null || principalCents <= 0 ? left : Math.min(principalCents, left)
  return move(charge.status, charge.holdReason, [
    block(charge, claim),
    { kind: 'refund_dispute_loss', amountCents: amount, lossAfter: charge.refundDisputeLossCents + amount },
    record(claim, charge.takenBackCents + amount, principalCents === null),
  ])
}

function decideProviderStatus(charge: ChargeView, { status, said }: Extract<ChargeEvent, { kind: 'provider_status' }>): ChargeDecision {
  // Only its returns are claw-backs; the payer blocked is the charge's own.
  const claim = (kind: 'refunded' | 'will_refund'): Claim => ({ kind, principalCents: null, report: said.report, euid: null, taxNumber: null })
  if (isCredited(charge.status)) {
    if (status === 'refunded') {
      // Its "refunded" after we credited is a claw-back of everything, arriving through the deposit
      // webhook; after MEDs for part of it, it may only close those: recorded for support, not guessed.
      return charge.takenBackCents === 0 ? clawBackCredit(charge, claim('refunded')) : charge.clawback === 'refunded' ? unchanged : move(charge.status, charge.holdReason, [record(claim('refunded'), charge.takenBackCents, false)])
    }
    // Recorded, which lists it for support (the provider will refund money we credited; docs/rules.md#clawbacks).
    if (status === 'will_refund' && !charge.providerReturning) return move(charge.status, charge.holdReason, [record(claim('will_refund'), charge.takenBackCents, false)])
    return unchanged
  }
  if (charge.status === 'security_hold') return status === 'refunded' || status === 'will_refund' ? recordClawback(charge, claim(status)) : unchanged
  if (charge.refund !== null) {
    if (status !== 'refunded') return unchanged
    // The provider returned what we owe the payer; after a part was taken back, which part is not ours to guess.
    if (charge.takenBackCents === 0) return providerSettlesRefund(charge, claim('refunded'))
    return charge.clawback === 'refunded' ? unchanged : move(charge.status, charge.holdReason, [record(claim('refunded'), charge.takenBackCents, false)])
  }
  const to = providerStatusMap[status]
  if (!forwardMoves[charge.status].includes(to)) return unchanged
  return move(to, null, [])
}

export const reviewDecisions = ['release', 'refund', 'close'] as const
export type ReviewDecision = (typeof reviewDecisions)[number]

/**
 * Why support may not take this decision on this charge, whatever amount it enters; null when it
 * may (docs/rules.md#hold-review: nothing is released after a claw-back; a payment the provider
 * returns is not refunded by us too; only a claw-back is closed as taken back).
 */
export function reviewRefusal(charge: ChargeView, decision: ReviewDecision): RefusalCode | null {
  if (charge.status !== 'security_hold') return 'payment_not_held'
  switch (decision) {
    case 'close':
      // Only what the provider took back whole is closed: a part still with us is refunded.
      return allTakenBack(charge) ? null : 'payment_not_taken_back'
    case 'refund':
      // The provider returns it, or already took it all: refunding too would pay the payer twice.
      return charge.providerReturning || allTakenBack(charge) ? 'payment_taken_back' : null
    case 'release':
      return charge.clawback === null ? null : 'payment_taken_back'
  }
}

/** The decisions support is offered on a held charge. */
export function reviewDecisionsFor(charge: ChargeView): ReviewDecision[] {
  return reviewDecisions.filter((decision) => reviewRefusal(charge, decision) === null)
}

function decideReview(charge: ChargeView, event: Extract<ChargeEvent, { kind: 'review' }>): ChargeDecision {
  const refusal = reviewRefusal(charge, event.decision)
  if (refusal !== null) return refuse(refusal)
  if (event.decision === 'close') return move('refunded', null, [])
  const arrived = charge.paidCents ?? event.enteredPaidCents
  if (arrived === null) return refuse('paid_amount_required')
  if (event.decision === 'refund') {
    const remaining = arrived - charge.takenBackCents
    if (remaining <= 0) return refuse('payment_taken_back')
    return move('will_refund', null, [{ kind: 'owe_refund', amountCents: remaining, arrivedCents: arrived }])
  }
  const units = creditUnits(charge.currency, arrived, event.facts.quote)
  if (units === null) return refuse('quote_unavailable')
  // Released by support: continues at the payer comparison (docs/rules.md#hold-review).
  const to = event.facts.payerMatchesInformed ? 'depix_sent' : 'after7d'
  return move(to, null, creditEffects(to, arrived, units, charge.currency === 'DEPIX' ? null : event.facts.quote))
}

/** A MED: taken back from a credit or a refund owed, or recorded; its payer is blocked whatever it takes. */
function decideMed(charge: ChargeView, { principalCents, report, euid, taxNumber }: Extract<ChargeEvent, { kind: 'med' }>): ChargeDecision {
  const claim: Claim = { kind: 'med', principalCents, report, euid, taxNumber }
  if (isCredited(charge.status)) return clawBackCredit(charge, claim)
  if (charge.refund !== null) {
    if (charge.refund.owedCents === 0) return clawBackPaidRefund(charge, claim)
    const settled = providerSettlesRefund(charge, claim)
    return settled.outcome === 'moved' ? { ...settled, effects: [block(charge, claim), ...settled.effects] } : move(charge.status, charge.holdReason, [block(charge, claim)])
  }
  // Refunded in full by the merchant, then disputed: the payer was paid back by us and now by
  // the provider; the service bears it and support settles it (docs/rules.md#merchant-refund-statuses).
  if (charge.status === 'refunded' && charge.merchantRefundedCents > 0 && charge.paidCents !== null) return disputeAfterMerchantRefund(charge, claim)
  // Held, or never credited: recorded with the blocks; the charge stays open to a real payment,
  // which is then held for support (docs/rules.md#clawbacks).
  return recordClawback(charge, claim)
}

function decideMove(charge: ChargeView, event: ChargeEvent): ChargeDecision {
  switch (event.kind) {
    case 'provider_status':
      return decideProviderStatus(charge, event)
    case 'money_arrived':
      if (!awaitsArrival(charge.status)) return unchanged
      return decideArrival(charge, event.report, event.facts)
    case 'expiry_due':
      if (charge.status !== 'waiting_payment' || event.expiresAt.getTime() > event.now.getTime()) return unchanged
      return move('expired', null, [])
    case 'release_due':
      if (charge.status !== 'after7d' || event.releaseAt === null || event.releaseAt.getTime() > event.now.getTime()) return unchanged
      return move('depix_sent', null, [{ kind: 'release_credit', units: heldLeft(charge) }, { kind: 'queue_webhook', event: 'balance.released' }])
    case 'review':
      return decideReview(charge, event)
    case 'med':
      return decideMed(charge, event)
    case 'merchant_cancel':
      // Canceling twice is a retry, not an error. Anything past waiting_payment has a payment on its
      // way or done; the provider has no cancel, so a late payment still arrives and is processed
      // (docs/rules.md#charge-statuses: money that arrived is never dropped).
      if (charge.status === 'canceled') return unchanged
      if (charge.status !== 'waiting_payment') return refuse('payment_not_cancelable')
      return move('canceled', null, [])
    case 'merchant_refund_completed':
      // Refunded in full (docs/rules.md#merchant-refund-rules): a partial refund keeps the status. A
      // held credit the refunds did not need is released, or nothing would ever release it.
      if (!isCredited(charge.status) || charge.paidCents === null || event.completedCents < charge.paidCents) return unchanged
      return move('refunded', null, charge.status === 'after7d' && heldLeft(charge) > 0 ? [{ kind: 'release_credit', units: heldLeft(charge) }] : [])
    case 'refund_paid': {
      const owed = charge.refund?.owedCents ?? 0
      if (charge.status !== 'will_refund' || owed === 0) return refuse('refund_not_owed')
      return move('refunded', charge.holdReason, [{ kind: 'settle_refund', amountCents: owed, by: 'us', owedAfter: 0 }])
    }
  }
}

/**
 * The charge's one state machine: every event, with the facts gathered for it, to the next
 * status, the amounts and what must happen with them. Nothing outside this function decides.
 */
export function decideCharge(charge: ChargeView, event: ChargeEvent): ChargeDecision {
  const moved = decideMove(charge, event)
  if (moved.outcome !== 'moved') return moved
  // A provider status that moved the charge is kept on it, as the provider wrote it.
  const decision = event.kind === 'provider_status' || event.kind === 'money_arrived'
    ? { ...moved, effects: [...moved.effects, { kind: 'keep_provider_status' as const, statusText: event.said.statusText }] }
    : moved
  const optIn = optInEventFor(charge.status, decision)
  if (optIn === null || !charge.webhookEvents.includes(optIn)) return decision
  return { ...decision, effects: [...decision.effects, { kind: 'queue_webhook', event: optIn }] }
}

/** The opt-in event a move announces, if any: a change of status, or money taken back. */
function optInEventFor(from: ChargeStatus, decision: Extract<ChargeDecision, { outcome: 'moved' }>): WebhookEventName | null {
  // Money we had credited and the provider took back, in part or in whole, is a dispute.
  if (decision.effects.some((effect) => effect.kind === 'take_back')) return 'payment.disputed'
  if (from === decision.status) return null
  switch (decision.status) {
    case 'expired':
      return 'payment.expired'
    case 'security_hold':
      return 'payment.held'
    case 'under_review':
      return 'payment.under_review'
    // Both steps of a refund are news: it is coming (will_refund), it is done (refunded).
    case 'will_refund':
    case 'refunded':
      return 'payment.refunded'
    default:
      return null
  }
}
