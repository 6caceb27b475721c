// Support decides a payment in security_hold (decisions 4 and 14): release it (credited like a
// confirmation: the matching payer's value becomes available, a different payer's is held 7 days),
// refund it to the payer from the money still with us (a refund obligation), or close it as taken
// back when the provider already returned it. Nothing is released after a claw-back. When the
// provider never said what arrived, it is asked first; then support must say.
import type { Clock } from '../clock.ts'
import { payerMatches, type ReviewDecision } from '../domain/charge.ts'
import { DomainError } from '../domain/errors.ts'
import { ProviderUnavailableError, type PaymentProvider } from '../provider/provider.ts'
import type { Charge } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { moveCharge } from './move-charge.ts'
import type { QuoteBook } from './quote-book.ts'

/** What the provider says arrived for a held payment whose amount it never stated; null when it still does not say. */
async function askWhatArrived(deps: { provider: PaymentProvider; log?: { warn: (details: object, message: string) => void } }, charge: Charge): Promise<number | null> {
  try {
    const status = await deps.provider.depositStatus(charge.provider_deposit_id)
    return status.status === 'depix_sent' ? status.valueInCents : null
  } catch (error) {
    if (!(error instanceof ProviderUnavailableError)) throw error
    deps.log?.warn({ err: error, chargeId: charge.id }, 'could not ask the provider what arrived')
    return null
  }
}

export async function reviewHold(
  deps: { store: Store; clock: Clock; quotes: QuoteBook; provider: PaymentProvider; log?: { warn: (details: object, message: string) => void } },
  review: { chargeId: string; decision: ReviewDecision; note: string; actor: string; paidCents?: number | undefined },
): Promise<Charge> {
  const peek = await deps.store.charges.findById(review.chargeId)
  if (!peek) throw new DomainError('payment_not_found', { param: 'payment_id' })
  // Asked before the transaction: HTTP calls never hold database locks.
  const reported = peek.paid_cents === null && review.decision !== 'close' && peek.status === 'security_hold' ? await askWhatArrived(deps, peek) : null
  const known = peek.paid_cents ?? reported
  if (review.paidCents !== undefined && known !== null && review.paidCents !== known) {
    throw new DomainError('invalid_request', { param: 'paid_cents', message: `The provider stated what arrived (${known} centavos); paid_cents is only for a payment whose amount it never stated.` })
  }
  const quote = review.decision === 'release' ? await deps.quotes.at(peek.currency) : null
  const result = await moveCharge(deps, { id: review.chargeId }, {
    learn: (charge) => ({ values: reported !== null && charge.paid_cents === null ? { paid_cents: reported, paid_source: 'provider' } : {} }),
    event: async (_store, charge) => {
      const entered = review.paidCents ?? null
      if (review.decision === 'close') return { kind: 'review', decision: 'close' }
      if (review.decision === 'refund') return { kind: 'review', decision: 'refund', enteredPaidCents: entered }
      const payerMatchesInformed = payerMatches({ informedEuid: charge.informed_euid, informedTaxNumber: charge.informed_tax_number }, { payerEuid: charge.payer_euid, payerTaxNumber: charge.payer_tax_number })
      return { kind: 'review', decision: 'release', facts: { quote, payerMatchesInformed }, enteredPaidCents: entered }
    },
    context: { actor: review.actor },
    after: (store, before, after, now) =>
      store.audit.record({
        actor: review.actor,
        action: `review.${review.decision}`,
        subject: `payment:${before.id}`,
        details: { note: review.note, hold_reason: before.hold_reason, clawback: before.clawback, status: after.status, paid_cents: after.paid_cents, paid_source: after.paid_source },
        at: now,
      }),
  })
  if (result.kind === 'not_found') throw new DomainError('payment_not_found', { param: 'payment_id' })
  if (result.kind === 'refused') throw new DomainError(result.code)
  if (result.kind === 'unchanged') throw new DomainError('payment_not_held')
  return result.charge
}
