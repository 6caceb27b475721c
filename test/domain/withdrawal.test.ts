// The pure rules of withdrawals (decisions 15, issue 23 point 3): fees, bounds, limits, unit
// conversions, and the state machine decideWithdrawal, unit by unit and over random sequences.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { currencies, type Currency } from '../../src/domain/money.ts'
import {
  brlCentsOf,
  decideWithdrawal,
  failureCodes,
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
  type WithdrawalDecision,
  type WithdrawalEvent,
  type ReviewReason,
  type WithdrawalLimits,
  type WithdrawalStatus,
} from '../../src/domain/withdrawal.ts'

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

type EventKind = WithdrawalEvent['kind']

/**
 * Every move the state machine may make: from, on, to. Anything else is a bug, and every line is
 * reached by the random sequences below.
 */
const edges: ReadonlyArray<readonly [WithdrawalStatus, EventKind, WithdrawalStatus]> = [
  ['requested', 'confirm', 'confirmed'],
  ['requested', 'confirm', 'in_review'],
  ['requested', 'cancel', 'canceled'],
  ['requested', 'code_expired', 'canceled'],
  ['confirmed', 'cancel', 'canceled'],
  ['confirmed', 'start_sending', 'sending'],
  ['confirmed', 'start_sending', 'failed'],
  ['confirmed', 'start_sending', 'in_review'],
  ['confirmed', 'hold', 'in_review'],
  ['confirmed', 'fail', 'failed'],
  ['in_review', 'cancel', 'canceled'],
  ['in_review', 'approve', 'confirmed'],
  ['in_review', 'new_payout', 'confirmed'],
  ['in_review', 'reject', 'canceled'],
  ['sending', 'hold', 'in_review'],
  ['sending', 'fail', 'failed'],
  ['sending', 'sent', 'sent'],
  ['sent', 'completed', 'completed'],
  ['sent', 'returned', 'failed'],
  ['completed', 'returned', 'failed'],
]
const edgeKey = (from: WithdrawalStatus, on: EventKind, to: WithdrawalStatus) => `${from} -${on}-> ${to}`
const allowedEdges = new Set(edges.map(([from, on, to]) => edgeKey(from, on, to)))

/** A person's request that does not apply is refused with its reason; a worker's or provider's event is just unchanged. */
const refusedWith: Partial<Record<EventKind, string>> = { cancel: 'withdrawal_not_cancelable', approve: 'withdrawal_not_in_review', new_payout: 'withdrawal_not_in_review', reject: 'withdrawal_not_in_review', returned: 'withdrawal_not_cancelable' }

/** The money effects each edge carries (besides notify_owner, which every move carries). */
const moneyEffects: Record<string, string[]> = {
  [edgeKey('requested', 'confirm', 'confirmed')]: ['reserve', 'queue_send'],
  [edgeKey('requested', 'confirm', 'in_review')]: ['reserve'],
  [edgeKey('confirmed', 'cancel', 'canceled')]: ['release'],
  [edgeKey('confirmed', 'fail', 'failed')]: ['release'],
  [edgeKey('confirmed', 'start_sending', 'failed')]: ['release'],
  [edgeKey('in_review', 'cancel', 'canceled')]: ['release'],
  [edgeKey('in_review', 'approve', 'confirmed')]: ['queue_send'],
  [edgeKey('in_review', 'new_payout', 'confirmed')]: ['forget_provider_payout', 'queue_send'],
  [edgeKey('in_review', 'reject', 'canceled')]: ['release'],
  [edgeKey('sending', 'fail', 'failed')]: ['release'],
  [edgeKey('sending', 'sent', 'sent')]: ['settle'],
  [edgeKey('sent', 'returned', 'failed')]: ['unsettle'],
  [edgeKey('completed', 'returned', 'failed')]: ['unsettle'],
}

const confirmArbitrary = (amount: number) =>
  fc.record({
    kind: fc.constant('confirm' as const),
    available: fc.oneof(fc.integer({ min: -amount, max: 3 * amount }), fc.constantFrom(amount - 1, amount, amount + 1)),
    allowed: fc.boolean(),
    review: fc.option(fc.constantFrom(...reviewReasons), { nil: null }),
  })

