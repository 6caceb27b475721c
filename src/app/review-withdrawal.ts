// Support decides a withdrawal waiting for review (docs/treasury.md, "Payouts"). Before its payout
// opened (held by the account's limits), approve opens it, knowing what the owner's confirm knows,
// and reject gives the amount back. Once its payout is open, support's word is the payout's:
// approve sends it again (refused while the account may not withdraw, and never for a provider
// reply that asked another amount), new_payout asks the provider anew, reject ends it while
// nothing left (a stored signed transaction only once the node says its coins are spent
// elsewhere), returned records that what was sent came back; the withdrawal follows.
import { DomainError, type ErrorCode } from '../domain/errors.ts'
import { isLive, type PayoutEvent, type PayoutRefusal } from '../domain/payout.ts'
import type { Withdrawal } from '../store/schema.ts'
import type { Treasury } from '../treasury/treasury.ts'
import { movePayout, moveWithdrawal, type WithdrawalDeps } from './move-money-out.ts'
import { mayWithdraw } from './withdrawal-blockers.ts'

export type WithdrawalReview = { withdrawalId: string; decision: 'approve' | 'reject' | 'returned' | 'new_payout'; actor: string; note: string }

/** What support is told when the payout's state machine refuses its word, in the withdrawal's codes. */
const refusalCodes: Record<PayoutRefusal, ErrorCode> = {
  payout_not_in_review: 'withdrawal_not_in_review',
  payout_signed: 'withdrawal_not_cancelable',
  payout_mismatch_unpayable: 'payout_mismatch_unpayable',
  owner_no_longer_wants: 'withdrawal_not_in_review',
  account_not_allowed: 'withdrawal_not_allowed',
}

export async function reviewWithdrawal(deps: WithdrawalDeps & { treasury: Treasury }, review: WithdrawalReview): Promise<Withdrawal> {
  const withdrawal = await deps.store.withdrawals.findById(review.withdrawalId)
  if (!withdrawal) throw new DomainError('withdrawal_not_found')
  const payout = await deps.store.payouts.latestOf({ withdrawalId: withdrawal.id })
  const audit = { actor: review.actor, action: `withdrawal.${review.decision}`, subject: withdrawal.id }
  if (payout && (isLive(payout.status) || review.decision === 'returned')) {
    // Asked without broadcasting: a check by broadcast would send the money support means to stop.
    const transactionDead = review.decision === 'reject' && payout.tx_hex !== null && payout.txid !== null
      && (await deps.treasury.transactionDead({ hex: payout.tx_hex, txid: payout.txid }))
    const result = await movePayout(deps, payout.id, {
      event: async ({ store, payout: current, owner, now }): Promise<PayoutEvent> => {
        const locked = owner?.kind === 'withdrawal' ? owner.locked : null
        switch (review.decision) {
          case 'approve':
            return { kind: 'retry', ownerWants: locked?.withdrawal.status === 'in_review', accountAllowed: locked !== null && (await mayWithdraw(store, locked.account, now)) }
          case 'new_payout':
            return { kind: 'new_payout', ownerWants: locked?.withdrawal.status === 'in_review' }
          case 'reject':
            return { kind: 'reject', abandoned: false, transactionDead: transactionDead && current.tx_hex === payout.tx_hex }
          case 'returned':
            return { kind: 'returned', ownerTakesBack: true }
        }
      },
      after: (store, before, _after, now) => store.audit.record({
        ...audit, details: { from: withdrawal.status, note: review.note, payout_id: before.id, ...(review.decision === 'new_payout' ? { replaced_provider_payout: before.provider_withdrawal_id } : {}) }, at: now,
      }),
    })
    if (result.kind === 'refused') throw new DomainError(refusalCodes[result.code])
    if (result.kind === 'not_found') throw new DomainError('withdrawal_not_found')
    return (await deps.store.withdrawals.findById(withdrawal.id))!
  }
  if (review.decision === 'returned') throw new DomainError('withdrawal_not_cancelable')
  if (review.decision === 'new_payout') throw new DomainError('withdrawal_not_in_review')
  const result = await moveWithdrawal(deps, withdrawal.id, {
    // Support's approval knows what the owner's confirm knows (withdrawal-blockers.ts).
    event: async (store, current, now) => (review.decision === 'approve' ? { kind: 'approve', allowed: await mayWithdraw(store, (await store.accounts.findById(current.account_id))!, now) } : { kind: 'reject' }),
    after: (store, before, _after, now) => store.audit.record({ ...audit, details: { from: before.status, note: review.note }, at: now }),
  })
  if (result.kind === 'moved') return result.withdrawal
  if (result.kind === 'refused') throw new DomainError(result.code)
  throw new DomainError('withdrawal_not_found')
}
