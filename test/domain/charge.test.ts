import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { chargeStatuses, decideArrival, decideCharge, optInWebhookEvents, paidAmountFits, payerMatches, taxNumberMatches, transition, type ChargeStatus, type ChargeView } from '../../src/domain/charge.ts'

const providerStatuses = ['pending', 'delayed', 'approved', 'under_review', 'depix_sent', 'will_refund', 'refunded', 'canceled', 'expired', 'error', 'weird']
const okFacts = { blocked: false, boundElsewhere: false, quoteAvailable: true }
const euidCharge = (status: ChargeStatus): ChargeView => ({ status, valueCents: 1000, informedEuid: 'EU000000000000001', informedTaxNumber: null, webhookEvents: [] })
const taxCharge = (status: ChargeStatus): ChargeView => ({ status, valueCents: 1000, informedEuid: null, informedTaxNumber: '11144477735', webhookEvents: [] })
const matching = { valueInCents: 1000, payerEuid: 'EU000000000000001', payerTaxNumber: '11144477735' }

test('decisions section 4, in order', () => {
  const arrival = (charge: ChargeView, payer: typeof matching, facts = okFacts) => decideArrival(charge, { status: 'depix_sent', ...payer }, facts)
  assert.deepEqual(arrival(euidCharge('waiting_payment'), matching, { ...okFacts, blocked: true, boundElsewhere: true }), { kind: 'hold', reason: 'prior_med' })
  assert.deepEqual(arrival(euidCharge('waiting_payment'), matching, { ...okFacts, boundElsewhere: true }), { kind: 'hold', reason: 'identity_bound_elsewhere' })
  assert.deepEqual(arrival(euidCharge('waiting_payment'), matching), { kind: 'credit', to: 'depix_sent' })
  assert.deepEqual(arrival(taxCharge('waiting_payment'), matching), { kind: 'credit', to: 'depix_sent' })
  const stranger = { valueInCents: 1000, payerEuid: 'EU000000000000009', payerTaxNumber: '12345678909' }
  assert.deepEqual(arrival(euidCharge('waiting_payment'), stranger), { kind: 'credit', to: 'after7d' })
  assert.deepEqual(arrival(taxCharge('waiting_payment'), stranger), { kind: 'hold', reason: 'payer_mismatch' })
  assert.deepEqual(arrival(euidCharge('waiting_payment'), matching, { ...okFacts, quoteAvailable: false }), { kind: 'hold', reason: 'quote_unavailable' })
})

test('decisions 13: what arrived decides; beyond 5 % or unstated is held as amount_mismatch, after the block checks', () => {
  const paid = (valueInCents: number | null, facts = okFacts) => decideArrival(taxCharge('waiting_payment'), { status: 'depix_sent', ...matching, valueInCents }, facts)
  for (const cents of [1000, 950, 1050, 1049, 951]) assert.deepEqual(paid(cents), { kind: 'credit', to: 'depix_sent' }, String(cents))
  for (const cents of [949, 1051, 2000, 1, 0, null]) assert.deepEqual(paid(cents), { kind: 'hold', reason: 'amount_mismatch' }, String(cents))
  assert.deepEqual(paid(2000, { ...okFacts, blocked: true }), { kind: 'hold', reason: 'prior_med' })
  assert.deepEqual(paid(2000, { ...okFacts, boundElsewhere: true }), { kind: 'hold', reason: 'identity_bound_elsewhere' })
  fc.assert(fc.property(fc.integer({ min: 1000, max: 500_000 }), fc.integer({ min: 0, max: 1_000_000 }), (value, arrived) => {
    assert.equal(paidAmountFits(value, arrived), arrived > 0 && Math.abs(arrived - value) * 20 <= value)
  }))
})

test('provider statuses map to ours from waiting_payment', () => {
  const expected: Record<string, string> = {
    pending: 'ignore', delayed: 'pending', approved: 'pending', under_review: 'under_review', will_refund: 'will_refund',
    refunded: 'refunded', canceled: 'canceled', expired: 'expired', error: 'error', weird: 'ignore',
  }
  for (const [provider, ours] of Object.entries(expected)) {
    const next = transition(taxCharge('waiting_payment'), { status: provider, ...matching }, okFacts)
    assert.equal(next.kind === 'move' ? next.to : next.kind, ours, provider)
  }
})

