// Support decides a payment in security_hold (docs/rules.md#hold-review): release it (credited like
// a confirmation: the matching payer's value becomes available, a different payer's is held 7
// days), refund it to the payer from the money still with us (a refund obligation), or close it as
// taken back when the provider already returned it. Nothing is released after a claw-back. When the
// provider never said what arrived, it is asked first; then support must say, and an amount typed
// beyond the tolerance around the charge's value waits for a second operator, an admin
// (domain/typed-amount.ts, docs/design.md "Typed amounts").
import type { Clock } from '../clock.ts'
import { payerMatches, reviewRefusal, type ReviewDecision } from '../domain/charge.ts'
import { DomainError } from '../domain/errors.ts'
import { typedAmountStep, type PaidAmountProposal } from '../domain/typed-amount.ts'
import { ProviderUnavailableError, type PaymentProvider } from '../provider/provider.ts'
import type { PaidAmountProposalRow } from '../store/paid-amount-proposals.ts'
import type { Charge } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { chargeView } from './apply-charge-decision.ts'
import { moveCharge } from './move-charge.ts'
import type { QuoteBook } from './quote-book.ts'

/** What a review did: the charge decided, or an amount typed beyond the tolerance kept until a second operator confirms it. */
export type ReviewOutcome = { charge: Charge; awaiting: PaidAmountProposalRow | null }

/** What the provider says arrived for a held payment whose amount it never stated; null when it still does not say. */
async function askWhatArrived(deps: { provider: PaymentProvider; log?: { warn: (details: object, message: string) => void } }, charge: Charge): Promise<number | null> {
  try {
    const report = await deps.provider.depositStatus(charge.provider_deposit_id)
    return report.event?.kind === 'money_arrived' ? report.valueInCents : null
  } catch (error) {
    if (!(error instanceof ProviderUnavailableError)) throw error
    deps.log?.warn({ err: error, chargeId: charge.id }, 'could not ask the provider what arrived')
    return null
  }
}

export async function reviewHold(
  deps: { store: Store; clock: Clock; quotes: QuoteBook; provider: PaymentProvider; log?: { warn: (details: object, message: string) => void } },
  review: { chargeId: string; decision: ReviewDecision; note: string; actor: string; actorIsAdmin: boolean; paidCents?: number | undefined },
): Promise<ReviewOutcome> {
  const peek = await deps.store.charges.findById(review.chargeId)
  if (!peek) throw new DomainError('payment_not_found', { param: 'payment_id' })
  // Asked before the transaction: HTTP calls never hold database locks.
  const reported = peek.paid_cents === null && review.decision !== 'close' && peek.status === 'security_hold' ? await askWhatArrived(deps, peek) : null
  const known = peek.paid_cents ?? reported
  if (review.paidCents !== undefined && known !== null && review.paidCents !== known) {
    throw new DomainError('invalid_request', { param: 'paid_cents', message: `The provider stated what arrived (${known} centavos); paid_cents is only for a payment whose amount it never stated.` })
  }
  const quote = review.decision === 'release' ? await deps.quotes.at(peek.currency) : null
  let awaiting: PaidAmountProposalRow | null = null
  let confirmed: PaidAmountProposal | null = null
  const result = await moveCharge(deps, { id: review.chargeId }, {
    learn: (charge) => ({ values: reported !== null && charge.paid_cents === null ? { paid_cents: reported, paid_source: 'provider' } : {} }),
    event: async (store, charge, now) => {
      const entered = review.paidCents ?? null
      if (review.decision === 'close') return { kind: 'review', decision: 'close' }
      // The typed amount is what would be credited or owed: bounded, under the charge's lock.
      if (entered !== null && charge.paid_cents === null && reviewRefusal(chargeView(charge, undefined), review.decision) === null) {
        const row = await store.paidAmountProposals.find(charge.id)
        const pending = row ? { decision: row.decision, paidCents: row.paid_cents, proposedBy: row.proposed_by } : null
        const step = typedAmountStep(charge.value_cents, { decision: review.decision, paidCents: entered }, pending, { name: review.actor, admin: review.actorIsAdmin })
        if (step.kind === 'refuse') throw new DomainError(step.code, { param: 'paid_cents' })
        if (step.kind === 'propose') {
          awaiting = { charge_id: charge.id, decision: review.decision, paid_cents: entered, proposed_by: review.actor, note: review.note, proposed_at: now }
          await store.paidAmountProposals.put(awaiting)
          await store.audit.record({
            actor: review.actor, action: 'review.paid_amount_proposed', subject: `payment:${charge.id}`,
            details: { note: review.note, decision: review.decision, paid_cents: entered, value_cents: charge.value_cents, replaces: row ? { paid_cents: row.paid_cents, decision: row.decision, proposed_by: row.proposed_by } : null },
            at: now,
          })
          return null
        }
        if (step.kind === 'confirm') confirmed = step.proposal
      }
      if (review.decision === 'refund') return { kind: 'review', decision: 'refund', enteredPaidCents: entered }
      const payerMatchesInformed = payerMatches({ informedEuid: charge.informed_euid, informedTaxNumber: charge.informed_tax_number }, { payerEuid: charge.payer_euid, payerTaxNumber: charge.payer_tax_number })
      return { kind: 'review', decision: 'release', facts: { quote, payerMatchesInformed }, enteredPaidCents: entered }
    },
    context: { actor: review.actor },
    after: async (store, before, after, now) => {
      // Decided: a proposal left for the charge has nothing more to wait for.
      await store.paidAmountProposals.remove(before.id)
      const proposal = confirmed as PaidAmountProposal | null
      await store.audit.record({
        actor: review.actor,
        action: `review.${review.decision}`,
        subject: `payment:${before.id}`,
        details: {
          note: review.note, hold_reason: before.hold_reason, clawback: before.clawback, status: after.status, paid_cents: after.paid_cents, paid_source: after.paid_source,
          ...(proposal === null ? {} : { paid_cents_proposed_by: proposal.proposedBy, paid_cents_confirmed_by: review.actor }),
        },
        at: now,
      })
    },
  })
  if (result.kind === 'not_found') throw new DomainError('payment_not_found', { param: 'payment_id' })
  if (awaiting !== null) return { charge: result.charge, awaiting }
  if (result.kind === 'refused') throw new DomainError(result.code)
  if (result.kind === 'unchanged') throw new DomainError('payment_not_held')
  return { charge: result.charge, awaiting: null }
}