const eventArbitrary = (amount: number): fc.Arbitrary<WithdrawalEvent> =>
  fc.oneof(
    confirmArbitrary(amount),
    fc.constant({ kind: 'cancel' as const }),
    fc.constant({ kind: 'code_expired' as const }),
    fc.record({ kind: fc.constant('approve' as const), allowed: fc.boolean() }),
    fc.constant({ kind: 'new_payout' as const }),
    fc.constant({ kind: 'reject' as const }),
    fc.record({ kind: fc.constant('start_sending' as const), allowed: fc.boolean(), destinationActive: fc.boolean() }),
    fc.record({ kind: fc.constant('hold' as const), reason: fc.constantFrom(...reviewReasons) }),
    fc.record({ kind: fc.constant('fail' as const), code: fc.constantFrom(...failureCodes) }),
    fc.constant({ kind: 'sent' as const }),
    fc.constant({ kind: 'completed' as const }),
    fc.constant({ kind: 'returned' as const }),
  )

const effectsOf = (decision: WithdrawalDecision) => (decision.outcome === 'moved' ? decision.effects.map((effect) => effect.kind) : [])

test('every status × every event: the move in the table, or unchanged, or the person is refused with the reason', () => {
  const sample: Record<EventKind, WithdrawalEvent> = {
    confirm: { kind: 'confirm', available: 10_000, allowed: true, review: null },
    cancel: { kind: 'cancel' },
    code_expired: { kind: 'code_expired' },
    approve: { kind: 'approve', allowed: true },
    new_payout: { kind: 'new_payout' },
    reject: { kind: 'reject' },
    start_sending: { kind: 'start_sending', allowed: true, destinationActive: true },
    hold: { kind: 'hold', reason: 'treasury_insufficient' },
    fail: { kind: 'fail', code: 'provider_refused' },
    sent: { kind: 'sent' },
    completed: { kind: 'completed' },
    returned: { kind: 'returned' },
  }
  for (const status of withdrawalStatuses) {
    for (const [kind, event] of Object.entries(sample) as Array<[EventKind, WithdrawalEvent]>) {
      // A new provider payout is ordered only for one whose reply asked another amount.
      const decision = decideWithdrawal({ status, amount: 10_000, ...(kind === 'new_payout' ? { reviewReason: 'payout_mismatch' as const } : {}) }, event)
      const edge = edges.find(([from, on]) => from === status && on === kind)
      const where = `${status} on ${kind}`
      if (edge) {
        assert.equal(decision.outcome, 'moved', where)
        assert.ok(decision.outcome === 'moved' && allowedEdges.has(edgeKey(status, kind, decision.status)), where)
      } else if (refusedWith[kind] !== undefined) {
        assert.deepEqual(decision, { outcome: 'refused', code: refusedWith[kind] }, where)
      } else {
        assert.deepEqual(decision, { outcome: 'unchanged' }, where)
      }
    }
  }
})

