import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { creditCapUnits, formatPrice, overrideExpiry, parsePriceMicros, priceRejection, withinBand } from '../../src/domain/quotes.ts'
import { creditedAmount } from '../../src/domain/money.ts'
import { parsePriceSource } from '../../src/prices/ticker.ts'

test('prices become micro-reais, rounded half up at the sixth decimal, without floating point', () => {
  assert.equal(parsePriceMicros('350000.00000000'), 350_000_000_000)
  assert.equal(parsePriceMicros('5.4321'), 5_432_100)
  assert.equal(parsePriceMicros('5.43210050'), 5_432_101)
  assert.equal(parsePriceMicros('5.43210049'), 5_432_100)
  assert.equal(parsePriceMicros('7'), 7_000_000)
  for (const bad of ['', '-1', '1e5', '0', '0.0000001', 'abc', '1,5']) assert.equal(parsePriceMicros(bad), null, bad)
  fc.assert(fc.property(fc.integer({ min: 1, max: 10 ** 9 }), fc.integer({ min: 0, max: 99_999_999 }), (whole, fraction) => {
    const text = `${whole}.${String(fraction).padStart(8, '0')}`
    assert.equal(parsePriceMicros(text), whole * 1_000_000 + Math.floor((fraction + 50) / 100))
  }))
})

test('prices read back with at least two decimals and only the decimals that carry something', () => {
  assert.equal(formatPrice(350_000_000_000), '350000.00')
  assert.equal(formatPrice(5_400_000), '5.40')
  assert.equal(formatPrice(5_432_100), '5.4321')
  assert.equal(formatPrice(1), '0.000001')
  fc.assert(fc.property(fc.integer({ min: 1, max: 10 ** 15 }), (micros) => assert.equal(parsePriceMicros(formatPrice(micros)), micros)))
})

test('a price more than the band away from the last accepted one, or from the second source, is not used', () => {
  const reference = 350_000_000_000
  assert.equal(priceRejection(385_000_000_000, { reference, second: null, bandPercent: 10 }), null)
  assert.equal(priceRejection(315_000_000_000, { reference, second: null, bandPercent: 10 }), null)
  assert.equal(priceRejection(311_000_000_000, { reference, second: null, bandPercent: 10 }), 'away_from_last_accepted')
  assert.equal(priceRejection(1, { reference, second: null, bandPercent: 10 }), 'away_from_last_accepted')
  assert.equal(priceRejection(reference, { reference, second: 420_000_000_000, bandPercent: 10 }), 'away_from_second_source')
  // A first price with no second source configured is used: it anchors the band.
  assert.equal(priceRejection(reference, { reference: null, second: null, bandPercent: 10 }), null)
  assert.equal(priceRejection(reference, { reference: null, second: reference, bandPercent: 10 }), null)
  assert.equal(priceRejection(reference, { reference: null, second: 420_000_000_000, bandPercent: 10 }), 'away_from_second_source')
  // A second source is configured but silent: a first price waits for it (or for an operator's price);
  // once a price was accepted, that price is the check.
  assert.equal(priceRejection(reference, { reference: null, second: 'silent', bandPercent: 10 }), 'nothing_to_check_against')
  assert.equal(priceRejection(reference, { reference, second: 'silent', bandPercent: 10 }), null)
  assert.equal(priceRejection(1, { reference, second: 'silent', bandPercent: 10 }), 'away_from_last_accepted')
  assert.equal(withinBand(105, 100, 5), true)
  assert.equal(withinBand(106, 100, 5), false)
})

test('the per-charge cap sits above every honest credit and below a wild one', () => {
  fc.assert(fc.property(fc.integer({ min: 1000, max: 10_000_000 }), fc.constantFrom('BTC' as const, 'USDt' as const), fc.integer({ min: 100_000, max: 10 ** 14 }), (arrived, currency, micros) => {
    assert.ok(creditedAmount(arrived, currency, micros) <= creditCapUnits(arrived, currency, micros))
  }), { numRuns: 2000 })
  // R$ 20,00 converted at the real price's cap, against a ticker gone to R$ 0,01: 1,792 BTC.
  const cap = creditCapUnits(2000, 'BTC', 350_000_000_000)
  assert.ok(creditedAmount(2000, 'BTC', 10_000) > cap * 1_000_000)
})

test('an override lasts at most a day', () => {
  const now = new Date('2026-11-23T12:00:00Z')
  assert.equal(overrideExpiry(now, 3600).toISOString(), '2026-11-23T13:00:00.000Z')
  assert.equal(overrideExpiry(now, 10 ** 9).toISOString(), '2026-11-24T12:00:00.000Z')
})

test('a price source names its format, Binance\'s by default', () => {
  assert.deepEqual(parsePriceSource('https://api.binance.com/api/v3/ticker/price'), { format: 'binance', url: 'https://api.binance.com/api/v3/ticker/price' })
  assert.deepEqual(parsePriceSource('mercadobitcoin:https://api.mercadobitcoin.net/api/v4/tickers'), { format: 'mercadobitcoin', url: 'https://api.mercadobitcoin.net/api/v4/tickers' })
})
