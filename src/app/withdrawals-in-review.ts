// The withdrawals waiting for support, oldest first, as /ops and the console both show them: each
// with its account's e-mail, balances and what keeps it from withdrawing, so support approves
// knowing what the owner's confirm would know (docs/treasury.md, "Payouts").
import type { Clock } from '../clock.ts'
import type { Currency } from '../domain/money.ts'
import type { RowKey } from '../store/keyset.ts'
import type { Withdrawal } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { withdrawalBlockersOf, type WithdrawalBlocker } from './withdrawal-blockers.ts'

export type WithdrawalInReview = Withdrawal & { email: string | null; balances: Record<Currency, number> | null; blockers: WithdrawalBlocker[] }

export async function withdrawalsInReview(deps: { store: Store; clock: Clock }, page: { after: RowKey | null; limit: number }): Promise<WithdrawalInReview[]> {
  const rows = await deps.store.console.withdrawalsInReview(page)
  const accounts = await deps.store.accounts.findByIds([...new Set(rows.map((row) => row.account_id))])
  // Each account read once for the page, not once per row.
  const byAccount = new Map(accounts.map((account) => [account.id, account]))
  const judged = await withdrawalBlockersOf(deps.store, accounts, deps.clock.now())
  return rows.map((row) => {
    const account = byAccount.get(row.account_id)
    const facts = account ? judged.get(account.id)! : null
    return { ...row, email: account?.email ?? null, balances: facts?.available ?? null, blockers: facts?.blockers ?? [] }
  })
}
