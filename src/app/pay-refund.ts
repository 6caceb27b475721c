// Support pays a refund owed by a Pix-out from the treasury (decisions 14), to the payer's own
// CPF/CNPJ key: the one key we know belongs to the payer's tax number without taking anyone's word
// for it (a payer with no such key is paid outside the service and support records it). The order
// is written with its sending job in one transaction; the worker (send-refund-payout.ts) pays.
// Support also decides a payout that waits in review: send it again, or give up on it while
// nothing has left.
import { randomBytes } from 'node:crypto'
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import { refundPixOutRefusal } from '../domain/refund-payout.ts'
import type { RefundPayout } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { moveLockedRefundPayout } from './move-refund-payout.ts'

export async function payRefundByPix(deps: { store: Store; clock: Clock }, order: { refundId: string; note: string; actor: string }): Promise<RefundPayout> {
  return deps.store.transaction(async (store) => {
    const charge = (await store.refunds.findById(order.refundId))?.charge_id
    if (charge === undefined) throw new DomainError('refund_not_found', { param: 'refund_id' })
    // The charge's lock first, as support's "paid by bank" (record-refund-paid.ts) and a payout's
    // completion take it: an order and either of them are then one after the other, so neither
    // misses the other's write (without it, an order and a bank payment at once both went through
    // and the payer would be paid twice; withdrawal-races.test.ts), and no two wait on each other.
    await store.charges.lockById(charge)
    const refund = await store.refunds.lockById(order.refundId)
    if (!refund) throw new DomainError('refund_not_found', { param: 'refund_id' })
    if (refund.status !== 'owed' || refund.owed_cents <= 0) throw new DomainError('refund_not_owed')
    if (refund.payer_tax_number === null) throw new DomainError('refund_payer_unknown')
    const refusal = refundPixOutRefusal(refund.owed_cents)
    if (refusal !== null) throw new DomainError(refusal)
    const now = deps.clock.now()
    const payout = await store.refundPayouts.insert({
      id: `rpo_${randomBytes(12).toString('hex')}`,
      refund_id: refund.id,
      pix_key: refund.payer_tax_number,
      tax_number: refund.payer_tax_number,
      amount_cents: refund.owed_cents,
      status: 'sending',
      created_by: order.actor,
      note: order.note,
      created_at: now,
      updated_at: now,
    })
    if (!payout) throw new DomainError('refund_payout_in_progress')
    await store.jobs.enqueue('send_refund_payout', { refundPayoutId: payout.id }, now, now)
    await store.audit.record({ actor: order.actor, action: 'refund.payout_ordered', subject: `refund:${refund.id}`, details: { note: order.note, refund_payout_id: payout.id, amount_cents: payout.amount_cents, payment_id: refund.charge_id }, at: now })
    return payout
  })
}

/**
 * Support's word on a refund payout: `retry` sends it again and `new_payout` asks the provider
 * anew (both only while the refund, re-read under its lock, still owes this payout's amount);
 * `abandon` ends it while nothing left; `returned` records that the DePix came back after the
 * provider failed the Pix, so the refund is owed again.
 */
export async function reviewRefundPayout(deps: { store: Store; clock: Clock }, review: { refundPayoutId: string; decision: 'retry' | 'abandon' | 'new_payout' | 'returned'; note: string; actor: string }): Promise<RefundPayout> {
  const result = await deps.store.transaction(async (store) => {
    const found = await store.refundPayouts.findById(review.refundPayoutId)
    if (!found) return { kind: 'not_found' as const }
    const refund = await store.refunds.findById(found.refund_id)
    // The charge, then the refund, then the payout: the order every refund move takes them in.
    if (refund) await store.charges.lockById(refund.charge_id)
    const owed = await store.refunds.lockById(found.refund_id)
    return moveLockedRefundPayout({ store, clock: deps.clock }, review.refundPayoutId, {
      event: (payout) => {
        const stillOwed = owed !== undefined && owed.status === 'owed' && owed.owed_cents >= payout.amount_cents
        return review.decision === 'retry' || review.decision === 'new_payout' ? { kind: review.decision, stillOwed } : { kind: review.decision }
      },
      after: (store, before, after, now) =>
        store.audit.record({
          actor: review.actor, action: `refund.payout_${review.decision}`, subject: `refund:${after.refund_id}`,
          details: { note: review.note, refund_payout_id: after.id, review_reason: before.review_reason, ...(review.decision === 'new_payout' ? { forgotten_provider_payout: before.provider_withdrawal_id } : {}) }, at: now,
        }),
    })
  })
  if (result.kind === 'not_found') throw new DomainError('refund_payout_not_found', { param: 'refund_payout_id' })
  if (result.kind === 'refused') throw new DomainError(result.code)
  return result.payout
}
