import { test } from 'node:test'
import assert from 'node:assert/strict'
import { defaultPayerLadder, LIMIT_WITHOUT_EUID_CENTS, parseLadder, payerLimitCents } from '../../src/domain/payer-limits.ts'

const now = new Date('2026-11-22T00:00:00Z')
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000)

test('without an EUID the limit is R$ 10,00 whatever the history', () => {
  assert.equal(LIMIT_WITHOUT_EUID_CENTS, 1000)
  assert.equal(payerLimitCents(false, { confirmedPayments: 100, firstConfirmedAt: daysAgo(365) }, now), 1000)
})

test('the default ladder: R$ 499 first, then payments and days together climb it', () => {
  const limit = (payments: number, days: number | null) =>
    payerLimitCents(true, { confirmedPayments: payments, firstConfirmedAt: days === null ? null : daysAgo(days) }, now)
  assert.equal(limit(0, null), 49_900)
  assert.equal(limit(4, 100), 49_900)
  assert.equal(limit(5, 6.99), 49_900)
  assert.equal(limit(5, 7), 100_000)
  assert.equal(limit(14, 29), 100_000)
  assert.equal(limit(15, 30), 250_000)
  assert.equal(limit(100, 59), 250_000)
  assert.equal(limit(30, 60), 500_000)
  assert.equal(limit(29, 365), 250_000)
})

test('a configured ladder is parsed and used', () => {
  const ladder = parseLadder('0:0:200.00, 2:1:300.50')
  assert.deepEqual(ladder, [
    { minConfirmedPayments: 0, minDaysSinceFirst: 0, limitCents: 20_000 },
    { minConfirmedPayments: 2, minDaysSinceFirst: 1, limitCents: 30_050 },
  ])
  assert.equal(payerLimitCents(true, { confirmedPayments: 2, firstConfirmedAt: daysAgo(1) }, now, ladder), 30_050)
  assert.throws(() => parseLadder('1:0:200'), /first ladder step/)
  assert.throws(() => parseLadder('0:0:abc'), /not payments:days:limit/)
  assert.equal(defaultPayerLadder.length, 4)
})
