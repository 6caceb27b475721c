// A short-lived, in-process memory of token rows by hash, so a busy merchant does not cost a
// database round trip per request. Revocation is immediate on the instance that issued the new
// token (it calls forgetAccount) and takes at most `ttlMs` on the others. ttlMs = 0 disables it.
import type { TokenWithEmail } from './tokens.ts'

const MAX_ENTRIES = 10_000

export type TokenCache = {
  get(tokenHash: string): TokenWithEmail | undefined
  set(token: TokenWithEmail): void
  forgetAccount(accountId: number): void
}

export function createTokenCache(ttlMs: number, monotonicNow: () => number = () => performance.now()): TokenCache {
  const entries = new Map<string, { token: TokenWithEmail; until: number }>()
  return {
    get(tokenHash) {
      const entry = entries.get(tokenHash)
      if (!entry) return undefined
      if (entry.until <= monotonicNow()) {
        entries.delete(tokenHash)
        return undefined
      }
      return entry.token
    },
    set(token) {
      if (ttlMs <= 0) return
      if (entries.size >= MAX_ENTRIES) entries.clear()
      entries.set(token.token_hash, { token, until: monotonicNow() + ttlMs })
    },
    forgetAccount(accountId) {
      for (const [hash, entry] of entries) if (entry.token.account_id === accountId) entries.delete(hash)
    },
  }
}
