import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createTokenCache } from '../../src/store/token-cache.ts'
import type { TokenWithEmail } from '../../src/store/tokens.ts'

const token = (hash: string, accountId: number): TokenWithEmail => ({
  id: `tok_${hash}`, account_id: accountId, email: `account${accountId}@example.com`, token_hash: hash, status: 'active', merchant_id: 'EU000000000000001',
  expires_at: null, created_at: new Date(0), revoked_at: null, last4: null, last_used_at: null,
})

test('a cached token lives ttl milliseconds, then is read again from the database', () => {
  let now = 0
  const cache = createTokenCache(1000, () => now)
  cache.set(token('a', 1))
  assert.equal(cache.get('a')?.id, 'tok_a')
  now = 999
  assert.equal(cache.get('a')?.id, 'tok_a')
  now = 1000
  assert.equal(cache.get('a'), undefined)
})

test('issuing a token forgets every cached token of that account at once', () => {
  const cache = createTokenCache(60_000, () => 0)
  cache.set(token('a', 1))
  cache.set(token('b', 2))
  cache.forgetAccount(1)
  assert.equal(cache.get('a'), undefined)
  assert.equal(cache.get('b')?.id, 'tok_b')
})

test('ttl 0 disables the cache', () => {
  const cache = createTokenCache(0, () => 0)
  cache.set(token('a', 1))
  assert.equal(cache.get('a'), undefined)
})
