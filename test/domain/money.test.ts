import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import {
  centsToSats,
  centsToUsdtUnits,
  chargeBoundsCents,
  creditedAmount,
  formatBrl,
  formatBtc,
  formatUsdt,
  isWithinChargeBounds,
  parseBrlToCents,
} from '../../src/domain/money.ts'

test('parseBrlToCents reads strings and numbers with at most two decimals', () => {
  const cases: Array<[unknown, number | null]> = [
    ['10', 1000], ['10.5', 1050], ['10.50', 1050], ['0.01', 1], ['5000.00', 500000], ['007.10', 710],
    [10, 1000], [10.5, 1050], [19.99, 1999], [0.1, 10],
    ['10.505', null], ['-10', null], ['+10', null], ['1e3', null], ['10,50', null], [' 10', null], ['10.', null],
    ['.5', null], ['', null], ['NaN', null], [-1, null], [10.555, null], [1e21, null], [Number.NaN, null],
    [null, null], [true, null], [{}, null], ['１０', null],
  ]
  for (const [input, expected] of cases) assert.equal(parseBrlToCents(input), expected, `input ${JSON.stringify(input)}`)
  assert.equal(parseBrlToCents('9999999999999.99'), Infinity)
})

test('parseBrlToCents round-trips every cent amount written either way', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 10_000_000_00 }), (cents) => {
      const text = `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`
      assert.equal(parseBrlToCents(text), cents)
      assert.equal(parseBrlToCents(Number(text)), cents)
    }),
    { numRuns: 2000 },
  )
})

test('charge bounds are inclusive and per currency', () => {
  assert.deepEqual(chargeBoundsCents.BTC, { min: 2000, max: 500000 })
  for (const currency of ['DEPIX', 'USDt'] as const) {
    assert.equal(isWithinChargeBounds(999, currency), false)
    assert.equal(isWithinChargeBounds(1000, currency), true)
    assert.equal(isWithinChargeBounds(500000, currency), true)
    assert.equal(isWithinChargeBounds(500001, currency), false)
  }
  assert.equal(isWithinChargeBounds(1999, 'BTC'), false)
  assert.equal(isWithinChargeBounds(2000, 'BTC'), true)
  assert.equal(isWithinChargeBounds(Infinity, 'DEPIX'), false)
})

test('formatBrl writes R$ with thousands dots, decimal comma and a leading minus', () => {
  assert.equal(formatBrl(0), 'R$ 0,00')
  assert.equal(formatBrl(5), 'R$ 0,05')
  assert.equal(formatBrl(900), 'R$ 9,00')
  assert.equal(formatBrl(123456), 'R$ 1.234,56')
  assert.equal(formatBrl(123456789012), 'R$ 1.234.567.890,12')
  assert.equal(formatBrl(-100), '-R$ 1,00')
  assert.equal(formatBrl(-123456), '-R$ 1.234,56')
})

test('formatBtc and formatUsdt write fixed decimals with a dot', () => {
  assert.equal(formatBtc(0), '0.00000000')
  assert.equal(formatBtc(2696), '0.00002696')
  assert.equal(formatBtc(123456789), '1.23456789')
  assert.equal(formatBtc(-2696), '-0.00002696')
  assert.equal(formatUsdt(0), '0.000000')
  assert.equal(formatUsdt(1633986), '1.633986')
  assert.equal(formatUsdt(-1), '-0.000001')
})

test('conversions follow the integer formulas of decisions section 5 (quotes in micro-reais: quote_cents × 10^4)', () => {
  // R$ 10,00 charge: net 900 cents; BTC at R$ 350.000,00: floor(900e8*100 / (35000000*106))
  assert.equal(centsToSats(900, 350_000_000_000), 2425)
  assert.equal(creditedAmount(1000, 'BTC', 350_000_000_000), 2425)
  // USDt at R$ 5,40: floor(900e6*100 / (540*102)) = 1633986
  assert.equal(centsToUsdtUnits(900, 5_400_000), 1633986)
  assert.equal(creditedAmount(1000, 'USDt', 5_400_000), 1633986)
  // The decimals a USDt price keeps count: R$ 5,4321 is not R$ 5,43.
  assert.equal(centsToUsdtUnits(900, 5_432_100), 1624331)
  assert.notEqual(centsToUsdtUnits(900, 5_432_100), centsToUsdtUnits(900, 5_430_000))
  assert.equal(creditedAmount(1000, 'DEPIX', null), 900)
  assert.equal(creditedAmount(500000, 'BTC', 350_000_000_000), centsToSats(499900, 350_000_000_000))
  assert.throws(() => creditedAmount(1000, 'BTC', null))
})

test('property: with a whole-centavo quote, the micro-real formulas agree with the money rules in docs/rules.md exactly; all are exact floors', () => {
  fc.assert(
    fc.property(fc.integer({ min: 900, max: 499_900 }), fc.integer({ min: 1, max: 100_000_000_00 }), fc.integer({ min: 0, max: 9_999 }), (net, quoteCents, extraMicros) => {
      const exact = BigInt(net) * 10n ** 10n
      assert.equal(BigInt(centsToSats(net, quoteCents * 10_000)), exact / (BigInt(quoteCents) * 106n))
      assert.equal(BigInt(centsToUsdtUnits(net, quoteCents * 10_000)), (BigInt(net) * 10n ** 8n) / (BigInt(quoteCents) * 102n))
      const micros = quoteCents * 10_000 + extraMicros
      const sats = BigInt(centsToSats(net, micros))
      const exactMicro = BigInt(net) * 10n ** 14n
      assert.ok(sats * BigInt(micros) * 106n <= exactMicro)
      assert.ok((sats + 1n) * BigInt(micros) * 106n > exactMicro)
    }),
    { numRuns: 2000 },
  )
})

test('the fixed fee takes all of an arrival smaller than itself: a release of a few centavos credits nothing, never a negative amount', () => {
  assert.deepEqual([1, 99, 100, 101, 2_500].map((arrived) => creditedAmount(arrived, 'DEPIX', null)), [0, 0, 0, 1, 2_400])
  assert.equal(creditedAmount(99, 'BTC', 350_000_000_000), 0)
  assert.equal(creditedAmount(99, 'USDt', 5_400_000), 0)
})
