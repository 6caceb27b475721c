// The queues support works (docs/rules.md#console), read the one way for /ops and the console:
// oldest first, each row with what support needs beside it, read in batches (never one read per
// row). The console reads them a page at a time, by cursor, with their counts; /ops reads each
// whole, up to its bound.
import type { Clock } from '../clock.ts'
import { isChargeId } from '../domain/charge.ts'
import type { ConsoleQueue } from '../domain/support-queues.ts'
import type { RefusalKey } from '../store/console.ts'
import type { PaidAmountProposalRow } from '../store/paid-amount-proposals.ts'
import type { Charge, Payout, Refund } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { listHolds, type HeldPayment } from './list-holds.ts'
import { isWithdrawalId } from './list-withdrawals.ts'
import { pageAfter, timeAndId, type CursorKey } from './page-cursor.ts'
import { withdrawalsInReview, type WithdrawalInReview } from './withdrawals-in-review.ts'

export const QUEUE_PAGE_SIZE = 20

type Refusal = Awaited<ReturnType<Store['console']['providerRefusals']>>[number]

export type QueuePage =
  | { queue: 'holds'; rows: HeldPayment[] }
  | { queue: 'refunds'; rows: Refund[] }
  | { queue: 'withdrawals'; rows: WithdrawalInReview[] }
  | { queue: 'unknown_deposits'; rows: Awaited<ReturnType<Store['console']['unknownDeposits']>> }
  | { queue: 'provider_refusals'; rows: Refusal[] }
  | { queue: 'stuck_reconciliations'; rows: Awaited<ReturnType<Store['console']['stuckReconciliations']>> }

export function queueCounts(deps: { store: Store; clock: Clock }): Promise<Record<ConsoleQueue, number>> {
  return deps.store.console.queueCounts(deps.clock.now())
}

const isRefundId = (id: string) => /^ref_[0-9a-f]{24}$/.test(id)
// The provider's qrId and our payout ids are its words or ours, not a pattern of one kind: bounded only.
const isOtherId = (id: string) => /^[\x21-\x7e]{1,128}$/.test(id)

/** The provider-refusals queue's key: the time, then the kind (claw-backs first at one time) and the id, as `c_<id>` or `p_<id>`. */
const refusalTimes = timeAndId((row: Refusal) => (row.kind === 'clawback' ? { at: row.since, id: `c_${row.charge.id}` } : { at: row.since, id: `p_${row.payout.id}` }),
  (id) => (id.startsWith('c_') ? isChargeId(id.slice(2)) : id.startsWith('p_') && isOtherId(id.slice(2))))
const refusalKey: CursorKey<Refusal, RefusalKey> = {
  write: refusalTimes.write,
  read: (text) => {
    const key = refusalTimes.read(text)
    return key === null ? null : { at: key.at, kind: key.id.startsWith('c_') ? 'clawback' : 'payout', id: key.id.slice(2) }
  },
}

/**
 * One page of a queue, oldest first, after the cursor (the page before's `nextCursor`; none for
 * the first), by the keyset of every list (app/page-cursor.ts): rows with one time are ordered by
 * id, so a page border between them neither skips nor repeats one.
 */
export async function queuePage(deps: { store: Store; clock: Clock }, queue: ConsoleQueue, cursor: string | undefined, limit = QUEUE_PAGE_SIZE): Promise<QueuePage & { nextCursor: string | null }> {
  const page = { cursor, limit }
  const store = deps.store
  switch (queue) {
    case 'holds':
      return { queue, ...(await pageAfter(page, timeAndId(({ charge }: HeldPayment) => ({ at: charge.updated_at, id: charge.id }), isChargeId), (after, upTo) => listHolds(deps, { after, limit: upTo }))) }
    case 'refunds':
      return { queue, ...(await pageAfter(page, timeAndId((refund: Refund) => ({ at: refund.created_at, id: refund.id }), isRefundId), (after, upTo) => store.console.refundsOwed({ after, limit: upTo }))) }
    case 'withdrawals':
      return { queue, ...(await pageAfter(page, timeAndId((withdrawal: WithdrawalInReview) => ({ at: withdrawal.updated_at, id: withdrawal.id }), isWithdrawalId), (after, upTo) => withdrawalsInReview(deps, { after, limit: upTo }))) }
    case 'unknown_deposits':
      return { queue, ...(await pageAfter(page, timeAndId((deposit: { first_seen_at: Date; qr_id: string }) => ({ at: deposit.first_seen_at, id: deposit.qr_id }), isOtherId), (after, upTo) => store.console.unknownDeposits({ after, limit: upTo }))) }
    case 'provider_refusals':
      return { queue, ...(await pageAfter(page, refusalKey, (after, upTo) => store.console.providerRefusals({ after, limit: upTo }))) }
    case 'stuck_reconciliations':
      return { queue, ...(await pageAfter(page, timeAndId((charge: Charge) => ({ at: charge.created_at, id: charge.id }), isChargeId), (after, upTo) => store.console.stuckReconciliations(deps.clock.now(), { after, limit: upTo }))) }
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
