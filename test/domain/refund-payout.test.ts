// The pure rules of a refund paid by Pix-out (docs/treasury.md, "Refunds owed"): what the provider
// may ask for it, and when it can go by Pix at all. Its payout is an ordinary one (payout.test.ts).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { refundPayoutFits, refundPayoutMaxDeposit, refundPixOutRefusal } from '../../src/domain/refund-payout.ts'
import { pixPayoutFee } from '../../src/domain/withdrawal.ts'

test('the provider may ask for the payout plus its fee on what it receives, never more', () => {
  // R$ 10,00 owed: the fee is at least R$ 1,00, and 1 % of R$ 11,00 is less.
  assert.equal(refundPayoutMaxDeposit(1000), 1100)
  // R$ 1.000,00 owed: 1 % of what it receives, R$ 1.010,10, is R$ 10,11 (rounded up).
  assert.equal(refundPayoutMaxDeposit(100_000), 101_011)
  fc.assert(fc.property(fc.integer({ min: 1, max: 10_000_000 }), (owed) => {
    const max = refundPayoutMaxDeposit(owed)
    assert.ok(max - owed <= pixPayoutFee(max), 'the largest deposit is within the fee')
    assert.ok(max + 1 - owed > pixPayoutFee(max + 1), 'and one centavo more is not')
  }))
})

test('a provider answer is paid only when the payer receives all that is owed and the provider asks no more than its fee', () => {
  assert.equal(refundPayoutFits(1000, { depositAmountInCents: 1100, payoutAmountInCents: 1000 }), true)
  assert.equal(refundPayoutFits(1000, { depositAmountInCents: 1101, payoutAmountInCents: 1001 }), false, 'more than the fee')
  assert.equal(refundPayoutFits(1000, { depositAmountInCents: 1100, payoutAmountInCents: 999 }), false, 'the payer would get less')
  assert.equal(refundPayoutFits(1000, { depositAmountInCents: 999, payoutAmountInCents: null }), false)
  assert.equal(refundPayoutFits(1000, { depositAmountInCents: null, payoutAmountInCents: 1000 }), false)
  fc.assert(fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 2_000_000 }), (owed, deposit) => {
    const fits = refundPayoutFits(owed, { depositAmountInCents: deposit, payoutAmountInCents: null })
    assert.equal(fits, deposit >= owed && deposit - owed <= pixPayoutFee(deposit))
  }))
})

test('a refund goes by Pix-out only within the provider\'s R$ 2,00 to R$ 6.000,00, its fee included', () => {
  assert.equal(refundPixOutRefusal(100), null, 'R$ 1,00 owed: R$ 2,00 sent')
  assert.equal(refundPixOutRefusal(99), 'amount_below_minimum')
  // Bounded by the most the provider may ask (its fee is on what it receives, itself rounded up).
  assert.equal(refundPixOutRefusal(593_999), null)
  assert.equal(refundPixOutRefusal(594_000), 'amount_above_maximum')
})
