// Support releases an account stuck at kyc_identity_unidentified by recording its EUID.
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import { isEuid } from '../domain/tax-number.ts'
import type { Store } from '../store/store.ts'

export async function assignIdentity(
  deps: { store: Store; clock: Clock },
  request: { email: string; euid: string; actor: string; note: string },
) {
  if (!isEuid(request.euid)) throw new DomainError('euid_invalid', { param: 'euid' })
  return deps.store.transaction(async (store) => {
    const found = await store.accounts.findByEmail(request.email)
    if (!found) throw new DomainError('account_not_found', { param: 'email' })
    const account = (await store.accounts.lockById(found.id))!
    const owner = await store.identities.boundAccount('euid', request.euid)
    if (owner !== undefined && owner !== account.id) throw new DomainError('identity_taken', { param: 'euid' })
    const now = deps.clock.now()
    await store.identities.bind([{ kind: 'euid', value: request.euid }], account.id, now)
    const updated = await store.accounts.update(account.id, { euid: request.euid, kyc: 'verified' })
    await store.audit.record({ actor: request.actor, action: 'account.identity', subject: `account:${account.email}`, details: { note: request.note, euid: request.euid, previous_kyc: account.kyc }, at: now })
    return { email: updated.email, euid: updated.euid, kyc: updated.kyc }
  })
}
