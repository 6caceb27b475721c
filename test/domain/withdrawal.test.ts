// The pure rules of withdrawals (docs/treasury.md): fees, bounds, limits, unit conversions, and the
// state machine decideWithdrawal, unit by unit and over random sequences.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { currencies, type Currency } from '../../src/domain/money.ts'
import {
  brlCentsOf,
  decideWithdrawal,
  isCancelable,
  isFinal,
  isReserved,
  limitDecision,
  liquidMinimum,
  minorUnitsIn,
  pixOutBoundsCents,
  pixPayoutFee,
  priceWithdrawal,
  reviewReasons,
  toAssetUnits,
  withdrawalFee,
  withdrawalStatuses,
  type PayoutOutcome,
  type WithdrawalDecision,
  type WithdrawalEvent,
  type WithdrawalLimits,
  type WithdrawalStatus,
} from '../../src/domain/withdrawal.ts'
import { payoutFailures, payoutStatuses } from '../../src/domain/payout.ts'

/** ceil(amount × percent / 100), computed apart from the code under test. */
const ceilPercent = (amount: bigint, percent: bigint): bigint => {
  const product = amount * percent
  return product / 100n + (product % 100n === 0n ? 0n : 1n)
}

const currency = fc.constantFrom(...currencies)
const anyAmount = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })

test('DEPIX fee is exactly ceil(2 % of the amount); BTC and USDt pay none', () => {
  for (const [amount, fee] of [[1, 1], [49, 1], [50, 1], [51, 2], [100, 2], [101, 3], [150, 3], [10_000, 200], [10_001, 201], [600_000, 12_000]] as const) {
    assert.equal(withdrawalFee('DEPIX', amount), fee, String(amount))
  }
  fc.assert(
    fc.property(anyAmount, (amount) => {
      assert.equal(BigInt(withdrawalFee('DEPIX', amount)), ceilPercent(BigInt(amount), 2n))
      assert.equal(withdrawalFee('BTC', amount), 0)
      assert.equal(withdrawalFee('USDt', amount), 0)
    }),
    { numRuns: 3000 },
  )
})

test("Eulen's payout fee is max(R$ 1,00, ceil(1 % of what it receives))", () => {
  for (const [deposit, fee] of [[1, 100], [10_000, 100], [10_001, 101], [19_999, 200], [20_000, 200], [588_000, 5_880]] as const) assert.equal(pixPayoutFee(deposit), fee, String(deposit))
  fc.assert(fc.property(anyAmount, (deposit) => {
    const reference = ceilPercent(BigInt(deposit), 1n)
    assert.equal(BigInt(pixPayoutFee(deposit)), reference > 100n ? reference : 100n)
  }), { numRuns: 2000 })
})

test('property: a price splits the amount into fee + net; a Pix key receives net − max(100, ceil(1 % of net))', () => {
  fc.assert(
    fc.property(fc.constantFrom('pix' as const, 'liquid' as const), currency, fc.integer({ min: 1, max: 10 ** 12 }), (type, cur, amount) => {
      if (type === 'pix' && cur !== 'DEPIX') return
      const price = priceWithdrawal(type, cur, amount)
      if ('refused' in price) return
      assert.equal(price.amount, amount)
      assert.equal(price.fee, withdrawalFee(cur, amount))
      assert.equal(price.fee + price.net, amount)
      assert.ok(price.net > 0 && price.fee >= 0)
      if (type === 'liquid') {
        assert.equal(price.payoutCents, null)
        return
      }
      const net = BigInt(price.net)
      const eulen = ceilPercent(net, 1n) > 100n ? ceilPercent(net, 1n) : 100n
      assert.equal(BigInt(price.payoutCents!), net - eulen)
      assert.ok(price.payoutCents! > 0)
    }),
    { numRuns: 3000 },
  )
  // R$ 100,00: our fee R$ 2,00, R$ 98,00 go to Eulen, which keeps R$ 1,00.
  assert.deepEqual(priceWithdrawal('pix', 'DEPIX', 10_000), { amount: 10_000, fee: 200, net: 9_800, payoutCents: 9_700 })
  assert.deepEqual(priceWithdrawal('liquid', 'BTC', 50_000), { amount: 50_000, fee: 0, net: 50_000, payoutCents: null })
})

