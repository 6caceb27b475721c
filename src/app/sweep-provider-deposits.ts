// The documented fallback when provider webhooks fail (reference/eulen-api.md): list the paid
// deposits of the period in which a payment can still arrive, apply those whose charge is still
// waiting on the provider, and keep for support those that match no charge of ours. Per-charge
// reconciliation (deposit-status) covers each charge too; this catches what it would see late.
import type { Clock } from '../clock.ts'
import { awaitsProvider } from '../domain/charge.ts'
import type { PaymentProvider, ProviderDeposit } from '../provider/provider.ts'
import type { Store } from '../store/store.ts'
import { applyProviderEvent } from './apply-provider-event.ts'
import type { QuoteBook } from './quote-book.ts'

/** How often the sweep runs; within Eulen's 12/min on /deposits with room for splits. */
export const SWEEP_EVERY_MS = 60_000
/** The provider answers at most this many deposits a call: a full answer means "split the window". */
const PAGE = 200
const MAX_CALLS_PER_SWEEP = 4

/** Paid deposits created in [start, end), halving a window that comes back full. */
async function paidDepositsBetween(provider: PaymentProvider, start: Date, end: Date, budget: { calls: number }): Promise<ProviderDeposit[]> {
  budget.calls--
  const found = await provider.listDeposits(start, end)
  if (found.length < PAGE || budget.calls < 2 || end.getTime() - start.getTime() < 60_000) return found.filter((deposit) => deposit.status === 'depix_sent')
  const middle = new Date((start.getTime() + end.getTime()) / 2)
  return [...(await paidDepositsBetween(provider, middle, end, budget)), ...(await paidDepositsBetween(provider, start, middle, budget))]
}

export async function sweepProviderDeposits(
  deps: { store: Store; provider: PaymentProvider; clock: Clock; quotes: QuoteBook },
  options: { lookbackMs: number },
): Promise<{ applied: number; unknown: number }> {
  const now = deps.clock.now()
  const paid = await paidDepositsBetween(deps.provider, new Date(now.getTime() - options.lookbackMs), now, { calls: MAX_CALLS_PER_SWEEP })
  const known = new Map((await deps.store.charges.findByDepositIds(paid.map((deposit) => deposit.qrId))).map((charge) => [charge.provider_deposit_id, charge]))
  let applied = 0
  let unknown = 0
  for (const deposit of paid) {
    const charge = known.get(deposit.qrId)
    if (!charge) {
      await deps.store.unknownDeposits.record(deposit, 'sweep', now)
      unknown++
    } else if (awaitsProvider(charge.status)) {
      if ((await applyProviderEvent(deps, deposit)).changed) applied++
    }
  }
  return { applied, unknown }
}
