// An account owner registers with their own CPF/CNPJ. With a confirmed purchase paid with that
// tax number the provider returned their EUID: the account is identified and may issue tokens.
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import type { AccountKyc } from '../domain/payer-binding.ts'
import type { Account } from '../store/schema.ts'
import type { Store } from '../store/store.ts'

export type OpenAccountRequest = {
  email: string
  taxNumber: string
  name: string | null
  kyc: AccountKyc
  /** The EUID the provider returned for the owner's own purchase; required when kyc is verified. */
  euid: string | null
}

export async function openAccount(deps: { store: Store; clock: Clock }, request: OpenAccountRequest): Promise<Account> {
  if (request.kyc === 'verified' && request.euid === null) throw new Error('a verified account needs its EUID')
  const now = deps.clock.now()
  return deps.store.transaction(async (store) => {
    const existing = await store.accounts.ensure(request.email, now)
    const account = await store.accounts.lockById(existing.id)
    if (!account) throw new DomainError('account_not_found')
    if (account.owner_tax_number !== null && account.owner_tax_number !== request.taxNumber) {
      throw new DomainError('account_exists')
    }
    const identities: Array<['tax_number' | 'euid', string]> = [['tax_number', request.taxNumber]]
    if (request.kyc === 'verified' && request.euid !== null) identities.push(['euid', request.euid])
    for (const [kind, value] of identities) {
      const owner = await store.identities.boundAccount(kind, value)
      if (owner !== undefined && owner !== account.id) {
        throw new DomainError('identity_taken', { param: kind === 'euid' ? 'euid' : 'tax_number' })
      }
    }
    await store.identities.bind(identities.map(([kind, value]) => ({ kind, value })), account.id, now)
    return store.accounts.update(account.id, {
      owner_tax_number: request.taxNumber,
      owner_name: request.name,
      kyc: request.kyc,
      euid: request.kyc === 'verified' ? request.euid : account.euid,
    })
  })
}
