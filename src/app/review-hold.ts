// Support reviews a payment in security_hold: release it (credited like a confirmation: the
// matching payer's value becomes available, a different payer's is held 7 days) or refund it.
import type { Clock } from '../clock.ts'
import { decideCharge, payerMatches } from '../domain/charge.ts'
import { DomainError } from '../domain/errors.ts'
import type { Charge } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { applyChargeDecision, chargeView } from './apply-charge-decision.ts'
import type { QuoteBook } from './quote-book.ts'

export type ReviewDecision = 'release' | 'refund'

export async function reviewHold(
  deps: { store: Store; clock: Clock; quotes: QuoteBook },
  review: { chargeId: string; decision: ReviewDecision; note: string; actor: string },
): Promise<Charge> {
  // A release converts at the quote of that moment, asked before the transaction.
  const peek = review.decision === 'release' ? await deps.store.charges.findById(review.chargeId) : undefined
  const quote = peek ? await deps.quotes.at(peek.currency) : null
  return deps.store.transaction(async (store) => {
    const charge = await store.charges.lockById(review.chargeId)
    if (!charge) throw new DomainError('payment_not_found', { param: 'payment_id' })
    const now = deps.clock.now()
    const decision = decideCharge(chargeView(charge), { kind: 'review', decision: review.decision }, {
      blocked: false,
      boundElsewhere: false,
      quoteAvailable: charge.currency === 'DEPIX' || quote !== null,
      payerMatchesInformed: payerMatches(chargeView(charge), { status: 'depix_sent', valueInCents: charge.paid_cents, payerEuid: charge.payer_euid, payerTaxNumber: charge.payer_tax_number }),
    })
    if (decision.kind === 'refuse') throw new DomainError(decision.code)
    if (decision.kind !== 'move') throw new DomainError('payment_not_held')
    const updated = await applyChargeDecision(store, charge, decision, { now, quote })
    await store.audit.record({
      actor: review.actor,
      action: `review.${review.decision}`,
      subject: `payment:${charge.id}`,
      details: { note: review.note, hold_reason: charge.hold_reason, status: updated.status },
      at: now,
    })
    return updated
  })
}
