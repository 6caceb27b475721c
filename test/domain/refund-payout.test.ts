// The pure rules of a refund paid by Pix-out (decisions 14, issue 23 point 8): what the provider
// may ask for it, when it can go by Pix at all, and its state machine over random sequences.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { decideRefundPayout, refundPayoutFits, refundPayoutMaxDeposit, refundPixOutRefusal, type RefundPayoutEvent, type RefundPayoutStatus } from '../../src/domain/refund-payout.ts'
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

const events: RefundPayoutEvent[] = [
  { kind: 'hold', reason: 'treasury_insufficient' }, { kind: 'fail', code: 'provider_refused' }, { kind: 'sent' }, { kind: 'completed' }, { kind: 'retry', stillOwed: true },
  { kind: 'retry', stillOwed: false }, { kind: 'new_payout', stillOwed: true }, { kind: 'abandon' }, { kind: 'returned' },
]

test('a refund payout moves only forward, is sent once, and once signed never fails or is abandoned', () => {
  assert.equal(decideRefundPayout({ status: 'in_review', signed: true }, { kind: 'abandon' }).outcome, 'refused')
  assert.equal(decideRefundPayout({ status: 'sending', signed: true }, { kind: 'fail', code: 'payout_expired' }).outcome, 'unchanged')
  fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom(...events), fc.boolean()), { maxLength: 30 }), (steps) => {
    let status: RefundPayoutStatus = 'sending'
    let signed = false
    let sentTimes = 0
    for (const [event, signs] of steps) {
      if (signs && (status === 'sending')) signed = true
      const decision = decideRefundPayout({ status, signed }, event)
      if (decision.outcome !== 'moved') continue
      // Only money seen coming back ends a signed payout.
      if (signed && event.kind !== 'returned') assert.notEqual(decision.status, 'failed', 'a signed payout may still pay')
      if (decision.status === 'sent') sentTimes += 1
      if (status === 'completed' || status === 'failed') assert.fail(`${status} is final`)
      assert.equal(decision.queueSend, event.kind === 'retry' || event.kind === 'new_payout')
      status = decision.status
    }
    assert.ok(sentTimes <= 1)
  }))
})

test('support never pays a reply that asked another amount, and never a refund no longer owed', () => {
  const mismatched = { status: 'in_review' as const, signed: false, reviewReason: 'payout_mismatch' as const }
  assert.deepEqual(decideRefundPayout(mismatched, { kind: 'retry', stillOwed: true }), { outcome: 'refused', code: 'payout_mismatch_unpayable' })
  const renewed = decideRefundPayout(mismatched, { kind: 'new_payout', stillOwed: true })
  assert.ok(renewed.outcome === 'moved' && renewed.status === 'sending' && renewed.forgetProviderPayout && renewed.queueSend)
  assert.deepEqual(decideRefundPayout(mismatched, { kind: 'new_payout', stillOwed: false }), { outcome: 'refused', code: 'refund_not_owed' })
  assert.deepEqual(decideRefundPayout({ status: 'in_review', signed: false, reviewReason: 'treasury_insufficient' }, { kind: 'retry', stillOwed: false }), { outcome: 'refused', code: 'refund_not_owed' })
  const returned = decideRefundPayout({ status: 'sent', signed: true }, { kind: 'returned' })
  assert.ok(returned.outcome === 'moved' && returned.status === 'failed' && returned.failureCode === 'payout_returned')
  assert.equal(decideRefundPayout({ status: 'completed', signed: true }, { kind: 'returned' }).outcome, 'refused')
})
