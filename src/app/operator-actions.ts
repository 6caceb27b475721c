// What a signed-in operator does from the console (docs/rules.md#console): each action checks the
// operator's role (domain/operators.ts) and the note, then calls the very use case /ops calls,
// with the operator's e-mail as the actor, so the audit log says who did it and why.
import type { Clock } from '../clock.ts'
import type { ReviewDecision } from '../domain/charge.ts'
import { DomainError } from '../domain/errors.ts'
import { mayTake, type Operator, type OperatorAction } from '../domain/operators.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { PaymentProvider } from '../provider/provider.ts'
import type { Store } from '../store/store.ts'
import type { TokenCache } from '../store/token-cache.ts'
import type { Treasury } from '../treasury/treasury.ts'
import { activateToken } from './activate-token.ts'
import { assignIdentity } from './assign-identity.ts'
import type { QuoteBook } from './quote-book.ts'
import { recordBlock } from './record-block.ts'
import { payRefundByPix, reviewRefundPayout } from './pay-refund.ts'
import { recordRefundPaid } from './record-refund-paid.ts'
import { reviewWithdrawal, type WithdrawalReview } from './review-withdrawal.ts'
import { reviewHold } from './review-hold.ts'
import { setQuoteOverrides, type QuoteInput } from './set-quotes.ts'

export type OperatorDeps = {
  store: Store
  clock: Clock
  quotes: QuoteBook
  provider: PaymentProvider
  mailSeal: MailSeal
  baseUrl: string
  treasury: Treasury
  bandPercent: number
  tokenCache?: TokenCache
  log?: { warn: (details: object, message: string) => void }
}

export const NOTE_MAX = 1000

/** Refused unless the operator's role allows the action. */
export function requireRole(operator: Operator, action: OperatorAction): void {
  if (!mayTake(operator.role, action)) throw new DomainError('operator_forbidden', { param: action })
}

/** Every action carries a note: why, in the operator's words. */
export function requireNote(note: string): string {
  const trimmed = note.trim()
  if (trimmed === '' || trimmed.length > NOTE_MAX) throw new DomainError('invalid_request', { param: 'note', message: `A note of 1 to ${NOTE_MAX} characters is required.` })
  return trimmed
}

const checked = (operator: Operator, action: OperatorAction, note: string) => {
  requireRole(operator, action)
  return { note: requireNote(note), actor: operator.email }
}

/** A review in the console; an amount typed beyond the tolerance waits for an admin other than its author (app/review-hold.ts). */
export function reviewHoldAs(deps: OperatorDeps, operator: Operator, request: { chargeId: string; decision: ReviewDecision; note: string; paidCents?: number | undefined }) {
  return reviewHold(deps, {
    chargeId: request.chargeId, decision: request.decision, paidCents: request.paidCents, actorIsAdmin: mayTake(operator.role, 'hold.confirm_paid_amount'),
    ...checked(operator, 'hold.review', request.note),
  })
}

export function recordRefundPaidAs(deps: OperatorDeps, operator: Operator, request: { refundId: string; reference: string; note: string }) {
  const reference = request.reference.trim()
  const who = checked(operator, 'refund.record_paid', request.note)
  if (reference === '' || reference.length > 200) throw new DomainError('invalid_request', { param: 'reference', message: 'The payment\'s reference (1 to 200 characters) is required.' })
  return recordRefundPaid(deps, { refundId: request.refundId, reference, ...who })
}

export function payRefundByPixAs(deps: OperatorDeps, operator: Operator, request: { refundId: string; note: string }) {
  return payRefundByPix(deps, { refundId: request.refundId, ...checked(operator, 'refund.pay', request.note) })
}

export function reviewRefundPayoutAs(deps: OperatorDeps, operator: Operator, request: { refundPayoutId: string; decision: 'retry' | 'abandon' | 'new_payout' | 'returned'; note: string }) {
  return reviewRefundPayout(deps, { refundPayoutId: request.refundPayoutId, decision: request.decision, ...checked(operator, 'refund.pay', request.note) })
}

export function reviewWithdrawalAs(deps: OperatorDeps, operator: Operator, request: { withdrawalId: string; decision: WithdrawalReview['decision']; note: string }) {
  return reviewWithdrawal(deps, { withdrawalId: request.withdrawalId, decision: request.decision, ...checked(operator, 'withdrawal.review', request.note) })
}

export function addBlockAs(deps: OperatorDeps, operator: Operator, request: { kind: 'email' | 'tax_number' | 'euid'; value: string; note: string }) {
  const { note, actor } = checked(operator, 'block.add', request.note)
  const value = request.value.trim()
  const identity = request.kind === 'email' ? { email: value } : request.kind === 'tax_number' ? { taxNumber: value } : { euid: value }
  return recordBlock(deps, { ...identity, reason: note, actor })
}

/** Lifts one block (a MED recorded by mistake, or settled): the audit log keeps what it was. */
export async function liftBlockAs(deps: OperatorDeps, operator: Operator, request: { blockId: number; note: string }): Promise<void> {
  const { note, actor } = checked(operator, 'block.lift', request.note)
  await deps.store.transaction(async (store) => {
    const block = await store.console.findBlock(request.blockId)
    if (!block || !(await store.console.deleteBlock(block.id))) throw new DomainError('not_found', { param: 'block_id', message: 'No block with this id.' })
    await store.audit.record({
      actor, action: 'block.lift', subject: block.kind,
      details: { note, block_id: block.id, kind: block.kind, reason: block.reason, charge_id: block.charge_id, created_by: block.created_by, created_at: block.created_at.toISOString() },
      at: deps.clock.now(),
    })
  })
}

/** The admin's price override, each until it expires; audited like /ops does, with the note. */
export function setQuotesAs(deps: OperatorDeps, operator: Operator, request: QuoteInput & { expiresInSeconds: number; force: boolean; note: string }) {
  return setQuoteOverrides({ ...deps, bandPercent: deps.bandPercent }, { BTC: request.BTC, USDt: request.USDt, expires_in_seconds: request.expiresInSeconds, force: request.force }, checked(operator, 'quotes.set', request.note))
}

export function assignIdentityAs(deps: OperatorDeps, operator: Operator, request: { email: string; euid: string; note: string }) {
  return assignIdentity(deps, { email: request.email.trim().toLowerCase(), euid: request.euid.trim(), ...checked(operator, 'identity.assign', request.note) })
}

export function activateTokenAs(deps: OperatorDeps, operator: Operator, request: { tokenId: string; note: string }) {
  return activateToken(deps, { tokenId: request.tokenId, ...checked(operator, 'token.activate', request.note) })
}
