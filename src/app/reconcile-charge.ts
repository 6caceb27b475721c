// When webhooks go quiet, ask the provider (deposit-status) about a charge, on the schedule of
// domain/reconciliation.ts: until it is final, and for 90 days after it was credited or held, so a
// lost provider webhook (a delivery, a refund, a claw-back) never strands money.
import type { Clock } from '../clock.ts'
import { nextReconcileAt, reconcileStage } from '../domain/reconciliation.ts'
import type { PaymentProvider } from '../provider/provider.ts'
import type { Charge } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { applyProviderEvent } from './apply-provider-event.ts'
import { expireCharge } from './expire-charge.ts'
import type { QuoteBook } from './quote-book.ts'

/** When to ask about this charge next; null: never again. */
export function nextAsk(charge: Pick<Charge, 'status' | 'created_at' | 'confirmed_at'>, now: Date): Date | null {
  return nextReconcileAt({ status: charge.status, createdAt: charge.created_at, settledAt: charge.confirmed_at }, now)
}

/**
 * A charge's one job (queued with it by create-charge): its expiry when it falls due, then the
 * provider asked once per the schedule. Answers when to run next (null: done).
 */
export async function reconcileCharge(deps: { store: Store; provider: PaymentProvider; clock: Clock; quotes: QuoteBook }, chargeId: string): Promise<Date | null> {
  let charge = await deps.store.charges.findById(chargeId)
  if (!charge || reconcileStage(charge.status) === 'final') return null
  const now = deps.clock.now()
  // The job first comes due at the QR's expiry, before the schedule's first ask: an unpaid charge
  // expires then (the state machine decides whether it is due), and is asked about later.
  if (charge.status === 'waiting_payment') {
    const expiry = await expireCharge(deps, chargeId)
    if (expiry.kind === 'not_found') return null
    charge = expiry.charge
    if (charge.status === 'waiting_payment' && charge.expires_at.getTime() > now.getTime()) return charge.expires_at
  }
  const firstAsk = nextAsk(charge, charge.created_at)
  if (firstAsk !== null && firstAsk.getTime() > now.getTime()) return nextAsk(charge, now)
  // The provider call happens outside any transaction; applying its answer is one transaction.
  const report = await deps.provider.depositStatus(charge.provider_deposit_id)
  const result = await applyProviderEvent(deps, report)
  return nextAsk(result.kind === 'not_found' ? charge : result.charge, deps.clock.now())
}
