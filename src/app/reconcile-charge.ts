// When webhooks go quiet, ask the provider (deposit-status) about a charge still waiting on it,
// so a lost provider webhook never strands a payment.
import type { Clock } from '../clock.ts'
import { awaitsProvider } from '../domain/charge.ts'
import type { PaymentProvider } from '../provider/provider.ts'
import type { Store } from '../store/store.ts'
import { applyProviderEvent } from './apply-provider-event.ts'
import type { QuoteBook } from './quote-book.ts'

/**
 * When to ask about a charge the n-th time (0 is the first, after creation): 5 min, then 10, 20,
 * 40 min, then hourly, so a quiet provider is asked often at first and cheaply later.
 */
export function reconcileDelayMs(attempt: number): number {
  return Math.min(300_000 * 2 ** attempt, 3_600_000)
}

/** How long after creation we keep asking: a MED-free payment is settled well within this. */
export const RECONCILE_FOR_MS = 7 * 24 * 3600 * 1000

/** Returns true while the charge still awaits the provider and is worth asking about again. */
export async function reconcileCharge(deps: { store: Store; provider: PaymentProvider; clock: Clock; quotes: QuoteBook }, chargeId: string): Promise<boolean> {
  const charge = await deps.store.charges.findById(chargeId)
  if (!charge || !awaitsProvider(charge.status)) return false
  // The provider call happens outside any transaction; applying its answer is one transaction.
  const report = await deps.provider.depositStatus(charge.provider_deposit_id)
  const outcome = await applyProviderEvent(deps, report)
  const stillWaiting = outcome.status !== null && awaitsProvider(outcome.status)
  return stillWaiting && deps.clock.now().getTime() - charge.created_at.getTime() < RECONCILE_FOR_MS
}
