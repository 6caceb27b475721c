// "Novo Token" (docs/rules.md#tokens): a random token shown once, stored hashed, active at once
// with the account's EUID as merchantId; it revokes the previous token. Earlier-revision kinds
// exist for the sandbox so integrators can meet token_pending and merchant_id_missing.
import { randomBytes } from 'node:crypto'
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import { hashToken } from '../secrets/token-hash.ts'
import type { Store } from '../store/store.ts'
import type { TokenCache } from '../store/token-cache.ts'

export type TokenKind = 'current' | 'pending' | 'no_merchant_id'

export type IssuedToken = { token: string; tokenId: string; merchantId: string | null }

export async function issueToken(
  deps: { store: Store; clock: Clock; tokenCache?: TokenCache },
  request: { accountId: number; kind?: TokenKind; expiresAt?: Date | null },
): Promise<IssuedToken> {
  const kind = request.kind ?? 'current'
  const now = deps.clock.now()
  const issued = await deps.store.transaction(async (store) => {
    const account = await store.accounts.lockById(request.accountId)
    if (!account) throw new DomainError('account_not_found')
    if (kind === 'current') {
      if (account.kyc === 'none') throw new DomainError('kyc_purchase_required')
      if (account.kyc === 'unidentified' || account.euid === null) throw new DomainError('kyc_identity_unidentified')
    }
    const token = `pxt_${randomBytes(32).toString('base64url')}`
    const tokenId = `tok_${randomBytes(12).toString('hex')}`
    const merchantId = kind === 'current' ? account.euid : null
    await store.tokens.revokeAllOf(account.id, now)
    await store.tokens.insert({
      id: tokenId,
      account_id: account.id,
      token_hash: hashToken(token),
      status: kind === 'pending' ? 'pending' : 'active',
      merchant_id: merchantId,
      expires_at: request.expiresAt ?? null,
      created_at: now,
      last4: token.slice(-4),
    })
    return { token, tokenId, merchantId, accountId: account.id }
  })
  deps.tokenCache?.forgetAccount(issued.accountId)
  return { token: issued.token, tokenId: issued.tokenId, merchantId: issued.merchantId }
}
