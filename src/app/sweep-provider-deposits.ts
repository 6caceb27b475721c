// The documented fallback when provider webhooks fail (docs/rules.md#reconciliation): list the
// provider's deposits per status the service needs (deliveries, refunds, announced refunds), a
// window at a time from a cursor kept per status (domain/reconciliation.ts), and apply what the
// service has not seen yet; deposits that match no charge of ours are kept for support. Each run
// makes at most the plan's calls, so the sweep stays within the provider's 12/min on /deposits.
import type { Clock } from '../clock.ts'
import { advanceSweep, sweepWindow, type SweepPlan } from '../domain/reconciliation.ts'
import type { ProviderDeposit } from '../domain/provider-report.ts'
import type { PaymentProvider } from '../provider/provider.ts'
import type { Store } from '../store/store.ts'
import { applyProviderEvent } from './apply-provider-event.ts'
import type { QuoteBook } from './quote-book.ts'

/** How often the sweep runs. */
export const SWEEP_EVERY_MS = 60_000
/** The width of a new pass's first window; it grows while windows come back short of a page. */
const FIRST_SPAN_MS = 3_600_000

async function applyUnseen(deps: { store: Store; clock: Clock; quotes: QuoteBook }, deposits: ProviderDeposit[]): Promise<{ applied: number; unknown: number }> {
  const known = new Map((await deps.store.charges.findByDepositIds(deposits.map((deposit) => deposit.qrId))).map((charge) => [charge.provider_deposit_id, charge]))
  let applied = 0
  let unknown = 0
  for (const deposit of deposits) {
    const charge = known.get(deposit.qrId)
    if (!charge) {
      await deps.store.unknownDeposits.record(deposit, 'sweep', deps.clock.now())
      unknown++
    } else if (charge.provider_status !== deposit.statusText && charge.status !== 'refunded') {
      if ((await applyProviderEvent(deps, deposit, 'sweep')).kind === 'moved') applied++
    }
  }
  return { applied, unknown }
}

export async function sweepProviderDeposits(
  deps: { store: Store; provider: PaymentProvider; clock: Clock; quotes: QuoteBook },
  plans: readonly SweepPlan[],
): Promise<{ applied: number; unknown: number; calls: number }> {
  const total = { applied: 0, unknown: 0, calls: 0 }
  for (const plan of plans) {
    let state = await deps.store.sweeps.cursor(plan.status, FIRST_SPAN_MS)
    for (let call = 0; call < plan.callsPerRun; call++) {
      const now = deps.clock.now()
      const window = sweepWindow(state, now, plan.lookbackMs)
      const found = await deps.provider.listDeposits(window.start, window.end, plan.status)
      total.calls++
      const next = advanceSweep(state, window, found.length, now, plan.lookbackMs)
      // A full page is read again, narrower; a provider that ignores the filter is filtered here.
      const rereading = next.cursor !== null && next.cursor.getTime() === window.end.getTime()
      if (!rereading) {
        const { applied, unknown } = await applyUnseen(deps, found.filter((deposit) => deposit.status === plan.status))
        total.applied += applied
        total.unknown += unknown
      }
      state = next
      await deps.store.sweeps.save(plan.status, state)
      // A pass ended: the next starts from the newest deposits on the next run.
      if (state.cursor === null) break
    }
  }
  return total
}