test('Pix-out bounds (R$ 2,00 to R$ 6.000,00) apply to what goes to the provider, after our 2 %: refused just outside, priced at the edges', () => {
  // R$ 2,04 leaves R$ 1,99 after our fee (R$ 0,05): the provider would refuse it.
  assert.deepEqual(priceWithdrawal('pix', 'DEPIX', 200), { refused: 'amount_below_minimum' })
  assert.deepEqual(priceWithdrawal('pix', 'DEPIX', 204), { refused: 'amount_below_minimum' })
  assert.deepEqual(priceWithdrawal('pix', 'DEPIX', 205), { amount: 205, fee: 5, net: pixOutBoundsCents.min, payoutCents: 100 })
  // R$ 6.122,45 sends exactly R$ 6.000,00; one centavo more sends R$ 6.000,01.
  assert.deepEqual(priceWithdrawal('pix', 'DEPIX', 600_001), { amount: 600_001, fee: 12_001, net: 588_000, payoutCents: 582_120 })
  assert.deepEqual(priceWithdrawal('pix', 'DEPIX', 612_245), { amount: 612_245, fee: 12_245, net: pixOutBoundsCents.max, payoutCents: 594_000 })
  assert.deepEqual(priceWithdrawal('pix', 'DEPIX', 612_246), { refused: 'amount_above_maximum' })
  for (const amount of [0, -1, -200, 250.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
    assert.deepEqual(priceWithdrawal('pix', 'DEPIX', amount), { refused: 'amount_below_minimum' }, String(amount))
    assert.deepEqual(priceWithdrawal('liquid', 'DEPIX', amount), { refused: 'amount_below_minimum' }, String(amount))
  }
  assert.throws(() => priceWithdrawal('pix', 'BTC', 10_000), /DEPIX only/)
  assert.throws(() => priceWithdrawal('pix', 'USDt', 10_000_000), /DEPIX only/)
  // Against a reference computed apart: what is sent (amount − ceil(2 %)) must lie within the bounds.
  fc.assert(fc.property(fc.integer({ min: -10, max: 700_000 }), (amount) => {
    const price = priceWithdrawal('pix', 'DEPIX', amount)
    const sent = amount > 0 ? BigInt(amount) - ceilPercent(BigInt(amount), 2n) : 0n
    const expected = sent < 200n ? 'amount_below_minimum' : sent > 600_000n ? 'amount_above_maximum' : null
    assert.equal('refused' in price ? price.refused : null, expected, String(amount))
    if (!('refused' in price)) assert.equal(BigInt(price.net), sent)
  }), { numRuns: 3000 })
})

test('Liquid minimums per currency (R$ 1,00, 1 000 sats, 1 USDt) and no maximum', () => {
  assert.deepEqual(liquidMinimum, { DEPIX: 100, BTC: 1_000, USDt: 1_000_000 })
  for (const cur of currencies) {
    const min = liquidMinimum[cur]
    assert.deepEqual(priceWithdrawal('liquid', cur, min - 1), { refused: 'amount_below_minimum' }, cur)
    const atMin = priceWithdrawal('liquid', cur, min)
    assert.ok(!('refused' in atMin) && atMin.net > 0, cur)
    const huge = priceWithdrawal('liquid', cur, Number.MAX_SAFE_INTEGER)
    assert.ok(!('refused' in huge) && huge.fee + huge.net === Number.MAX_SAFE_INTEGER, cur)
  }
})

const limitsArbitrary: fc.Arbitrary<WithdrawalLimits> = fc.record({
  perWithdrawalCents: fc.integer({ min: 1, max: 2_000_000 }),
  dailyCents: fc.integer({ min: 1, max: 5_000_000 }),
  monthlyCents: fc.integer({ min: 1, max: 20_000_000 }),
  reviewCents: fc.integer({ min: 1, max: 2_000_000 }),
})

test('limitDecision: refused above the per-withdrawal limit; else review for daily, monthly, threshold, in that order', () => {
  const limits: WithdrawalLimits = { perWithdrawalCents: 500_000, dailyCents: 1_000_000, monthlyCents: 3_000_000, reviewCents: 200_000 }
  const none = { last24hCents: 0, last30dCents: 0 }
  assert.deepEqual(limitDecision(500_000, none, limits), { review: 'over_threshold' })
  assert.deepEqual(limitDecision(500_001, none, limits), { refused: 'withdrawal_limit_exceeded' })
  assert.deepEqual(limitDecision(500_001, { last24hCents: 10_000_000, last30dCents: 10_000_000 }, limits), { refused: 'withdrawal_limit_exceeded' })
  assert.deepEqual(limitDecision(200_000, none, limits), { review: null }, 'at the threshold goes on its own')
  assert.deepEqual(limitDecision(200_001, none, limits), { review: 'over_threshold' })
  assert.deepEqual(limitDecision(100, { last24hCents: 999_900, last30dCents: 999_900 }, limits), { review: null }, 'exactly at the daily limit')
  assert.deepEqual(limitDecision(101, { last24hCents: 999_900, last30dCents: 999_900 }, limits), { review: 'daily_limit' })
  assert.deepEqual(limitDecision(100, { last24hCents: 0, last30dCents: 2_999_900 }, limits), { review: null }, 'exactly at the 30-day limit')
  assert.deepEqual(limitDecision(101, { last24hCents: 0, last30dCents: 2_999_900 }, limits), { review: 'monthly_limit' })
  // Every limit crossed at once: daily wins, then monthly, then the threshold.
  assert.deepEqual(limitDecision(300_000, { last24hCents: 900_000, last30dCents: 2_900_000 }, limits), { review: 'daily_limit' })
  assert.deepEqual(limitDecision(300_000, { last24hCents: 0, last30dCents: 2_900_000 }, limits), { review: 'monthly_limit' })
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 3_000_000 }), fc.integer({ min: 0, max: 6_000_000 }), fc.integer({ min: 0, max: 25_000_000 }), limitsArbitrary, (amount, day, month, l) => {
      const expected = amount > l.perWithdrawalCents
        ? { refused: 'withdrawal_limit_exceeded' }
        : { review: day + amount > l.dailyCents ? 'daily_limit' : month + amount > l.monthlyCents ? 'monthly_limit' : amount > l.reviewCents ? 'over_threshold' : null }
      assert.deepEqual(limitDecision(amount, { last24hCents: day, last30dCents: month }, l), expected)
    }),
    { numRuns: 3000 },
  )
})

