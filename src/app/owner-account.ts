// The signed-in owner's own account in the Wallet: read for what its pages show (e-mail, tax
// number, time zone), and the settings the owner changes there (the language mail follows, the
// name payers see, sale notices, the time zone the money views read their dates in).
import { DomainError } from '../domain/errors.ts'
import type { Account } from '../store/schema.ts'
import type { Store } from '../store/store.ts'

/** The owner's account; a session names only an account that exists (accounts are never deleted). */
export async function ownerAccount(deps: { store: Store }, accountId: number): Promise<Account> {
  const account = await deps.store.accounts.findById(accountId)
  if (!account) throw new DomainError('account_not_found')
  return account
}

/** Mail sent while the owner is away follows the language they last read the Wallet in. */
export function setOwnerLanguage(deps: { store: Store }, accountId: number, lang: 'pt-BR' | 'en'): Promise<void> {
  return deps.store.accounts.setLanguage(accountId, lang)
}

/** The settings form: the name payers see on the account's public pages (null shows none), and whether every sale is mailed. */
export async function saveOwnerSettings(deps: { store: Store }, accountId: number, settings: { displayName: string | null; notifySales: boolean }): Promise<void> {
  await deps.store.accounts.setDisplayName(accountId, settings.displayName)
  await deps.store.accounts.setNotifySales(accountId, settings.notifySales)
}

/** `zone`: an IANA zone the caller checked. */
export async function setOwnerTimeZone(deps: { store: Store }, accountId: number, zone: string): Promise<void> {
  await deps.store.accounts.update(accountId, { time_zone: zone })
}
