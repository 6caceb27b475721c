// The worker that pays a refund owed by Pix-out, run by the send_refund_payout job: the payer's
// own CPF/CNPJ key receives all that is owed (we ask the provider for that payout and send it the
// DePix it asks, its fee included, from the treasury), by the same steps as an owner's withdrawal
// (treasury-payout.ts), so it is paid once whatever crashes. When the provider says the Pix
// left, the refund is settled through the charge's state machine (the charge becomes `refunded`)
// and the provider's fee is posted as the service's cost, in one transaction.
import { refundPayoutFits, refundPayoutMaxDeposit } from '../domain/refund-payout.ts'
import { networkFeePosting, refundPayoutFeePosting } from '../domain/ledger.ts'
import type { ProviderPayout } from '../domain/provider-report.ts'
import type { PayoutStep } from '../store/payout-steps.ts'
import type { RefundPayout } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import type { Clock } from '../clock.ts'
import { moveCharge } from './move-charge.ts'
import { moveLockedRefundPayout, moveRefundPayout } from './move-refund-payout.ts'
import { applyProviderPayout, followPayout, sendPayout, treasuryCovers, type Payout, type PayoutDeps } from './treasury-payout.ts'

type Deps = { store: Store; clock: Clock; log?: PayoutDeps['log'] }

/** Runs what is next for the refund payout; answers when to look again, or null when there is nothing more to do. */
export async function sendRefundPayout(deps: PayoutDeps & { store: Store }, id: string): Promise<Date | null> {
  const payout = await deps.store.refundPayouts.findById(id)
  if (!payout) return null
  if (payout.status === 'sending') {
    // Until a transaction is signed, every run re-reads the obligation under the refund's lock: a
    // refund settled meanwhile (a MED, an outside payment) is never paid a second time.
    if (payout.tx_hex === null && !(await stillOwed(deps, payout))) return null
    // Before anything is asked of the provider: a payout the treasury cannot cover waits for support.
    if (payout.provider_nonce === null && !(await treasuryCovers(deps, 'DEPIX', refundPayoutMaxDeposit(payout.amount_cents)))) {
      await hooks(deps, payout).hold('treasury_insufficient')
      return null
    }
    return sendPayout(deps, payoutOf(deps, payout))
  }
  if (payout.status === 'sent') return followPayout(deps, payoutOf(deps, payout))
  return null
}

/** Whether the refund still owes this payout's amount; if not, the payout fails (nothing has left) and false. */
async function stillOwed(deps: Deps, payout: RefundPayout): Promise<boolean> {
  return deps.store.transaction(async (store) => {
    const refund = await store.refunds.findById(payout.refund_id)
    if (refund) await store.charges.lockById(refund.charge_id)
    const owed = await store.refunds.lockById(payout.refund_id)
    if (owed !== undefined && owed.status === 'owed' && owed.owed_cents >= payout.amount_cents) return true
    deps.log?.warn({ refundPayoutId: payout.id, refundId: payout.refund_id }, 'the refund was settled otherwise before its payout was sent; nothing sent')
    await moveLockedRefundPayout({ store, clock: deps.clock }, payout.id, { event: () => ({ kind: 'fail', code: 'refund_settled' }) })
    return false
  })
}

function payoutOf(deps: Deps, payout: RefundPayout): Payout<RefundPayout> {
  return {
    ...hooks(deps, payout),
    currency: 'DEPIX',
    to: {
      kind: 'pix',
      request: async () => ({ pixKey: payout.pix_key, taxNumber: payout.tax_number, payoutAmountInCents: payout.amount_cents }),
      fits: (answer) => refundPayoutFits(payout.amount_cents, answer),
    },
  }
}

