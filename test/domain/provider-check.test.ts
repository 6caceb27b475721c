import { test } from 'node:test'
import assert from 'node:assert/strict'
import { providerCheckDue, providerReadiness } from '../../src/domain/provider-check.ts'

const at = new Date('2026-11-22T12:00:00Z')
const later = (seconds: number) => new Date(at.getTime() + seconds * 1000)

test("the deployment's provider check: due after a minute, ready while it is ok and at most 5 minutes old", () => {
  assert.equal(providerCheckDue(null, at), true)
  const ok = { checkedAt: at, ok: true, detail: null }
  assert.equal(providerCheckDue(ok, later(59)), false)
  assert.equal(providerCheckDue(ok, later(60)), true)
  assert.deepEqual(providerReadiness(null, at), { ready: false, reason: 'never_checked', check: null, ageSeconds: null })
  assert.deepEqual(providerReadiness(ok, later(300)), { ready: true, reason: null, check: ok, ageSeconds: 300 })
  assert.deepEqual(providerReadiness(ok, later(301)), { ready: false, reason: 'stale', check: ok, ageSeconds: 301 })
  // Another instance's clock a little ahead: the age is never negative.
  assert.deepEqual(providerReadiness(ok, later(-2)), { ready: true, reason: null, check: ok, ageSeconds: 0 })
  const failed = { checkedAt: at, ok: false, detail: 'timed out' }
  assert.deepEqual(providerReadiness(failed, later(10)), { ready: false, reason: 'failed', check: failed, ageSeconds: 10 })
})