test('statuses decided by us never move on the provider\'s word; money that arrived is always processed', () => {
  for (const status of ['security_hold', 'depix_sent', 'after7d', 'refunded'] as const) {
    for (const provider of providerStatuses) assert.equal(transition(taxCharge(status), { status: provider, ...matching }, okFacts).kind, 'ignore', `${status} ${provider}`)
  }
  for (const status of ['waiting_payment', 'expired', 'canceled', 'error', 'pending', 'under_review'] as const) {
    assert.equal(transition(taxCharge(status), { status: 'depix_sent', ...matching }, okFacts).kind, 'credit', status)
  }
})

/** The order statuses may take: a transition to a lower rank would be a move backwards. */
const rank: Record<ChargeStatus, number> = {
  waiting_payment: 0, pending: 1, under_review: 2, expired: 3, canceled: 3, error: 3, will_refund: 4,
  security_hold: 5, after7d: 5, depix_sent: 6, refunded: 7,
}

test('property: any sequence of provider reports moves forward only and credits at most once', () => {
  fc.assert(
    fc.property(fc.boolean(), fc.array(fc.constantFrom(...providerStatuses), { maxLength: 30 }), fc.boolean(), (withEuid, reports, payerMatchesInformed) => {
      let charge: ChargeView = withEuid ? euidCharge('waiting_payment') : taxCharge('waiting_payment')
      const payer = payerMatchesInformed ? matching : { valueInCents: 1000, payerEuid: 'EU000000000000009', payerTaxNumber: '12345678909' }
      let credits = 0
      for (const status of reports) {
        const next = transition(charge, { status, ...payer }, okFacts)
        if (next.kind === 'ignore') continue
        const to: ChargeStatus = next.kind === 'credit' ? next.to : next.kind === 'hold' ? 'security_hold' : next.to
        if (next.kind === 'credit') credits++
        // The one way out of an ending: money arrived after all (never dropped).
        const backwardsAllowed = ['expired', 'canceled', 'error'].includes(charge.status) && ['pending', 'under_review'].includes(to)
        assert.ok(rank[to] >= rank[charge.status] || backwardsAllowed, `${charge.status} → ${to}`)
        charge = { ...charge, status: to }
      }
      assert.ok(credits <= 1)
      if (reports.includes('depix_sent') && !reports.slice(0, reports.indexOf('depix_sent')).some((s) => s === 'will_refund' || s === 'refunded')) {
        assert.ok(['depix_sent', 'after7d', 'security_hold'].includes(charge.status), `${reports.join(',')} ended ${charge.status}`)
      }
    }),
    { numRuns: 3000 },
  )
})

test('masked tax numbers match on the characters shown, and only with enough shown', () => {
  assert.equal(taxNumberMatches('***.444.777-**', '11144477735'), true)
  assert.equal(taxNumberMatches('***.444.778-**', '11144477735'), false)
  assert.equal(taxNumberMatches('111.444.777-35', '11144477735'), true)
  assert.equal(taxNumberMatches('***********', '11144477735'), false)
  assert.equal(taxNumberMatches('11.222.333/****-**', '11222333000181'), true)
  assert.equal(payerMatches(euidCharge('waiting_payment'), { status: 'depix_sent', valueInCents: 1000, payerEuid: null, payerTaxNumber: '11144477735' }), false)
  assert.ok(chargeStatuses.length === 11)
})