function hooks(deps: Deps, payout: RefundPayout): Omit<Payout<RefundPayout>, 'currency' | 'to'> {
  return {
    row: payout,
    storeStep: (values) => deps.store.refundPayouts.storeStep(payout.id, values),
    forgetNonce: (nonce) => deps.store.refundPayouts.forgetNonce(payout.id, nonce),
    hold: async (reason) => {
      deps.log?.warn({ refundPayoutId: payout.id, reason }, 'refund payout held for support')
      await moveRefundPayout(deps, payout.id, { event: () => ({ kind: 'hold', reason }) })
    },
    fail: async (code) => {
      await moveRefundPayout(deps, payout.id, { event: () => ({ kind: 'fail', code }) })
    },
    sent: async () => {
      await moveRefundPayout(deps, payout.id, {
        event: (current) => (current.status === 'sending' ? { kind: 'sent' } : null),
        // The transaction left: the network fee it paid is the service's, counted on the refund.
        after: async (store, _before, after, now) => {
          const fee = after.network_fee_sats ?? 0
          if (fee <= 0) return
          const refund = await store.refunds.lockById(after.refund_id)
          if (refund && (await store.ledger.post(networkFeePosting({ id: after.id, feeSats: fee }), refund.charge_id, now))) {
            await store.refunds.update(refund.id, { network_fee_sats: refund.network_fee_sats + fee })
          }
        },
      })
    },
    completed: (record) => completeRefundPayout(deps, payout, record),
  }
}

/**
 * The Pix reached the payer: the payout is completed and, in the same transaction (charge locks
 * first, as every charge move takes them), the refund is settled as paid by us and the provider's
 * fee posted. A refund the provider had meanwhile settled itself (a MED took the money back) was
 * paid twice: the payout completes all the same, and the error is logged and audited for support.
 */
async function completeRefundPayout(deps: Deps, payout: RefundPayout, record: PayoutStep): Promise<void> {
  const refund = await deps.store.refunds.findById(payout.refund_id)
  if (!refund) throw new Error(`refund payout ${payout.id} has no refund`)
  const complete = (store: Store) => moveLockedRefundPayout({ store, clock: deps.clock }, payout.id, {
    event: (current) => (current.status === 'sent' ? { kind: 'completed' } : null),
    record,
    after: async (store, _before, after, now) => {
      const fee = (after.provider_deposit_cents ?? after.amount_cents) - after.amount_cents
      if (fee > 0 && (await store.ledger.post(refundPayoutFeePosting({ id: after.id, feeCents: fee }), refund.charge_id, now))) {
        await store.refunds.update(refund.id, { payout_fee_cents: refund.payout_fee_cents + fee })
      }
    },
  })
  let completed = false
  const result = await moveCharge(deps, { id: refund.charge_id }, {
    event: async (store) => {
      const current = await store.refundPayouts.lockById(payout.id)
      return current?.status === 'sent' ? { kind: 'refund_paid' } : null
    },
    context: { actor: payout.created_by, refundReference: `pix-out ${payout.provider_withdrawal_id}` },
    after: async (store, before, after, now) => {
      completed = (await complete(store)).kind === 'moved'
      await store.audit.record({ actor: payout.created_by, action: 'refund.paid', subject: `refund:${refund.id}`, details: { refund_payout_id: payout.id, provider_withdrawal_id: payout.provider_withdrawal_id, payment_id: before.id, status: after.status }, at: now })
    },
  })
  if (completed || result.kind !== 'refused') return
  deps.log?.error({ refundPayoutId: payout.id, refundId: refund.id, code: result.code }, 'a refund was paid by Pix after it had been settled otherwise: the payer was paid twice')
  await deps.store.transaction(async (store) => {
    const done = await complete(store)
    if (done.kind === 'moved') await store.audit.record({ actor: 'service', action: 'refund.paid_twice', subject: `refund:${refund.id}`, details: { refund_payout_id: payout.id, code: result.code }, at: deps.clock.now() })
  })
}

/** The provider's withdraw webhook for a refund payout: false when the payout is not a refund's. */
export async function applyRefundPayoutReport(deps: Deps, answer: ProviderPayout): Promise<boolean> {
  const payout = await deps.store.refundPayouts.findByProviderWithdrawalId(answer.withdrawalId)
  if (!payout) return false
  await applyProviderPayout(hooks(deps, payout), answer)
  return true
}
