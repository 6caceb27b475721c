// The worker that pays a withdrawal, run by the send_withdrawal job; a request never sends money.
// The steps toward the treasury and the provider, and why each is written before the next, are
// treasury-payout.ts's; here is what they mean for a withdrawal: a hold or a failure moves it
// through its state machine (a failure gives the amount back), "sent" settles it, and the owner
// hears of each change.
import type { FailureCode, ReviewReason } from '../domain/withdrawal.ts'
import type { ProviderPayout } from '../domain/provider-report.ts'
import type { Withdrawal } from '../store/schema.ts'
import { moveWithdrawal, type WithdrawalDeps } from './move-withdrawal.ts'
import { withdrawalBlockers } from './withdrawal-blockers.ts'
import { applyProviderPayout, followPayout, sendPayout, treasuryCovers, type Payout, type PayoutDeps } from './treasury-payout.ts'

export type SendWithdrawalDeps = WithdrawalDeps & PayoutDeps

/** Runs what is next for the withdrawal; answers when to look again, or null when there is nothing more to do. */
export async function sendWithdrawal(deps: SendWithdrawalDeps, id: string): Promise<Date | null> {
  let withdrawal = await deps.store.withdrawals.findById(id)
  if (!withdrawal) return null
  if (withdrawal.status === 'confirmed') {
    if (!(await treasuryCovers(deps, withdrawal.currency, withdrawal.net_amount))) {
      await hold(deps, withdrawal, 'treasury_insufficient')
      return null
    }
    // The facts are read again in the transaction that starts the send, whoever queued it.
    const started = await moveWithdrawal(deps, id, {
      event: async (store, current, now) => {
        if (current.status !== 'confirmed') return null
        const account = (await store.accounts.findById(current.account_id))!
        const destination = await store.withdrawals.findDestination(current.destination_id, current.account_id)
        return { kind: 'start_sending', allowed: (await withdrawalBlockers(store, account, now)).length === 0, destinationActive: destination !== undefined && destination.state !== 'canceled' }
      },
    })
    if (started.kind !== 'moved') return null
    withdrawal = started.withdrawal
  }
  if (withdrawal.status === 'sending') return sendPayout(deps, await payoutOf(deps, withdrawal))
  if (withdrawal.status === 'sent') return followPayout(deps, await payoutOf(deps, withdrawal))
  return null
}

/** Nothing has left: support looks first. Only from confirmed or sending, as the state machine allows. */
async function hold(deps: WithdrawalDeps & Pick<PayoutDeps, 'log'>, withdrawal: Withdrawal, reason: ReviewReason): Promise<void> {
  deps.log?.warn({ withdrawalId: withdrawal.id, reason }, 'withdrawal held for support')
  await moveWithdrawal(deps, withdrawal.id, { event: async () => ({ kind: 'hold', reason }) })
}

/** Nothing has left and nothing will: the amount goes back to available. */
async function fail(deps: WithdrawalDeps, withdrawal: Withdrawal, code: FailureCode): Promise<void> {
  await moveWithdrawal(deps, withdrawal.id, { event: async (_store, current) => (current.tx_hex === null ? { kind: 'fail', code } : null) })
}

/** The withdrawal as the payout steps see it: to its destination, moved by its state machine. */
async function payoutOf(deps: SendWithdrawalDeps, withdrawal: Withdrawal): Promise<Payout<Withdrawal>> {
  const destination = await deps.store.withdrawals.findDestination(withdrawal.destination_id, withdrawal.account_id)
  if (!destination) throw new Error(`withdrawal ${withdrawal.id} has no destination`)
  return {
    ...hooks(deps, withdrawal),
    currency: withdrawal.currency,
    to: withdrawal.destination_type === 'pix'
      ? {
          kind: 'pix',
          request: async () => {
            const account = await deps.store.accounts.findById(withdrawal.account_id)
            if (!account?.owner_tax_number) throw new Error(`withdrawal ${withdrawal.id}: the account has no owner tax number`)
            return { pixKey: destination.value, taxNumber: account.owner_tax_number, depositAmountInCents: withdrawal.net_amount }
          },
          fits: (payout) => payout.depositAmountInCents === withdrawal.net_amount,
        }
      : { kind: 'liquid', address: destination.value, amount: withdrawal.net_amount },
  }
}

/** How the payout steps move a withdrawal: every change through its state machine. */
function hooks(deps: WithdrawalDeps, withdrawal: Withdrawal): Omit<Payout<Withdrawal>, 'currency' | 'to'> {
  return {
    row: withdrawal,
    storeStep: (values) => deps.store.withdrawals.storeStep(withdrawal.id, values),
    forgetNonce: (nonce) => deps.store.withdrawals.forgetNonce(withdrawal.id, nonce),
    hold: (reason) => hold(deps, withdrawal, reason),
    fail: (code) => fail(deps, withdrawal, code),
    sent: async () => {
      await moveWithdrawal(deps, withdrawal.id, { event: async (_store, current) => (current.status === 'sending' ? { kind: 'sent' } : null) })
    },
    completed: async (record) => {
      await moveWithdrawal(deps, withdrawal.id, { event: async (_store, current) => (current.status === 'sent' ? { kind: 'completed' } : null), record })
    },
  }
}

/** The provider's withdraw webhook: its payout object, applied to the withdrawal it belongs to; false when none does. */
export async function applyPayoutReport(deps: WithdrawalDeps, payout: ProviderPayout): Promise<boolean> {
  const withdrawal = await deps.store.withdrawals.findByProviderWithdrawalId(payout.withdrawalId)
  if (!withdrawal) return false
  await applyProviderPayout(hooks(deps, withdrawal), payout)
  return true
}