test('brlCentsOf: DEPIX is BRL; BTC and USDt at the price, rounded up to the centavo', () => {
  assert.equal(brlCentsOf('DEPIX', 12_345, null), 12_345)
  assert.equal(brlCentsOf('DEPIX', 12_345, 999), 12_345)
  // One satoshi at R$ 350.000,00 is R$ 0,0035: one centavo.
  assert.equal(brlCentsOf('BTC', 1, 350_000_000_000), 1)
  assert.equal(brlCentsOf('BTC', 100_000_000, 350_000_000_000), 35_000_000)
  assert.equal(brlCentsOf('BTC', 100_000_001, 350_000_000_000), 35_000_001)
  // 1 USDt at R$ 5,4321 is R$ 5,4321: 544 centavos.
  assert.equal(brlCentsOf('USDt', 1_000_000, 5_432_100), 544)
  assert.equal(brlCentsOf('USDt', 1_000_000, 5_430_000), 543)
  assert.throws(() => brlCentsOf('BTC', 1, null), /price/)
  assert.throws(() => brlCentsOf('USDt', 1, null), /price/)
  const perWhole: Record<Currency, bigint> = { DEPIX: 100n, BTC: 10n ** 8n, USDt: 10n ** 6n }
  fc.assert(
    fc.property(fc.constantFrom('BTC' as const, 'USDt' as const), fc.integer({ min: 0, max: 10 ** 12 }), fc.integer({ min: 1, max: 10 ** 12 }), (cur, amount, micros) => {
      const cents = BigInt(brlCentsOf(cur, amount, micros))
      // cents is the least whole centavo worth at least the amount: amount × micros / (units per whole × 10^4).
      const worth = BigInt(amount) * BigInt(micros)
      const perCent = perWhole[cur] * 10_000n
      assert.ok(cents * perCent >= worth, 'never rounded down')
      assert.ok((cents - 1n) * perCent < worth || cents === 0n, 'rounded up by less than a centavo')
    }),
    { numRuns: 3000 },
  )
})