test('property: random event sequences from any status keep every rule of the state machine', () => {
  const reached = new Set<string>()
  fc.assert(
    fc.property(
      fc.constantFrom(...withdrawalStatuses),
      fc.integer({ min: 1, max: 1_000_000 }).chain((amount) => fc.tuple(fc.constant(amount), fc.array(eventArbitrary(amount), { maxLength: 30 }))),
      (start, [amount, events]) => {
        let status = start
        let reviewReason: ReviewReason | null = null
        // (c) what sits in the withdrawing book: a reserved start already holds its amount there.
        let outstanding = isReserved(start) ? 1 : 0
        let reserves = 0
        let settles = 0
        let unsettles = 0
        for (const event of events) {
          const before = status
          const reviewBefore: ReviewReason | null = reviewReason
          const decision = decideWithdrawal({ status, amount, reviewReason }, event)
          // (g) a confirmation is refused when not allowed, then when the balance does not cover it.
          if (event.kind === 'confirm' && before === 'requested') {
            if (!event.allowed) assert.deepEqual(decision, { outcome: 'refused', code: 'withdrawal_not_allowed' })
            else if (event.available < amount) assert.deepEqual(decision, { outcome: 'refused', code: 'insufficient_funds' })
            else {
              assert.equal(decision.outcome, 'moved')
              assert.ok(decision.outcome === 'moved')
              assert.equal(decision.status, event.review === null ? 'confirmed' : 'in_review')
              assert.equal(decision.reviewReason, event.review)
            }
          }
          if (decision.outcome !== 'moved') {
            // Support's approval meets the owner's facts, and never a reply that asked another amount.
            const approveRefusal: string | null = event.kind === 'approve' && before === 'in_review'
              ? (reviewBefore === 'payout_mismatch' ? 'payout_mismatch_unpayable' : 'withdrawal_not_allowed')
              : null
            if (decision.outcome === 'refused' && event.kind !== 'confirm') assert.equal(decision.code, approveRefusal ?? refusedWith[event.kind], `${before} on ${event.kind}`)
            continue
          }
          const edge = edgeKey(before, event.kind, decision.status)
          reached.add(edge)
          // (a) only the allowed transitions.
          assert.ok(allowedEdges.has(edge), `not an allowed transition: ${edge}`)
          // (e) a final status never moves again, but for money that came back after it was completed;
          // sent moves only to completed, or back to failed by `returned`.
          assert.ok(!isFinal(before) || (before === 'completed' && event.kind === 'returned'), `a final status moved: ${edge}`)
          if (before === 'sent') assert.ok(decision.status === 'completed' || (decision.status === 'failed' && event.kind === 'returned'), edge)
          // (f) every move tells the owner, once, after the rest.
          const kinds = effectsOf(decision)
          assert.equal(kinds.filter((kind) => kind === 'notify_owner').length, 1, edge)
          assert.equal(kinds.at(-1), 'notify_owner', edge)
          assert.deepEqual(kinds.slice(0, -1), moneyEffects[edge] ?? [], edge)
          // Why it waits or why it ended is said exactly when it waits or ended without paying.
          assert.equal(decision.reviewReason !== null, decision.status === 'in_review', edge)
          assert.equal(decision.failureCode !== null, decision.status === 'failed' || decision.status === 'canceled', edge)
          if (event.kind === 'hold') assert.equal(decision.reviewReason, event.reason)
          if (event.kind === 'fail') assert.equal(decision.failureCode, event.code)
          // The worker is asked to send exactly when it becomes confirmed.
          assert.equal(kinds.includes('queue_send'), decision.status === 'confirmed', edge)
          for (const kind of kinds) {
            if (kind === 'reserve') {
              // (b) once, from requested, on confirm.
              reserves++
              assert.ok(before === 'requested' && event.kind === 'confirm', edge)
              outstanding++
            }
            if (kind === 'release') outstanding--
            if (kind === 'settle') {
              // (d) once, on `sent`, from sending.
              settles++
              assert.ok(before === 'sending' && event.kind === 'sent', edge)
              outstanding--
            }
            if (kind === 'unsettle') {
              unsettles++
              assert.ok(settles === 1 || start === 'sent' || start === 'completed', 'unsettled what was never settled')
            }
          }
          status = decision.status
          reviewReason = decision.reviewReason
          assert.ok(reserves <= 1 && settles <= 1 && unsettles <= 1)
          // (c) reserved exactly when the status says so.
          assert.equal(outstanding, isReserved(status) ? 1 : 0, `after ${edge}`)
        }
      },
    ),
    { numRuns: 3000 },
  )
  assert.deepEqual([...reached].sort(), [...allowedEdges].sort(), 'every allowed transition is reached')
})