test('the one state machine: expiry, release, review and MED are decided by decideCharge', () => {
  const now = new Date('2026-11-22T12:10:00Z')
  const earlier = new Date('2026-11-22T12:09:59Z')
  assert.deepEqual(decideCharge(taxCharge('waiting_payment'), { kind: 'expiry_due', now, expiresAt: earlier }, okFacts), { kind: 'move', to: 'expired', holdReason: null, effects: [] })
  assert.equal(decideCharge(taxCharge('waiting_payment'), { kind: 'expiry_due', now: earlier, expiresAt: now }, okFacts).kind, 'ignore')
  assert.equal(decideCharge(taxCharge('depix_sent'), { kind: 'expiry_due', now, expiresAt: earlier }, okFacts).kind, 'ignore')
  assert.deepEqual(decideCharge(euidCharge('after7d'), { kind: 'release_due', now, releaseAt: earlier }, okFacts), {
    kind: 'move', to: 'depix_sent', holdReason: null, effects: [{ kind: 'release_credit' }, { kind: 'queue_webhook', event: 'balance.released' }],
  })
  assert.equal(decideCharge(euidCharge('after7d'), { kind: 'release_due', now: earlier, releaseAt: now }, okFacts).kind, 'ignore')
  assert.deepEqual(decideCharge(taxCharge('depix_sent'), { kind: 'review', decision: 'release' }, okFacts), { kind: 'refuse', code: 'payment_not_held' })
  assert.deepEqual(decideCharge(taxCharge('security_hold'), { kind: 'review', decision: 'release' }, { ...okFacts, quoteAvailable: false }), { kind: 'refuse', code: 'quote_unavailable' })
  assert.equal((decideCharge(taxCharge('security_hold'), { kind: 'review', decision: 'release' }, { ...okFacts, payerMatchesInformed: true }) as { to: string }).to, 'depix_sent')
  assert.equal((decideCharge(taxCharge('security_hold'), { kind: 'review', decision: 'release' }, { ...okFacts, payerMatchesInformed: false }) as { to: string }).to, 'after7d')
  assert.equal((decideCharge(taxCharge('security_hold'), { kind: 'review', decision: 'refund' }, okFacts) as { to: string }).to, 'will_refund')
  assert.deepEqual(decideCharge(euidCharge('after7d'), { kind: 'med' }, okFacts), { kind: 'move', to: 'refunded', holdReason: null, effects: [{ kind: 'block_identities' }, { kind: 'take_back_credit', held: true }] })
  assert.deepEqual(decideCharge(taxCharge('waiting_payment'), { kind: 'med' }, okFacts), { kind: 'move', to: 'waiting_payment', effects: [{ kind: 'block_identities' }] })
  const refundedAfterCredit = decideCharge(taxCharge('depix_sent'), { kind: 'provider_report', report: { status: 'refunded', ...matching } }, okFacts)
  assert.deepEqual(refundedAfterCredit, { kind: 'move', to: 'refunded', holdReason: null, effects: [{ kind: 'block_identities' }, { kind: 'take_back_credit', held: false }] })
})

