import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createBucket } from '../../src/provider/rate-limits.ts'

test('a bucket allows its burst, then one call per refill interval, and says how long to wait', () => {
  let now = 0
  const bucket = createBucket({ perMinute: 15, burst: 50 }, () => now)
  for (let i = 0; i < 50; i++) assert.equal(bucket.take(), 0)
  assert.equal(bucket.take(), 4)
  now += 3_999
  assert.equal(bucket.take(), 1)
  now += 1
  assert.equal(bucket.take(), 0)
  assert.equal(bucket.take(), 4)
  now += 3_600_000
  for (let i = 0; i < 50; i++) assert.equal(bucket.take(), 0)
  assert.ok(bucket.take() > 0, 'never more than the burst')
})
