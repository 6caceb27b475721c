// The amounts of merchant refunds (docs/rules.md#merchant-refund-amounts), as properties: partial
// refunds never give back more than was paid, and the debit is rounded against the account.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { isBalanced, merchantRefundReleasePosting, merchantRefundReservePosting, merchantRefundSettlePosting } from '../../src/domain/ledger.ts'
import { priceRefund, refundRefusal, refundableCents, unitsForCents, type RefundFacts } from '../../src/domain/merchant-refund.ts'
import { unitsPerWhole, type Currency } from '../../src/domain/money.ts'

const paidAt = new Date('2026-11-01T12:00:00Z')
const facts = (paidCents: number, refundedCents: number): RefundFacts => ({ status: 'depix_sent', paidCents, paidAt, refundedCents, payerKey: '52998224725', now: new Date('2026-11-02T12:00:00Z') })

test('partial refunds, in any amounts and order, never give back more than was paid', () => {
  fc.assert(fc.property(fc.integer({ min: 1_000, max: 500_000 }), fc.array(fc.integer({ min: 1, max: 600_000 }), { maxLength: 30 }), (paid, asks) => {
    let refunded = 0
    for (const ask of asks) {
      if (refundRefusal(facts(paid, refunded), ask) === null) refunded += ask
      assert.ok(refunded <= paid)
    }
    assert.equal(refundableCents({ paidCents: paid, refundedCents: refunded }), paid - refunded)
  }))
})

test('what is left to refund, asked in full, is never refused for exceeding what was paid', () => {
  fc.assert(fc.property(fc.integer({ min: 1_000, max: 500_000 }), fc.integer({ min: 0, max: 500_000 }), (paid, refunded) => {
    fc.pre(refunded <= paid)
    assert.notEqual(refundRefusal(facts(paid, refunded), refundableCents({ paidCents: paid, refundedCents: refunded })), 'refund_exceeds_paid')
  }))
})

test('the debit, in each currency, is worth at least the payer\'s amount and the fee at the quote, by less than one minor unit more', () => {
  const currency = fc.constantFrom<Currency>('DEPIX', 'BTC', 'USDt')
  fc.assert(fc.property(fc.integer({ min: 100, max: 594_000 }), currency, fc.integer({ min: 1_000_000, max: 2_000_000_000_000 }), fc.integer({ min: 0, max: 10_000_000 }), (amount, cur, micros, held) => {
    const price = priceRefund(amount, cur, cur === 'DEPIX' ? null : micros, held)
    const debitCents = price.amountCents + price.feeCents
    assert.ok(price.feeCents >= 100 && price.feeCents >= Math.ceil(amount / 100))
    if (cur === 'DEPIX') assert.equal(price.units, debitCents)
    else {
      // units × price ≥ debit (rounded against the account), and one unit fewer would not cover it.
      const worth = (units: number) => BigInt(units) * BigInt(micros)
      const needed = BigInt(debitCents) * 10_000n * unitsPerWhole[cur]
      assert.ok(worth(price.units) >= needed)
      assert.ok(worth(price.units - 1) < needed)
      assert.equal(unitsForCents(debitCents, cur, micros), price.units)
    }
    assert.equal(price.heldUnits, Math.min(price.units, held))
  }))
})

test('a refund\'s postings balance per asset, whichever way it ends', () => {
  fc.assert(fc.property(fc.integer({ min: 100, max: 594_000 }), fc.constantFrom<Currency>('DEPIX', 'BTC', 'USDt'), fc.integer({ min: 1_000_000, max: 2_000_000_000_000 }), fc.integer({ min: 0, max: 10_000_000 }), fc.boolean(), (amount, cur, micros, held, toHeld) => {
    const price = priceRefund(amount, cur, cur === 'DEPIX' ? null : micros, held)
    const r = { id: 'rf_1', accountId: 1, currency: cur, ...price }
    assert.ok(isBalanced(merchantRefundReservePosting(r).entries))
    assert.ok(isBalanced(merchantRefundReleasePosting({ ...r, toHeld }).entries))
    for (const deposit of [amount, amount + price.feeCents]) assert.ok(isBalanced(merchantRefundSettlePosting({ ...r, depositCents: deposit }).entries))
  }))
})
