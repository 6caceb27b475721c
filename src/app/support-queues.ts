// The queues support works (docs/rules.md#console), read the one way for /ops and the console:
// oldest first, each row with what support needs beside it, read in batches (never one read per
// row). The console reads them a page at a time with their counts; /ops reads each whole, up to
// its bound.
import type { Clock } from '../clock.ts'
import type { ConsoleQueue } from '../domain/support-queues.ts'
import type { PaidAmountProposalRow } from '../store/paid-amount-proposals.ts'
import type { Charge, Payout, Refund } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { listHolds, type HeldPayment } from './list-holds.ts'
import { withdrawalsInReview, type WithdrawalInReview } from './withdrawals-in-review.ts'

export const QUEUE_PAGE_SIZE = 20

export type QueuePage =
  | { queue: 'holds'; rows: HeldPayment[] }
  | { queue: 'refunds'; rows: Refund[] }
  | { queue: 'withdrawals'; rows: WithdrawalInReview[] }
  | { queue: 'unknown_deposits'; rows: Awaited<ReturnType<Store['console']['unknownDeposits']>> }
  | { queue: 'provider_refusals'; rows: Awaited<ReturnType<Store['console']['providerRefusals']>> }
  | { queue: 'stuck_reconciliations'; rows: Awaited<ReturnType<Store['console']['stuckReconciliations']>> }

export function queueCounts(deps: { store: Store; clock: Clock }): Promise<Record<ConsoleQueue, number>> {
  return deps.store.console.queueCounts(deps.clock.now())
}

/** One page of a queue (`page` from 1); one row more is read to tell whether a next page exists. */
export async function queuePage(deps: { store: Store; clock: Clock }, queue: ConsoleQueue, pageNumber: number): Promise<QueuePage & { hasNext: boolean }> {
  const page = { offset: (pageNumber - 1) * QUEUE_PAGE_SIZE, limit: QUEUE_PAGE_SIZE + 1 }
  const cut = <T>(rows: T[]) => ({ rows: rows.slice(0, QUEUE_PAGE_SIZE), hasNext: rows.length > QUEUE_PAGE_SIZE })
  const store = deps.store
  switch (queue) {
    case 'holds':
      return { queue, ...cut(await listHolds(deps, page)) }
    case 'refunds':
      return { queue, ...cut(await store.console.refundsOwed(page)) }
    case 'withdrawals': {
      return { queue, ...cut(await withdrawalsInReview(deps, page)) }
    }
    case 'unknown_deposits':
      return { queue, ...cut(await store.console.unknownDeposits(page)) }
    case 'provider_refusals':
      return { queue, ...cut(await store.console.providerRefusals(page)) }
    case 'stuck_reconciliations':
      return { queue, ...cut(await store.console.stuckReconciliations(deps.clock.now(), page)) }
  }
}

/** Every held payment, with an amount typed beyond the tolerance that waits for a second operator. */
export async function heldPayments(deps: { store: Store }): Promise<Array<HeldPayment & { proposal: PaidAmountProposalRow | undefined }>> {
  const holds = await listHolds(deps)
  const proposals = new Map((await deps.store.paidAmountProposals.forCharges(holds.map(({ charge }) => charge.id))).map((row) => [row.charge_id, row]))
  return holds.map((hold) => ({ ...hold, proposal: proposals.get(hold.charge.id) }))
}

/** Refunds owed to payers (docs/rules.md#refunds-owed), with the payouts ordered for them, newest first. */
export async function refundsOwed(deps: { store: Store }): Promise<{ refunds: Refund[]; payouts: Payout[] }> {
  const refunds = await deps.store.refunds.listOwed()
  return { refunds, payouts: await deps.store.payouts.listForRefunds(refunds.map((refund) => refund.id)) }
}

export function refundPayoutsInReview(deps: { store: Store }): Promise<Payout[]> {
  return deps.store.payouts.refundPayoutsInReview()
}

/** What the provider refused or takes back that support must look at (the console's provider_refusals). */
export async function supportAlerts(deps: { store: Store }): Promise<{ clawbacks: Charge[]; withdrawalPayouts: Payout[]; refundPayouts: Payout[]; merchantRefundPayouts: Payout[]; refundedThenDisputed: Charge[] }> {
  const [clawbacks, withdrawalPayouts, refundPayouts, merchantRefundPayouts, refundedThenDisputed] = await Promise.all([
    deps.store.charges.listClawbacksToReview(), deps.store.payouts.failedAfterSending('withdrawal'), deps.store.payouts.failedAfterSending('refund'),
    // A merchant's refund whose Pix failed after its DePix left, and a MED after a merchant refunded (docs/rules.md#merchant-refund-statuses).
    deps.store.payouts.failedAfterSending('merchant_refund'), deps.store.charges.listRefundedThenDisputed(),
  ])
  return { clawbacks, withdrawalPayouts, refundPayouts, merchantRefundPayouts, refundedThenDisputed }
}

/** Provider deposits that match no charge. */
export function unknownDeposits(deps: { store: Store }) {
  return deps.store.unknownDeposits.list()
}
