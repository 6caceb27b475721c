// Earlier revision: support activates a pending token, assigning the account's EUID as merchantId.
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import type { Store } from '../store/store.ts'
import type { TokenCache } from '../store/token-cache.ts'

export async function activateToken(
  deps: { store: Store; clock: Clock; tokenCache?: TokenCache },
  request: { tokenId: string; actor: string; note: string },
) {
  const activated = await deps.store.transaction(async (store) => {
    const token = await store.tokens.findById(request.tokenId)
    if (!token) throw new DomainError('not_found', { param: 'token_id', message: 'No token with this id.' })
    if (token.status !== 'pending') throw new DomainError('token_not_pending')
    const account = await store.accounts.findById(token.account_id)
    if (!account?.euid) throw new DomainError('kyc_identity_unidentified')
    const updated = await store.tokens.activate(token.id, account.euid)
    if (!updated) throw new DomainError('token_not_pending')
    await store.audit.record({ actor: request.actor, action: 'token.activate', subject: `token:${token.id}`, details: { note: request.note, merchant_id: account.euid }, at: deps.clock.now() })
    return updated
  })
  deps.tokenCache?.forgetAccount(activated.account_id)
  return { token_id: activated.id, status: activated.status, merchant_id: activated.merchant_id }
}
