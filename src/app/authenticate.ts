// X-API-Token → the merchant behind it, with the error codes docs/rules.md#tokens lists.
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import type { Store } from '../store/store.ts'
import { hashToken } from '../secrets/token-hash.ts'
import type { TokenCache } from '../store/token-cache.ts'

export type Merchant = { accountId: number; email: string; tokenId: string; merchantId: string | null }

export async function authenticate(
  deps: { store: Store; clock: Clock; tokenCache?: TokenCache },
  rawToken: string | undefined,
): Promise<Merchant> {
  if (rawToken === undefined || rawToken.trim() === '') throw new DomainError('token_missing')
  const tokenHash = hashToken(rawToken.trim())
  let token = deps.tokenCache?.get(tokenHash)
  if (!token) {
    token = await deps.store.tokens.findByHash(tokenHash)
    if (token) {
      deps.tokenCache?.set(token)
      // "Last use" for the Wallet, refreshed when the token is read from the database.
      if (token.status === 'active') await deps.store.tokens.touchLastUsed(token, deps.clock.now())
    }
  }
  if (!token) throw new DomainError('token_not_found')
  const expired = token.expires_at !== null && token.expires_at.getTime() <= deps.clock.now().getTime()
  if (token.status === 'revoked' || expired) throw new DomainError('token_inactive')
  if (token.status === 'pending') throw new DomainError('token_pending')
  return { accountId: token.account_id, email: token.email, tokenId: token.id, merchantId: token.merchant_id }
}

/** Charging needs a merchantId (docs/rules.md#merchant-id): earlier-revision tokens without one are refused. */
export function requireMerchantId(merchant: Merchant): string {
  if (merchant.merchantId === null) throw new DomainError('merchant_id_missing')
  return merchant.merchantId
}