test('property: random sequences of every event move forward, post each kind of money at most once, and reach every status', () => {
  const reached = new Set<ChargeStatus>()
  const event = fc.oneof(
    fc.record({ kind: fc.constant('provider_report' as const), status: fc.constantFrom(...providerStatuses), payerMatches: fc.boolean(), fits: fc.boolean() }),
    fc.record({ kind: fc.constantFrom('expiry_due' as const, 'release_due' as const), due: fc.boolean() }),
    fc.record({ kind: fc.constant('review' as const), decision: fc.constantFrom('release' as const, 'refund' as const), payerMatches: fc.boolean() }),
    fc.record({ kind: fc.constant('med' as const) }),
  )
  fc.assert(
    fc.property(fc.boolean(), fc.array(event, { maxLength: 25 }), fc.record({ blocked: fc.boolean(), boundElsewhere: fc.boolean(), quoteAvailable: fc.boolean() }), fc.boolean(), (withEuid, events, facts, optedIn) => {
      let charge: ChargeView = { ...(withEuid ? euidCharge('waiting_payment') : taxCharge('waiting_payment')), webhookEvents: optedIn ? optInWebhookEvents : [] }
      const posted = { credit: 0, release: 0, takeBack: 0 }
      let held = false
      reached.add(charge.status)
      const now = new Date('2026-11-30T00:00:00Z')
      for (const happened of events) {
        const before = charge.status
        const decision = decideCharge(charge, happened.kind === 'provider_report'
          ? { kind: 'provider_report', report: { status: happened.status, valueInCents: happened.fits ? 1000 : 2000, ...(happened.payerMatches ? matching : { payerEuid: 'EU000000000000009', payerTaxNumber: '12345678909' }) } }
          : happened.kind === 'review' ? { kind: 'review', decision: happened.decision }
          : happened.kind === 'med' ? { kind: 'med' }
          : happened.kind === 'expiry_due' ? { kind: 'expiry_due', now, expiresAt: happened.due ? new Date(0) : new Date(now.getTime() + 1) }
          : { kind: 'release_due', now, releaseAt: happened.due ? new Date(0) : null },
        { ...facts, ...(happened.kind === 'review' ? { payerMatchesInformed: happened.payerMatches } : {}) })
        if (decision.kind !== 'move') continue
        for (const effect of decision.effects) {
          if (effect.kind === 'credit') { posted.credit++; held = effect.held }
          if (effect.kind === 'release_credit') { assert.ok(held, 'released a credit that was not held'); held = false; posted.release++ }
          if (effect.kind === 'take_back_credit') { assert.equal(posted.credit, 1, 'took back what was never credited'); posted.takeBack++ }
        }
        // Opt-in events: one per change into a status that has one; none unless asked for.
        const optIn = decision.effects.filter((effect) => effect.kind === 'queue_webhook' && (optInWebhookEvents as readonly string[]).includes(effect.event))
        const announces = decision.to !== before && ['expired', 'security_hold', 'under_review', 'will_refund', 'refunded'].includes(decision.to)
        assert.equal(optIn.length, optedIn && announces ? 1 : 0, `${before} → ${decision.to}: ${JSON.stringify(optIn)}`)
        // Two ways out of a rank: money that arrived after an ending, and support refunding a hold.
        const backwardsAllowed = (['expired', 'canceled', 'error'].includes(before) && ['pending', 'under_review'].includes(decision.to)) ||
          (before === 'security_hold' && decision.to === 'will_refund' && happened.kind === 'review')
        assert.ok(rank[decision.to] >= rank[before] || backwardsAllowed, `${before} → ${decision.to} on ${happened.kind}`)
        charge = { ...charge, status: decision.to }
        reached.add(charge.status)
      }
      assert.ok(posted.credit <= 1 && posted.release <= 1 && posted.takeBack <= 1, JSON.stringify(posted))
      if (posted.takeBack === 1) assert.equal(charge.status, 'refunded')
    }),
    { numRuns: 3000 },
  )
  assert.deepEqual([...reached].sort(), [...chargeStatuses].sort(), 'every status is reachable')
})

test('opt-in webhook events: each names the status change it announces, and only for a charge that asked', () => {
  const now = new Date('2026-11-22T12:10:00Z')
  const optedIn = (status: ChargeStatus): ChargeView => ({ ...taxCharge(status), webhookEvents: optInWebhookEvents })
  const events = (decision: ReturnType<typeof decideCharge>) =>
    decision.kind === 'move' ? decision.effects.flatMap((effect) => (effect.kind === 'queue_webhook' ? [effect.event] : [])) : []
  const report = (status: string) => ({ kind: 'provider_report' as const, report: { status, ...matching } })
  assert.deepEqual(events(decideCharge(optedIn('waiting_payment'), { kind: 'expiry_due', now, expiresAt: new Date(0) }, okFacts)), ['payment.expired'])
  assert.deepEqual(events(decideCharge(taxCharge('waiting_payment'), { kind: 'expiry_due', now, expiresAt: new Date(0) }, okFacts)), [])
  assert.deepEqual(events(decideCharge(optedIn('waiting_payment'), report('depix_sent'), { ...okFacts, blocked: true })), ['payment.held'])
  assert.deepEqual(events(decideCharge(optedIn('pending'), report('under_review'), okFacts)), ['payment.under_review'])
  assert.deepEqual(events(decideCharge(optedIn('security_hold'), { kind: 'review', decision: 'refund' }, okFacts)), ['payment.refunded'])
  assert.deepEqual(events(decideCharge(optedIn('will_refund'), report('refunded'), okFacts)), ['payment.refunded'])
  assert.deepEqual(events(decideCharge(optedIn('depix_sent'), { kind: 'med' }, okFacts)), ['payment.disputed'])
  assert.deepEqual(events(decideCharge(optedIn('depix_sent'), report('refunded'), okFacts)), ['payment.disputed'])
  // The spec's events stay as they were beside the opt-in ones.
  assert.deepEqual(events(decideCharge(optedIn('waiting_payment'), report('depix_sent'), okFacts)), ['payment.confirmed'])
  assert.deepEqual(events(decideCharge(optedIn('expired'), report('expired'), okFacts)), [])
})