test('asset units: 8 decimals on Liquid; minor units go there and back, and what is below a minor unit pays no one', () => {
  assert.equal(toAssetUnits('DEPIX', 1), 1_000_000n, 'a centavo is 10^6 of 10^-8 DePix')
  assert.equal(toAssetUnits('DEPIX', 100), 100_000_000n, 'one DePix is 10^8')
  assert.equal(toAssetUnits('BTC', 1), 1n)
  assert.equal(toAssetUnits('USDt', 1_000_000), 100_000_000n, 'one USDt is 10^8')
  const perMinor: Record<Currency, bigint> = { DEPIX: 10n ** 6n, BTC: 1n, USDt: 100n }
  fc.assert(
    fc.property(currency, fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.bigInt({ min: 0n, max: 10n ** 6n - 1n }), (cur, amount, dust) => {
      const units = toAssetUnits(cur, amount)
      assert.equal(minorUnitsIn(cur, units), amount)
      assert.equal(units % perMinor[cur], 0n)
      assert.equal(minorUnitsIn(cur, units + (dust % perMinor[cur])), amount, 'the remainder below a minor unit is dropped')
    }),
    { numRuns: 3000 },
  )
})

test('status predicates: reserved while it waits or is being sent; cancelable until sending; final ends', () => {
  const pick = (predicate: (status: WithdrawalStatus) => boolean) => withdrawalStatuses.filter(predicate)
  assert.deepEqual(pick(isReserved), ['confirmed', 'in_review', 'sending'])
  assert.deepEqual(pick(isCancelable), ['requested', 'confirmed', 'in_review'])
  assert.deepEqual(pick(isFinal), ['completed', 'failed', 'canceled'])
})

// ---------------------------------------------------------------------------------------------
// The state machine.

const payoutStatusArbitrary = fc.constantFrom(...payoutStatuses)
const outcomeArbitrary: fc.Arbitrary<PayoutOutcome> = fc.record({
  status: payoutStatusArbitrary,
  reason: fc.option(fc.constantFrom(...reviewReasons), { nil: null }),
  code: fc.option(fc.constantFrom(...payoutFailures), { nil: null }),
})

const eventArbitrary = (amount: number): fc.Arbitrary<WithdrawalEvent> =>
  fc.oneof(
    fc.record({
      kind: fc.constant('confirm' as const),
      available: fc.oneof(fc.integer({ min: -amount, max: 3 * amount }), fc.constantFrom(amount - 1, amount, amount + 1)),
      allowed: fc.boolean(),
      review: fc.option(fc.constantFrom(...reviewReasons), { nil: null }),
    }),
    fc.record({ kind: fc.constant('cancel' as const), signed: fc.boolean() }),
    fc.constant({ kind: 'code_expired' as const }),
    fc.record({ kind: fc.constant('approve' as const), allowed: fc.boolean() }),
    fc.constant({ kind: 'reject' as const }),
    { arbitrary: fc.record({ kind: fc.constant('payout' as const), outcome: outcomeArbitrary }), weight: 6 },
  )

const effectsOf = (decision: WithdrawalDecision) => (decision.outcome === 'moved' ? decision.effects.map((effect) => effect.kind) : [])

