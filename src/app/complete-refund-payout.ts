// A refund's payout reached the payer (docs/treasury.md, "Refunds owed"): the payout is completed
// and, in the same transaction (the charge's locks first, as every charge move takes them), the
// refund is settled as paid by us, the charge becomes refunded, and the provider's fee, which the
// service bears, is posted. A refund the provider had meanwhile settled itself (a MED took the
// money back) was paid twice: the payout completes all the same, and the error is logged and
// audited for support.
import { refundPayoutFeePosting } from '../domain/ledger.ts'
import type { PayoutStep } from '../store/payouts.ts'
import type { Payout } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { moveCharge } from './move-charge.ts'
import { moveLockedPayout, type PayoutMoveDeps } from './move-money-out.ts'

export async function completeRefundPayout(deps: PayoutMoveDeps & { log?: { error: (details: object, message: string) => void } }, payout: Payout, record: PayoutStep): Promise<void> {
  const refund = await deps.store.refunds.findById(payout.refund_id!)
  if (!refund) throw new Error(`payout ${payout.id} has no refund`)
  const complete = (store: Store) => moveLockedPayout({ ...deps, store }, payout.id, {
    event: ({ payout: current }) => (current.status === 'sent' ? { kind: 'completed' } : null),
    record,
    after: async (store, _before, after, now) => {
      const fee = (after.provider_deposit_cents ?? after.amount) - after.amount
      const owed = await store.refunds.lockById(refund.id)
      if (owed && fee > 0 && (await store.ledger.post(refundPayoutFeePosting({ id: after.id, feeCents: fee }), refund.charge_id, now))) {
        await store.refunds.update(refund.id, { payout_fee_cents: owed.payout_fee_cents + fee })
      }
    },
  })
  let completed = false
  const result = await moveCharge(deps, { id: refund.charge_id }, {
    event: async (store) => {
      const current = await store.payouts.lockById(payout.id)
      return current?.status === 'sent' ? { kind: 'refund_paid' } : null
    },
    context: { actor: payout.created_by, refundReference: `pix-out ${payout.provider_withdrawal_id}` },
    after: async (store, before, after, now) => {
      completed = (await complete(store)).kind === 'moved'
      await store.audit.record({ actor: payout.created_by, action: 'refund.paid', subject: `refund:${refund.id}`, details: { refund_payout_id: payout.id, provider_withdrawal_id: payout.provider_withdrawal_id, payment_id: before.id, status: after.status }, at: now })
    },
  })
  if (completed || result.kind !== 'refused') return
  deps.log?.error({ payoutId: payout.id, refundId: refund.id, code: result.code }, 'a refund was paid by Pix after it had been settled otherwise: the payer was paid twice')
  await deps.store.transaction(async (store) => {
    await store.charges.lockById(refund.charge_id)
    const done = await complete(store)
    if (done.kind === 'moved') await store.audit.record({ actor: 'service', action: 'refund.paid_twice', subject: `refund:${refund.id}`, details: { refund_payout_id: payout.id, code: result.code }, at: deps.clock.now() })
  })
}
