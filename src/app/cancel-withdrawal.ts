// The owner (or support) stops a withdrawal until money may have left (docs/rules.md#withdrawal-requests).
import { DomainError } from '../domain/errors.ts'
import { isLive } from '../domain/payout.ts'
import type { Withdrawal } from '../store/schema.ts'
import { moveWithdrawal, type WithdrawalDeps } from './move-money-out.ts'

/** A reserved amount goes back to available. */
export async function cancelWithdrawal(deps: WithdrawalDeps, request: { accountId: number; withdrawalId: string; actor: string }): Promise<Withdrawal> {
  const result = await moveWithdrawal(deps, request.withdrawalId, {
    event: async (store, withdrawal) => {
      if (withdrawal.account_id !== request.accountId) return null
      // A signed transaction is stored for it: it may still be broadcast and pay. Read under the
      // payout's lock, after the withdrawal's (the order every move takes them in).
      const newest = await store.payouts.latestOf({ withdrawalId: withdrawal.id })
      const payout = newest ? await store.payouts.lockById(newest.id) : undefined
      return { kind: 'cancel', signed: payout !== undefined && isLive(payout.status) && payout.tx_hex !== null }
    },
    after: (store, before, after, now) => store.audit.record({ actor: request.actor, action: 'withdrawal.cancel', subject: after.id, details: { from: before.status }, at: now }),
  })
  if (result.kind === 'moved') return result.withdrawal
  if (result.kind === 'refused') throw new DomainError(result.code)
  throw new DomainError('withdrawal_not_found')
}
