// The one way a refund payout moves: in one transaction, lock it, ask its state machine
// (domain/refund-payout.ts), write the new status with what the caller learnt, queue the sending
// job when it is to be sent (again), and the caller's audit entry.
import type { Clock } from '../clock.ts'
import { decideRefundPayout, type RefundPayoutEvent, type RefundPayoutStatus } from '../domain/refund-payout.ts'
import type { PayoutStep } from '../store/payout-steps.ts'
import type { RefundPayout } from '../store/schema.ts'
import type { Store } from '../store/store.ts'

export type RefundPayoutMove = {
  event: (payout: RefundPayout, store: Store) => Promise<RefundPayoutEvent | null> | RefundPayoutEvent | null
  record?: PayoutStep
  after?: (store: Store, before: RefundPayout, after: RefundPayout, now: Date) => Promise<void>
}

export type RefundPayoutMoveResult =
  | { kind: 'not_found' }
  | { kind: 'unchanged'; payout: RefundPayout }
  | { kind: 'moved'; payout: RefundPayout }
  | { kind: 'refused'; payout: RefundPayout; code: Extract<ReturnType<typeof decideRefundPayout>, { outcome: 'refused' }>['code'] }

export async function moveRefundPayout(deps: { store: Store; clock: Clock }, id: string, move: RefundPayoutMove): Promise<RefundPayoutMoveResult> {
  return deps.store.transaction(async (store) => moveLockedRefundPayout({ store, clock: deps.clock }, id, move))
}

/** Inside a transaction (the completion's, which holds the charge's locks first). */
export async function moveLockedRefundPayout(deps: { store: Store; clock: Clock }, id: string, move: RefundPayoutMove): Promise<RefundPayoutMoveResult> {
  const { store } = deps
  const payout = await store.refundPayouts.lockById(id)
  if (!payout) return { kind: 'not_found' }
  const event = await move.event(payout, store)
  if (event === null) return { kind: 'unchanged', payout }
  const decision = decideRefundPayout({ status: payout.status, signed: payout.tx_hex !== null, reviewReason: payout.review_reason }, event)
  if (decision.outcome === 'unchanged') return { kind: 'unchanged', payout }
  if (decision.outcome === 'refused') return { kind: 'refused', payout, code: decision.code }
  const now = deps.clock.now()
  const moved = await store.refundPayouts.update(id, {
    ...move.record,
    // The provider's payout asked another amount: forgotten, so the next send asks anew (a new nonce).
    ...(decision.forgetProviderPayout ? { provider_nonce: null, provider_withdrawal_id: null, provider_deposit_address: null, provider_deposit_cents: null, provider_expires_at: null, provider_status: null, provider_receipt_url: null, payout_cents: null } : {}),
    status: decision.status,
    review_reason: decision.reviewReason,
    failure_code: decision.failureCode,
    updated_at: now,
    ...timestampOf(decision.status, now),
  })
  if (decision.queueSend) await store.jobs.enqueue('send_refund_payout', { refundPayoutId: id }, now, now)
  await move.after?.(store, payout, moved, now)
  return { kind: 'moved', payout: moved }
}

function timestampOf(status: RefundPayoutStatus, now: Date): { sent_at?: Date; completed_at?: Date } {
  if (status === 'sent') return { sent_at: now }
  if (status === 'completed') return { completed_at: now }
  return {}
}
