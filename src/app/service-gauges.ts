// The business figures /metrics exports (http/metrics.ts), read from the database at each scrape so
// they are exact across instances and restarts. Each reader answers one gauge, in domain terms.
import type { Clock } from '../clock.ts'
import type { Store } from '../store/store.ts'
import { attemptOutcome, type AttemptOutcome } from '../webhooks/sender.ts'

type Deps = { store: Store }

/** Charges created, or confirmed (credited), per credited currency. */
export function chargesByCurrency(deps: Deps, which: 'created' | 'confirmed') {
  return deps.store.charges.countByCurrency(which)
}

/** Merchant webhook attempts per outcome (several status codes make one outcome). */
export async function webhookAttemptsByOutcome(deps: Deps): Promise<Map<AttemptOutcome, number>> {
  const counts = new Map<AttemptOutcome, number>()
  for (const row of await deps.store.webhookEvents.attemptsByStatusCode()) {
    const outcome = attemptOutcome(row.status_code)
    counts.set(outcome, (counts.get(outcome) ?? 0) + row.n)
  }
  return counts
}

/** Claw-backs the provider reported that support must look at (docs/rules.md#clawbacks). */
export function clawbacksToReview(deps: Deps): Promise<number> {
  return deps.store.charges.countClawbacksToReview()
}

/** Refunds owed to payers: how many, and how many centavos. */
export function refundsOwedTotals(deps: Deps) {
  return deps.store.refunds.owedTotals()
}

export function withdrawalsByStatus(deps: Deps) {
  return deps.store.withdrawals.countByStatus()
}

/** Pix-outs of every kind whose DePix left but whose Pix the provider did not pay, or refunded after paying. */
export async function payoutsFailedAfterSending(deps: Deps): Promise<number> {
  return (await deps.store.payouts.failedAfterSending('withdrawal')).length + (await deps.store.payouts.failedAfterSending('refund')).length
    + (await deps.store.payouts.failedAfterSending('merchant_refund')).length
}

/** Background jobs due now, per kind. */
export function jobsDueByKind(deps: Deps & { clock: Clock }) {
  return deps.store.jobs.dueByKind(deps.clock.now())
}

/** Background jobs parked because their payload is not their kind's, per kind. */
export function jobsParkedByKind(deps: Deps) {
  return deps.store.jobs.parkedByKind()
}

/** How long, in seconds, the oldest due job has waited (0 when none is due). */
export async function oldestDueJobWait(deps: Deps & { clock: Clock }): Promise<number> {
  const oldestDue = await deps.store.jobs.oldestDue(deps.clock.now())
  return oldestDue ? Math.max(0, (deps.clock.now().getTime() - oldestDue.getTime()) / 1000) : 0
}
