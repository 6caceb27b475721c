// The Wallet's front page of a signed-in owner: the account's settings and identity, its balances,
// and what may be said of its current API token (never its value).
import { DomainError } from '../domain/errors.ts'
import type { Store } from '../store/store.ts'

export type Overview = {
  email: string
  displayName: string | null
  /** Mail the owner about every charge paid, held or released. */
  notifySales: boolean
  ownerTaxNumber: string | null
  kyc: 'none' | 'unidentified' | 'verified'
  euid: string | null
  available: { DEPIX: number; BTC: number; USDt: number }
  held: { DEPIX: number; BTC: number; USDt: number }
  token: { last4: string | null; createdAt: Date; lastUsedAt: Date | null } | null
}

export async function accountOverview(deps: { store: Store }, accountId: number): Promise<Overview> {
  const account = await deps.store.accounts.findById(accountId)
  if (!account) throw new DomainError('account_not_found')
  const token = await deps.store.tokens.liveOf(accountId)
  return {
    email: account.email,
    displayName: account.display_name,
    notifySales: account.notify_sales,
    ownerTaxNumber: account.owner_tax_number,
    kyc: account.kyc,
    euid: account.euid,
    available: await deps.store.ledger.balances(accountId, 'available'),
    held: await deps.store.ledger.balances(accountId, 'held'),
    token: token ? { last4: token.last4, createdAt: token.created_at, lastUsedAt: token.last_used_at } : null,
  }
}