test('property: random event sequences from any status: the amount is reserved exactly while the status says so, settled once, and money that came back is unsettled once', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...withdrawalStatuses),
      fc.integer({ min: 1, max: 1_000_000 }).chain((amount) => fc.tuple(fc.constant(amount), fc.array(eventArbitrary(amount), { maxLength: 40 }))),
      (start, [amount, events]) => {
        let status = start
        let outstanding = isReserved(start) ? 1 : 0
        let settled = start === 'sent' || start === 'completed' ? 1 : 0
        for (const event of events) {
          const before = status
          const decision = decideWithdrawal({ status, amount }, event)
          if (decision.outcome !== 'moved') continue
          const kinds = effectsOf(decision)
          // The owner is told of their confirmation and of the end, once, after the rest; of no step between.
          const told = (before === 'requested' && decision.status !== 'canceled') || (before !== 'requested' && isFinal(decision.status))
          assert.equal(kinds.filter((kind) => kind === 'notify_owner').length, told ? 1 : 0, `${before} -> ${decision.status}`)
          if (told) assert.equal(kinds.at(-1), 'notify_owner')
          // A final status moves again only for money that came back after it completed.
          assert.ok(!isFinal(before) || (before === 'completed' && event.kind === 'payout' && event.outcome.status === 'returned'), `${before} moved on ${event.kind}`)
          // Why it waits or ended is said exactly when it waits or ended.
          assert.equal(decision.reviewReason !== null, decision.status === 'in_review')
          assert.equal(decision.failureCode !== null, decision.status === 'failed' || decision.status === 'canceled')
          for (const kind of kinds) {
            if (kind === 'reserve') outstanding++
            if (kind === 'release') outstanding--
            if (kind === 'settle') {
              outstanding--
              settled++
            }
            if (kind === 'unsettle') settled--
          }
          status = decision.status
          assert.equal(outstanding, isReserved(status) ? 1 : 0, `reserved after ${before} -> ${status}`)
          assert.ok(settled === 0 || settled === 1)
          // A payout is opened only as it becomes confirmed, from requested or from support's
          // approval. How many over a life is not this function's to bound: each review cycle may
          // approve again, and that one payout at most is live is the use case's and a unique
          // index's (app/review-withdrawal.ts retries the live payout instead of opening one).
          if (kinds.includes('open_payout')) assert.ok(decision.status === 'confirmed' && (before === 'requested' || before === 'in_review'))
        }
      },
    ),
    { numRuns: 3_000 },
  )
})

test('confirm: not allowed wins over the balance; insufficient below the amount; at the amount it reserves and opens the payout, or waits for review', () => {
  const requested = { status: 'requested' as const, amount: 5_000 }
  assert.deepEqual(decideWithdrawal(requested, { kind: 'confirm', available: 10 ** 9, allowed: false, review: null }), { outcome: 'refused', code: 'withdrawal_not_allowed' })
  assert.deepEqual(decideWithdrawal(requested, { kind: 'confirm', available: 4_999, allowed: true, review: null }), { outcome: 'refused', code: 'insufficient_funds' })
  assert.deepEqual(effectsOf(decideWithdrawal(requested, { kind: 'confirm', available: 5_000, allowed: true, review: null })), ['reserve', 'open_payout', 'notify_owner'])
  const held = decideWithdrawal(requested, { kind: 'confirm', available: 5_000, allowed: true, review: 'over_threshold' })
  assert.ok(held.outcome === 'moved' && held.status === 'in_review' && held.reviewReason === 'over_threshold')
  assert.deepEqual(effectsOf(held), ['reserve', 'notify_owner'])
})

test('support meets the facts the owner meets: approve is refused while the account may not withdraw, and opens the payout otherwise', () => {
  const inReview = { status: 'in_review' as const, amount: 5_000 }
  assert.deepEqual(decideWithdrawal(inReview, { kind: 'approve', allowed: false }), { outcome: 'refused', code: 'withdrawal_not_allowed' })
  // Support's approval is a step, not the owner's confirmation again: no e-mail.
  assert.deepEqual(effectsOf(decideWithdrawal(inReview, { kind: 'approve', allowed: true })), ['open_payout'])
  assert.deepEqual(decideWithdrawal({ status: 'confirmed', amount: 5_000 }, { kind: 'approve', allowed: true }), { outcome: 'refused', code: 'withdrawal_not_in_review' })
})

test('a withdrawal whose payout has a signed transaction stored keeps its amount reserved: no cancel', () => {
  for (const status of ['confirmed', 'in_review'] as const) {
    assert.deepEqual(decideWithdrawal({ status, amount: 5_000 }, { kind: 'cancel', signed: true }), { outcome: 'refused', code: 'withdrawal_not_cancelable' })
    assert.deepEqual(effectsOf(decideWithdrawal({ status, amount: 5_000 }, { kind: 'cancel', signed: false })), ['release', 'close_payout', 'notify_owner'])
  }
})

