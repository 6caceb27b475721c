// The owner confirms a withdrawal asked for in the Wallet with the e-mail code bound to its amount
// and destination (docs/rules.md#withdrawal-requests); a withdrawal made through the API is
// confirmed as it is made with the same event (request-withdrawal.ts).
import { DomainError } from '../domain/errors.ts'
import { accountHolder } from '../domain/second-factor.ts'
import { limitDecision, type WithdrawalLimits } from '../domain/withdrawal.ts'
import type { Withdrawal } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { confirmingWithCode, useActionCode } from './action-codes.ts'
import { moveLockedWithdrawal, type moveWithdrawal, type WithdrawalDeps } from './move-money-out.ts'
import { mayWithdraw } from './withdrawal-blockers.ts'
import { requireStepUp, type StepUpProof } from './second-factors.ts'

export type ConfirmWithdrawalDeps = WithdrawalDeps & { limits: WithdrawalLimits }

const DAY_MS = 24 * 3_600_000

/** The code's subject: the withdrawal with its amount and destination, so a code confirms exactly this. */
export const withdrawalCodeSubject = (withdrawal: Pick<Withdrawal, 'id' | 'currency' | 'amount' | 'destination_id'>) => `${withdrawal.id}:${withdrawal.currency}:${withdrawal.amount}:${withdrawal.destination_id}`

/**
 * The confirm event with its facts, read under the account's lock: what is available now, whether
 * the account may withdraw, and whether the rolling limits or the review threshold send it to support.
 */
export function confirmEvent(deps: ConfirmWithdrawalDeps) {
  return async (store: Store, withdrawal: Withdrawal, now: Date) => {
    const account = (await store.accounts.findById(withdrawal.account_id))!
    const used = {
      last24hCents: await store.withdrawals.brlCentsSince(account.id, new Date(now.getTime() - DAY_MS)),
      last30dCents: await store.withdrawals.brlCentsSince(account.id, new Date(now.getTime() - 30 * DAY_MS)),
    }
    const limit = limitDecision(withdrawal.brl_cents, used, deps.limits)
    const available = (await store.ledger.balances(account.id, 'available'))[withdrawal.currency]
    return { kind: 'confirm' as const, available, allowed: await mayWithdraw(store, account, now), review: 'review' in limit ? limit.review : 'over_threshold' as const }
  }
}

export const withdrawalRefusal = (result: Awaited<ReturnType<typeof moveWithdrawal>>): never => {
  if (result.kind === 'refused') throw new DomainError(result.code)
  throw new DomainError('withdrawal_not_found')
}

/** The owner's code for this withdrawal, with its amount and destination: the amount is reserved and the withdrawal queued (or sent for review). */
export async function confirmWithdrawal(deps: ConfirmWithdrawalDeps, request: { accountId: number; withdrawalId: string; code: string; stepUp?: StepUpProof }): Promise<Withdrawal> {
  const result = await confirmingWithCode(deps.store, async (store) => {
    const locked = await store.withdrawals.lockById(request.withdrawalId)
    if (!locked || locked.account_id !== request.accountId) return { kind: 'not_found' as const }
    if (locked.status !== 'requested') return { kind: 'unchanged' as const, withdrawal: locked }
    // Canceled since it was asked for (the link in its e-mail): the code no longer sends money there.
    if ((await store.withdrawals.lockDestination(locked.destination_id))?.state !== 'confirmed') throw new DomainError('destination_canceled', { param: 'destination_id' })
    const account = (await store.accounts.findById(locked.account_id))!
    // An owner with a second factor checked it within 5 minutes (docs/design.md, "Second factors").
    await requireStepUp(store, { holder: accountHolder(account.id), checkedAt: request.stepUp?.checkedAt, now: deps.clock.now() })
    await useActionCode(store, { email: account.email, purpose: 'withdrawal', subject: withdrawalCodeSubject(locked), code: request.code, now: deps.clock.now() })
    return moveLockedWithdrawal({ ...deps, store }, locked, { event: confirmEvent(deps) })
  })
  if (result.kind === 'moved' || result.kind === 'unchanged') return result.withdrawal
  return withdrawalRefusal(result)
}
