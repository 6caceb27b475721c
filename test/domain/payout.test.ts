// The payout's state machine (docs/treasury.md, "Payouts"), event by event and over random
// sequences: money leaves at most once, a signed transaction is never abandoned, a provider reply
// asking another amount is never sent again, and the start reads the owner's facts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { decidePayout, isLive, payoutStatuses, reviewReasons, type PayoutEvent, type PayoutStatus, type ReviewReason } from '../../src/domain/payout.ts'

const facts = { ownerWants: true, destinationActive: true, accountAllowed: true, covered: true }
const moved = (decision: ReturnType<typeof decidePayout>) => (decision.outcome === 'moved' ? [decision.status, decision.reviewReason ?? decision.failureCode, decision.effects.map((effect) => effect.kind)] : decision)

test('the start reads the facts: an owner who no longer wants it or a canceled destination ends it; an account not allowed or a short treasury waits for support', () => {
  const queued = { status: 'queued' as const, signed: false, reviewReason: null }
  assert.deepEqual(moved(decidePayout(queued, { kind: 'start', facts })), ['sending', null, []])
  assert.deepEqual(moved(decidePayout(queued, { kind: 'start', facts: { ...facts, ownerWants: false } })), ['failed', 'owner_withdrew', []])
  assert.deepEqual(moved(decidePayout(queued, { kind: 'start', facts: { ...facts, destinationActive: false } })), ['failed', 'destination_canceled', []])
  assert.deepEqual(moved(decidePayout(queued, { kind: 'start', facts: { ...facts, accountAllowed: false } })), ['in_review', 'account_not_allowed', []])
  assert.deepEqual(moved(decidePayout(queued, { kind: 'start', facts: { ...facts, covered: false } })), ['in_review', 'treasury_insufficient', []])
  // A transaction already signed goes on to its broadcast: it was covered when it was signed.
  assert.deepEqual(moved(decidePayout({ ...queued, signed: true }, { kind: 'start', facts: { ...facts, covered: false } })), ['sending', null, []])
  // And it never ends with its amount given back on the owner's word: it may be in the network already.
  assert.deepEqual(moved(decidePayout({ ...queued, signed: true }, { kind: 'start', facts: { ...facts, ownerWants: false, destinationActive: false } })), ['sending', null, []])
})

test('every run of a send reads the owner again until its transaction is signed', () => {
  const sending = { status: 'sending' as const, signed: false, reviewReason: null }
  const owner = { ownerWants: true, destinationActive: true, accountAllowed: true }
  assert.equal(decidePayout(sending, { kind: 'recheck', facts: owner }).outcome, 'unchanged')
  assert.deepEqual(moved(decidePayout(sending, { kind: 'recheck', facts: { ...owner, ownerWants: false } })), ['failed', 'owner_withdrew', []])
  assert.deepEqual(moved(decidePayout(sending, { kind: 'recheck', facts: { ...owner, destinationActive: false } })), ['failed', 'destination_canceled', []])
  assert.deepEqual(moved(decidePayout(sending, { kind: 'recheck', facts: { ...owner, accountAllowed: false } })), ['in_review', 'account_not_allowed', []])
  assert.equal(decidePayout({ ...sending, signed: true }, { kind: 'recheck', facts: { ...owner, ownerWants: false } }).outcome, 'unchanged')
})

test('support never pays a reply that asked another amount, nor one its owner no longer wants, nor one the account may not make', () => {
  const mismatched = { status: 'in_review' as const, signed: false, reviewReason: 'payout_mismatch' as const }
  assert.deepEqual(decidePayout(mismatched, { kind: 'retry', ownerWants: true, accountAllowed: true }), { outcome: 'refused', code: 'payout_mismatch_unpayable' })
  assert.deepEqual(moved(decidePayout(mismatched, { kind: 'new_payout', ownerWants: true })), ['failed', 'replaced', ['open_replacement']])
  assert.deepEqual(decidePayout({ ...mismatched, signed: true }, { kind: 'new_payout', ownerWants: true }), { outcome: 'refused', code: 'payout_signed' })
  const short = { status: 'in_review' as const, signed: false, reviewReason: 'treasury_insufficient' as const }
  assert.deepEqual(decidePayout(short, { kind: 'retry', ownerWants: false, accountAllowed: true }), { outcome: 'refused', code: 'owner_no_longer_wants' })
  assert.deepEqual(decidePayout(short, { kind: 'retry', ownerWants: true, accountAllowed: false }), { outcome: 'refused', code: 'account_not_allowed' })
  assert.deepEqual(moved(decidePayout(short, { kind: 'retry', ownerWants: true, accountAllowed: true })), ['queued', null, ['queue_send']])
  assert.deepEqual(decidePayout(short, { kind: 'new_payout', ownerWants: true }), { outcome: 'refused', code: 'payout_not_in_review' })
})