test('a withdrawal follows its payout: sending, waiting with its reason, settled when sent, completed, given back when it failed, unsettled when it came back', () => {
  const follow = (status: WithdrawalStatus, outcome: PayoutOutcome) => decideWithdrawal({ status, amount: 5_000 }, { kind: 'payout', outcome })
  const moved = (decision: WithdrawalDecision) => (decision.outcome === 'moved' ? [decision.status, decision.reviewReason ?? decision.failureCode, effectsOf(decision).filter((kind) => kind !== 'notify_owner')] : decision.outcome)
  assert.deepEqual(moved(follow('confirmed', { status: 'sending', reason: null, code: null })), ['sending', null, []])
  assert.deepEqual(moved(follow('sending', { status: 'in_review', reason: 'payout_mismatch', code: null })), ['in_review', 'payout_mismatch', []])
  assert.deepEqual(moved(follow('in_review', { status: 'queued', reason: null, code: null })), ['confirmed', null, []])
  assert.deepEqual(moved(follow('sending', { status: 'sent', reason: null, code: null })), ['sent', null, ['settle']])
  assert.deepEqual(moved(follow('sent', { status: 'completed', reason: null, code: null })), ['completed', null, []])
  assert.deepEqual(moved(follow('sending', { status: 'failed', reason: null, code: 'provider_refused' })), ['failed', 'provider_refused', ['release']])
  assert.deepEqual(moved(follow('in_review', { status: 'failed', reason: null, code: 'rejected_by_support' })), ['canceled', 'rejected_by_support', ['release']])
  assert.deepEqual(moved(follow('confirmed', { status: 'failed', reason: null, code: 'destination_canceled' })), ['failed', 'destination_canceled', ['release']])
  assert.deepEqual(moved(follow('completed', { status: 'returned', reason: null, code: 'payout_returned' })), ['failed', 'payout_returned', ['unsettle']])
  // A payout replaced by a new one, or one its owner withdrew, moves nothing: the new one, or the cancel, does.
  assert.equal(follow('in_review', { status: 'failed', reason: null, code: 'replaced' }).outcome, 'unchanged')
  assert.equal(follow('canceled', { status: 'failed', reason: null, code: 'owner_withdrew' }).outcome, 'unchanged')
  // Replayed news changes nothing.
  assert.equal(follow('sent', { status: 'sent', reason: null, code: null }).outcome, 'unchanged')
  assert.equal(follow('failed', { status: 'failed', reason: null, code: 'provider_refused' }).outcome, 'unchanged')
})

test('the owner is e-mailed when their confirmation takes effect and when the withdrawal ends, not at the steps between', () => {
  const tells = (status: WithdrawalStatus, event: Parameters<typeof decideWithdrawal>[1]) => {
    const decision = decideWithdrawal({ status, amount: 5_000 }, event)
    assert.equal(decision.outcome, 'moved')
    return effectsOf(decision).includes('notify_owner')
  }
  const payout = (status: PayoutOutcome['status'], reason: PayoutOutcome['reason'] = null, code: PayoutOutcome['code'] = null) => ({ kind: 'payout' as const, outcome: { status, reason, code } })
  // A Liquid withdrawal's way: two e-mails, confirmed and completed.
  assert.deepEqual([
    tells('requested', { kind: 'confirm', available: 5_000, allowed: true, review: null }),
    tells('confirmed', payout('sending')),
    tells('sending', payout('sent')),
    tells('sent', payout('completed')),
  ], [true, false, false, true])
  // Held at once by its limits: the confirmation is told; the hold later, support's approval and the payout sent again are not.
  assert.equal(tells('requested', { kind: 'confirm', available: 5_000, allowed: true, review: 'daily_limit' }), true)
  assert.equal(tells('in_review', { kind: 'approve', allowed: true }), false)
  assert.equal(tells('sending', payout('in_review', 'treasury_insufficient')), false)
  assert.equal(tells('in_review', payout('queued')), false)
  // Every end of a confirmed withdrawal is told: failed, returned, canceled by the owner or by support.
  assert.equal(tells('sending', payout('failed', null, 'provider_refused')), true)
  assert.equal(tells('completed', payout('returned', null, 'payout_returned')), true)
  assert.equal(tells('confirmed', { kind: 'cancel', signed: false }), true)
  assert.equal(tells('in_review', { kind: 'reject' }), true)
  // A request never confirmed that ends is not: nothing was reserved.
  assert.equal(tells('requested', { kind: 'code_expired' }), false)
  assert.equal(tells('requested', { kind: 'cancel', signed: false }), false)
})