test('confirm: not allowed wins over the balance; insufficient below the amount, at the amount it reserves', () => {
  const requested = { status: 'requested' as const, amount: 5_000 }
  const confirm = (available: number, allowed: boolean, review: ReviewReason | null = null) =>
    decideWithdrawal(requested, { kind: 'confirm', available, allowed, review })
  assert.deepEqual(confirm(0, false), { outcome: 'refused', code: 'withdrawal_not_allowed' })
  assert.deepEqual(confirm(1_000_000, false), { outcome: 'refused', code: 'withdrawal_not_allowed' })
  assert.deepEqual(confirm(4_999, true), { outcome: 'refused', code: 'insufficient_funds' })
  assert.deepEqual(confirm(-1, true), { outcome: 'refused', code: 'insufficient_funds' })
  assert.deepEqual(confirm(5_000, true), {
    outcome: 'moved', status: 'confirmed', reviewReason: null, failureCode: null, effects: [{ kind: 'reserve' }, { kind: 'queue_send' }, { kind: 'notify_owner' }],
  })
  assert.deepEqual(confirm(5_000, true, 'daily_limit'), {
    outcome: 'moved', status: 'in_review', reviewReason: 'daily_limit', failureCode: null, effects: [{ kind: 'reserve' }, { kind: 'notify_owner' }],
  })
  // A second confirmation (a second click, a replay) changes nothing and reserves nothing.
  for (const status of withdrawalStatuses.filter((s) => s !== 'requested')) assert.deepEqual(decideWithdrawal({ status, amount: 5_000 }, { kind: 'confirm', available: 10 ** 9, allowed: true, review: null }), { outcome: 'unchanged' })
})

test('a withdrawal whose signed transaction is stored keeps its amount reserved: no cancel, no failure, no reject unless the transaction is dead', () => {
  for (const status of ['confirmed', 'in_review'] as const) {
    assert.deepEqual(decideWithdrawal({ status, amount: 5_000, signed: true }, { kind: 'cancel' }), { outcome: 'refused', code: 'withdrawal_not_cancelable' })
  }
  assert.deepEqual(decideWithdrawal({ status: 'sending', amount: 5_000, signed: true }, { kind: 'fail', code: 'payout_expired' }), { outcome: 'unchanged' })
  assert.deepEqual(decideWithdrawal({ status: 'in_review', amount: 5_000, signed: true }, { kind: 'reject' }), { outcome: 'refused', code: 'withdrawal_not_cancelable' })
  const dead = decideWithdrawal({ status: 'in_review', amount: 5_000, signed: true }, { kind: 'reject', transactionDead: true })
  assert.equal(dead.outcome === 'moved' && dead.status, 'canceled')
  assert.ok(dead.outcome === 'moved' && dead.effects.some((effect) => effect.kind === 'release'))
})

test('support meets the facts the owner meets: approve is refused while the account may not withdraw, and a mismatched payout is never approved, only renewed', () => {
  const inReview = { status: 'in_review' as const, amount: 5_000 }
  assert.deepEqual(decideWithdrawal(inReview, { kind: 'approve', allowed: false }), { outcome: 'refused', code: 'withdrawal_not_allowed' })
  assert.deepEqual(decideWithdrawal({ ...inReview, reviewReason: 'payout_mismatch' }, { kind: 'approve', allowed: true }), { outcome: 'refused', code: 'payout_mismatch_unpayable' })
  const renewed = decideWithdrawal({ ...inReview, reviewReason: 'payout_mismatch' }, { kind: 'new_payout' })
  assert.ok(renewed.outcome === 'moved' && renewed.status === 'confirmed')
  assert.deepEqual(renewed.effects.map((effect) => effect.kind), ['forget_provider_payout', 'queue_send', 'notify_owner'])
  assert.deepEqual(decideWithdrawal({ ...inReview, reviewReason: 'payout_mismatch', signed: true }, { kind: 'new_payout' }), { outcome: 'refused', code: 'withdrawal_not_cancelable' })
  assert.deepEqual(decideWithdrawal({ ...inReview, reviewReason: 'over_threshold' }, { kind: 'new_payout' }), { outcome: 'refused', code: 'withdrawal_not_in_review' })
})

test('the send re-reads the facts: a destination canceled since gives the amount back, an account no longer allowed waits for support', () => {
  const confirmed = { status: 'confirmed' as const, amount: 5_000 }
  const gone = decideWithdrawal(confirmed, { kind: 'start_sending', allowed: true, destinationActive: false })
  assert.ok(gone.outcome === 'moved' && gone.status === 'failed' && gone.failureCode === 'destination_canceled' && gone.effects.some((effect) => effect.kind === 'release'))
  const blocked = decideWithdrawal(confirmed, { kind: 'start_sending', allowed: false, destinationActive: true })
  assert.ok(blocked.outcome === 'moved' && blocked.status === 'in_review' && blocked.reviewReason === 'account_not_allowed' && !blocked.effects.some((effect) => effect.kind === 'release'))
})
