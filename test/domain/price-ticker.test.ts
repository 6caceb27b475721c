import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { decimalPriceToCents } from '../../src/prices/ticker.ts'

test('ticker prices become BRL cents, rounded half up, without floating point', () => {
  assert.equal(decimalPriceToCents('350000.00000000'), 35_000_000)
  assert.equal(decimalPriceToCents('5.40500000'), 541)
  assert.equal(decimalPriceToCents('5.40499999'), 540)
  assert.equal(decimalPriceToCents('612345.6789'), 61_234_568)
  assert.equal(decimalPriceToCents('7'), 700)
  for (const bad of ['', '-1', '1e5', '0', '0.001', 'abc', '1,5']) assert.equal(decimalPriceToCents(bad), null, bad)
  fc.assert(fc.property(fc.integer({ min: 1, max: 10 ** 11 }), fc.integer({ min: 0, max: 999_999 }), (whole, fraction) => {
    const text = `${whole}.${String(fraction).padStart(6, '0')}`
    assert.equal(decimalPriceToCents(text), whole * 100 + Math.floor((fraction + 5000) / 10000))
  }))
})