test('after it left: only support seeing the money back ends a sent or completed payout, once, and only when its owner takes it back', () => {
  for (const status of ['sent', 'completed'] as const) {
    assert.deepEqual(moved(decidePayout({ status, signed: true, reviewReason: null }, { kind: 'returned', ownerTakesBack: true })), ['returned', 'payout_returned', []])
    assert.equal(decidePayout({ status, signed: true, reviewReason: null }, { kind: 'returned', ownerTakesBack: false }).outcome, 'refused')
  }
  assert.equal(decidePayout({ status: 'returned', signed: true, reviewReason: null }, { kind: 'returned', ownerTakesBack: true }).outcome, 'refused')
  // The network fee is posted as it leaves.
  assert.deepEqual(moved(decidePayout({ status: 'sending', signed: true, reviewReason: null }, { kind: 'sent' })), ['sent', null, ['post_network_fee']])
})

const eventArbitrary: fc.Arbitrary<PayoutEvent> = fc.oneof(
  fc.record({ kind: fc.constant('recheck' as const), facts: fc.record({ ownerWants: fc.boolean(), destinationActive: fc.boolean(), accountAllowed: fc.boolean() }) }),
  fc.record({ kind: fc.constant('start' as const), facts: fc.record({ ownerWants: fc.boolean(), destinationActive: fc.boolean(), accountAllowed: fc.boolean(), covered: fc.boolean() }) }),
  fc.record({ kind: fc.constant('hold' as const), reason: fc.constantFrom(...reviewReasons) }),
  fc.record({ kind: fc.constant('fail' as const), code: fc.constantFrom('provider_refused' as const, 'payout_expired' as const) }),
  fc.constant({ kind: 'sent' as const }),
  fc.constant({ kind: 'completed' as const }),
  fc.record({ kind: fc.constant('retry' as const), ownerWants: fc.boolean(), accountAllowed: fc.boolean() }),
  fc.record({ kind: fc.constant('reject' as const), abandoned: fc.boolean(), transactionDead: fc.boolean() }),
  fc.record({ kind: fc.constant('new_payout' as const), ownerWants: fc.boolean() }),
  fc.record({ kind: fc.constant('returned' as const), ownerTakesBack: fc.boolean() }),
  fc.constant({ kind: 'owner_withdrew' as const }),
)

test('property: from any status, over random events, money leaves at most once, a signed payout ends only as sent money ends, and an ended payout stays ended', () => {
  fc.assert(fc.property(fc.constantFrom(...payoutStatuses), fc.array(fc.tuple(eventArbitrary, fc.boolean()), { maxLength: 40 }), (start, steps) => {
    let status: PayoutStatus = start
    let reviewReason: ReviewReason | null = null
    let signed = start === 'sent' || start === 'completed' || start === 'returned'
    let sentTimes = 0
    for (const [event, signs] of steps) {
      if (signs && status === 'sending') signed = true
      const decision = decidePayout({ status, signed, reviewReason }, event)
      if (decision.outcome !== 'moved') continue
      assert.ok(isLive(status), `${status} is final`)
      // A signed transaction may still pay: only a dead one (support, the node's word) or money seen back ends it.
      if (signed && decision.status === 'failed') assert.ok(event.kind === 'reject' && event.transactionDead === true, `signed ${status} failed on ${event.kind}`)
      if (decision.status === 'sent') sentTimes += 1
      if (event.kind === 'retry') assert.notEqual(reviewReason, 'payout_mismatch', 'a mismatched reply sent again')
      assert.equal(decision.reviewReason !== null, decision.status === 'in_review')
      status = decision.status
      reviewReason = decision.reviewReason
    }
    assert.ok(sentTimes <= 1)
  }), { numRuns: 3_000 })
})
