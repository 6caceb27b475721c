// Support paid a refund owed to a payer outside the service (a bank transfer, with its reference):
// the obligation is settled in the ledger and the charge becomes `refunded` (docs/treasury.md, "Refunds owed"). Not
// while a Pix-out of it from the treasury is under way (pay-refund.ts): the payer would be paid twice.
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import { isLive } from '../domain/payout.ts'
import type { Refund } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { moveCharge } from './move-charge.ts'

export async function recordRefundPaid(deps: { store: Store; clock: Clock }, payment: { refundId: string; reference: string; note: string; actor: string }): Promise<Refund> {
  const refund = await deps.store.refunds.findById(payment.refundId)
  if (!refund) throw new DomainError('refund_not_found', { param: 'refund_id' })
  const result = await moveCharge(deps, { id: refund.charge_id }, {
    event: async (store) => {
      const live = (await store.payouts.listForRefunds([refund.id])).some((payout) => isLive(payout.status))
      if (live) throw new DomainError('refund_payout_in_progress')
      return { kind: 'refund_paid' }
    },
    context: { actor: payment.actor, refundReference: payment.reference },
    after: (store, before, after, now) =>
      store.audit.record({ actor: payment.actor, action: 'refund.paid', subject: `refund:${refund.id}`, details: { note: payment.note, reference: payment.reference, payment_id: before.id, status: after.status }, at: now }),
  })
  if (result.kind === 'refused') throw new DomainError(result.code)
  if (result.kind !== 'moved') throw new DomainError('refund_not_owed')
  return (await deps.store.refunds.findById(refund.id))!
}
