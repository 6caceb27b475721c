// What keeps an account from taking money out (docs/treasury.md, "Payouts"), read the
// same way wherever money is about to leave: the owner's confirm, an API withdrawal, support's
// approval, and the worker's start of a send. One list, so none of them knows less than another.
import { currencies } from '../domain/money.ts'
import type { Account } from '../store/schema.ts'
import type { Balances } from '../store/ledger.ts'
import type { Store } from '../store/store.ts'

export type WithdrawalBlocker =
  /** No confirmed identity (EUID) yet. */
  | 'no_identity'
  /** A MED not wholly taken back within its window, or a claw-back support has not reviewed. */
  | 'open_med'
  /** A currency of the account is below zero (a MED or a provider refund took more than was left). */
  | 'balance_below_zero'

/** A MED may come up to about 90 days after a payment: a partial one keeps the account from withdrawing that long. */
const MED_WINDOW_MS = 90 * 24 * 3_600_000

/** Whether the account may withdraw now: nothing above holds it back. */
export async function mayWithdraw(store: Store, account: Account, now: Date): Promise<boolean> {
  return (await withdrawalBlockers(store, account, now)).length === 0
}

export async function withdrawalBlockers(store: Store, account: Account, now: Date): Promise<WithdrawalBlocker[]> {
  const { blockingCharges, available } = await store.charges.withdrawalFacts(account.id, new Date(now.getTime() - MED_WINDOW_MS))
  return blockersOf(account, blockingCharges, available)
}

/** The same for several accounts, in two reads whatever their number, with the balances they were judged on. */
export async function withdrawalBlockersOf(store: Store, accounts: readonly Account[], now: Date): Promise<Map<number, { available: Balances; blockers: WithdrawalBlocker[] }>> {
  const ids = accounts.map((account) => account.id)
  const [blocking, balances] = await Promise.all([store.charges.blockingChargesOf(ids, new Date(now.getTime() - MED_WINDOW_MS)), store.ledger.balancesOf(ids, 'available')])
  return new Map(accounts.map((account) => {
    const available = balances.get(account.id)!
    return [account.id, { available, blockers: blockersOf(account, blocking.get(account.id) ?? 0, available) }]
  }))
}

function blockersOf(account: Account, blockingCharges: number, available: Balances): WithdrawalBlocker[] {
  const blockers: WithdrawalBlocker[] = []
  if (account.kyc !== 'verified' || account.euid === null) blockers.push('no_identity')
  if (blockingCharges > 0) blockers.push('open_med')
  if (currencies.some((currency) => available[currency] < 0)) blockers.push('balance_below_zero')
  return blockers
}
