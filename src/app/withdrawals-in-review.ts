// The withdrawals waiting for support, oldest first, as /ops and the console both show them: each
// with its account's e-mail, balances and what keeps it from withdrawing, so support approves
// knowing what the owner's confirm would know (docs/treasury.md, "Payouts").
import type { Clock } from '../clock.ts'
import type { Currency } from '../domain/money.ts'
import type { Withdrawal } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { withdrawalBlockers, type WithdrawalBlocker } from './withdrawal-blockers.ts'

export type WithdrawalInReview = Withdrawal & { email: string | null; balances: Record<Currency, number> | null; blockers: WithdrawalBlocker[] }

export async function withdrawalsInReview(deps: { store: Store; clock: Clock }, page: { offset: number; limit: number }): Promise<WithdrawalInReview[]> {
  const rows = await deps.store.console.withdrawalsInReview(page)
  const accounts = new Map((await deps.store.accounts.findByIds([...new Set(rows.map((row) => row.account_id))])).map((account) => [account.id, account]))
  const now = deps.clock.now()
  return Promise.all(rows.map(async (row) => {
    const account = accounts.get(row.account_id)
    return {
      ...row,
      email: account?.email ?? null,
      balances: account ? await deps.store.ledger.balances(account.id, 'available') : null,
      blockers: account ? await withdrawalBlockers(deps.store, account, now) : [],
    }
  }))
}
