// Support pays a refund owed by a Pix-out from the treasury (docs/treasury.md, "Refunds owed"), to
// the payer's own CPF/CNPJ key: the one key we know belongs to the payer's tax number without
// taking anyone's word for it (a payer with no such key is paid outside the service and support
// records it). The order is an ordinary payout owned by the refund, written with its sending job
// in one transaction; the worker (send-payout.ts) pays. Support also decides a payout of a refund
// that waits in review or whose Pix failed after our DePix left, and of a merchant's refund that
// waits in review (docs/rules.md#merchant-refund-limits).
import type { Clock } from '../clock.ts'
import { DomainError, type ErrorCode } from '../domain/errors.ts'
import type { PayoutRefusal } from '../domain/payout.ts'
import { refundPixOutRefusal } from '../domain/refund-payout.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { Payout } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import type { Treasury } from '../treasury/treasury.ts'
import { movePayout, openPayout, ownerOf, PayoutInProgressError } from './move-money-out.ts'

type Deps = { store: Store; clock: Clock; mailSeal: MailSeal; baseUrl: string }

export async function payRefundByPix(deps: Deps, order: { refundId: string; note: string; actor: string }): Promise<Payout> {
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
    let payout: Payout
    try {
      payout = await openPayout(store, now, {
        owner: { refundId: refund.id }, currency: 'DEPIX', amount: refund.owed_cents, createdBy: order.actor, note: order.note,
        to: { rail: 'pix', pixKey: refund.payer_tax_number, taxNumber: refund.payer_tax_number },
      })
    } catch (error) {
      if (error instanceof PayoutInProgressError) throw new DomainError('refund_payout_in_progress')
      throw error
    }
    await store.audit.record({ actor: order.actor, action: 'refund.payout_ordered', subject: `refund:${refund.id}`, details: { note: order.note, refund_payout_id: payout.id, amount_cents: payout.amount, payment_id: refund.charge_id }, at: now })
    return payout
  })
}

/** What support is told when a refund payout's state machine refuses its word. */
const refusalCodes: Record<PayoutRefusal, ErrorCode> = {
  payout_not_in_review: 'refund_payout_not_in_review',
  payout_signed: 'refund_payout_signed',
  payout_mismatch_unpayable: 'payout_mismatch_unpayable',
  owner_no_longer_wants: 'refund_not_owed',
  account_not_allowed: 'refund_payout_not_in_review',
}

/**
 * Support's word on a refund's payout: `retry` sends it again and `new_payout` asks the provider
 * anew (both only while the refund, re-read under its lock, still owes this payout's amount);
 * `abandon` ends it while nothing left (the refund stays owed); `returned` records that the DePix
 * came back after the provider failed the Pix, so the refund is owed again.
 */
export async function reviewRefundPayout(deps: Deps & { treasury: Treasury }, review: { refundPayoutId: string; decision: 'retry' | 'abandon' | 'new_payout' | 'returned'; note: string; actor: string }): Promise<Payout> {
  const found = await deps.store.payouts.findById(review.refundPayoutId)
  if (!found || found.withdrawal_id !== null) throw new DomainError('refund_payout_not_found', { param: 'refund_payout_id' })
  // A signed transaction is abandoned only once the node says it can never pay (asked without broadcasting it).
  const transactionDead = review.decision === 'abandon' && found.tx_hex !== null && found.txid !== null
    && (await deps.treasury.transactionDead({ hex: found.tx_hex, txid: found.txid }))
  const result = await movePayout(deps, found.id, {
    event: ({ payout, owner }) => {
      const refund = owner?.kind === 'refund' ? owner.refund : undefined
      // A merchant's refund wants its payout while it is pending (docs/rules.md#merchant-refund-statuses).
      const ownerWants = owner?.kind === 'merchant_refund' ? owner.refund?.status === 'pending'
        : refund !== undefined && refund.status === 'owed' && refund.owed_cents >= payout.amount
      switch (review.decision) {
        case 'retry':
          return { kind: 'retry', ownerWants, accountAllowed: true }
        case 'new_payout':
          return { kind: 'new_payout', ownerWants }
        case 'abandon':
          return { kind: 'reject', abandoned: true, transactionDead: transactionDead && payout.tx_hex === found.tx_hex }
        case 'returned':
          // Settled when it completed: a refund paid and then returned is support's to pay again by hand.
          // A merchant's refund left the account's books when it was sent: one that comes back is support's to settle by hand.
          return { kind: 'returned', ownerTakesBack: payout.status === 'sent' && owner?.kind === 'refund' }
      }
    },
    after: (store, before, after, now) =>
      store.audit.record({
        actor: review.actor, action: `refund.payout_${review.decision}`, subject: after.refund_id !== null ? `refund:${after.refund_id}` : `merchant_refund:${after.merchant_refund_id}`,
        details: { note: review.note, refund_payout_id: after.id, review_reason: before.review_reason, ...(review.decision === 'new_payout' ? { replaced_provider_payout: before.provider_withdrawal_id } : {}) }, at: now,
      }),
  })
  if (result.kind === 'not_found') throw new DomainError('refund_payout_not_found', { param: 'refund_payout_id' })
  if (result.kind === 'refused') throw new DomainError(refusalCodes[result.code])
  // A new provider payout is a new payout of the refund: that is the one support follows now.
  return review.decision === 'new_payout' ? (await deps.store.payouts.latestOf(ownerOf(found)))! : result.payout
}
