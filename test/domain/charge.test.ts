import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import {
  chargeStatuses,
  decideArrival,
  decideCharge,
  optInWebhookEvents,
  paidAmountFits,
  payerMatches,
  reviewDecisionsFor,
  taxNumberMatches,
  type ArrivalFacts,
  type ChargeDecision,
  type ChargeEvent,
  type ChargeStatus,
  type ChargeView,
  type PaymentReport,
} from '../../src/domain/charge.ts'
import { expectedChargeBooks, bookKey, clawbackLossPosting, clawbackPosting, creditPosting, isBalanced, refundOwedPosting, refundSettledPosting, releasePosting, type Entry } from '../../src/domain/ledger.ts'
import { parseProviderStatus, providerStatuses } from '../../src/domain/provider-report.ts'
import { creditCapUnits, type Quote } from '../../src/domain/quotes.ts'

const quote: Quote = { micros: 350_000_000_000, source: 'ticker', at: new Date('2026-11-22T12:00:00Z'), referenceMicros: 350_000_000_000 }
const okFacts: ArrivalFacts = { blocked: false, boundElsewhere: false, quote }
const base: Omit<ChargeView, 'status' | 'informedEuid' | 'informedTaxNumber'> = {
  valueCents: 1000, currency: 'DEPIX', webhookEvents: [], paidCents: null, creditedUnits: null, quoteMicros: null, takenBackCents: 0, takenBackUnits: 0,
  takenBackAll: false, clawback: null, providerReturning: false, refund: null, holdReason: null, payerEuid: null, payerTaxNumber: null, refundedHeldUnits: 0, merchantRefundedCents: 0, refundDisputeLossCents: 0,
}
const euidCharge = (status: ChargeStatus, extra: Partial<ChargeView> = {}): ChargeView => ({ ...base, status, informedEuid: 'EU000000000000001', informedTaxNumber: null, ...extra })
const taxCharge = (status: ChargeStatus, extra: Partial<ChargeView> = {}): ChargeView => ({ ...base, status, informedEuid: null, informedTaxNumber: '11144477735', ...extra })
const matching: PaymentReport = { valueInCents: 1000, payerEuid: 'EU000000000000001', payerTaxNumber: '11144477735' }
const stranger: PaymentReport = { valueInCents: 1000, payerEuid: 'EU000000000000009', payerTaxNumber: '12345678909' }
const arrived = (report: PaymentReport, facts: ArrivalFacts = okFacts): ChargeEvent => ({ kind: 'money_arrived', report, facts, said: said('depix_sent') })
/** A provider status as its adapter reports it (provider/eulen-replies.ts). */
const said = (status: string) => ({ statusText: status, report: { key: `status:${status}`, blockReason: `${status} reported by the provider`, body: { status } } })
const providerSays = (status: Extract<ChargeEvent, { kind: 'provider_status' }>['status']): ChargeEvent => ({ kind: 'provider_status', status, said: said(status) })
/** A MED as its adapter reports it; it names no payer of its own unless told. */
const med = (principalCents: number | null, payer: { euid?: string; taxNumber?: string } = {}): ChargeEvent => ({
  kind: 'med', principalCents, euid: payer.euid ?? null, taxNumber: payer.taxNumber ?? null, report: { key: `med:${principalCents}`, blockReason: 'MED on deposit q1', body: { principalValueInCents: principalCents } },
})
const toOf = (decision: ChargeDecision) => (decision.outcome === 'moved' ? decision.status : decision.outcome === 'refused' ? `refuse:${decision.code}` : 'ignore')
const effectKinds = (decision: ChargeDecision) => (decision.outcome === 'moved' ? decision.effects.map((effect) => effect.kind) : [])

test('decisions section 4, in order', () => {
  const arrival = (charge: ChargeView, payer: PaymentReport, facts = okFacts) => toOf(decideArrival(charge, payer, facts))
  assert.equal(arrival(euidCharge('waiting_payment'), matching, { ...okFacts, blocked: true, boundElsewhere: true }), 'security_hold')
  assert.equal((decideArrival(euidCharge('waiting_payment'), matching, { ...okFacts, blocked: true }) as { reviewReason: string }).reviewReason, 'prior_med')
  assert.equal((decideArrival(euidCharge('waiting_payment'), matching, { ...okFacts, boundElsewhere: true }) as { reviewReason: string }).reviewReason, 'identity_bound_elsewhere')
  assert.equal(arrival(euidCharge('waiting_payment'), matching), 'depix_sent')
  assert.equal(arrival(taxCharge('waiting_payment'), matching), 'depix_sent')
  assert.equal(arrival(euidCharge('waiting_payment'), stranger), 'after7d')
  assert.equal((decideArrival(taxCharge('waiting_payment'), stranger, okFacts) as { reviewReason: string }).reviewReason, 'payer_mismatch')
  assert.equal((decideArrival(euidCharge('waiting_payment', { currency: 'BTC' }), matching, { ...okFacts, quote: null }) as { reviewReason: string }).reviewReason, 'quote_unavailable')
  // A DEPIX credit needs no quote.
  assert.equal(arrival(euidCharge('waiting_payment'), matching, { ...okFacts, quote: null }), 'depix_sent')
})

test('what arrived decides; beyond 5 % or unstated is held as amount_mismatch, after the block checks', () => {
  const paid = (cents: number | null, facts = okFacts) => decideArrival(taxCharge('waiting_payment'), { ...matching, valueInCents: cents }, facts)
  for (const cents of [1000, 950, 1050, 1049, 951]) assert.equal(toOf(paid(cents)), 'depix_sent', String(cents))
  for (const cents of [949, 1051, 2000, 1, 0, null]) assert.equal((paid(cents) as { reviewReason: string }).reviewReason, 'amount_mismatch', String(cents))
  assert.equal((paid(2000, { ...okFacts, blocked: true }) as { reviewReason: string }).reviewReason, 'prior_med')
  fc.assert(fc.property(fc.integer({ min: 1000, max: 500_000 }), fc.integer({ min: 0, max: 1_000_000 }), (value, got) => {
    assert.equal(paidAmountFits(value, got), got > 0 && Math.abs(got - value) * 20 <= value)
  }))
})

test('the credit carries its amount: what arrived less the fee, converted at the quote; the executor re-reads nothing', () => {
  const decision = decideArrival(euidCharge('waiting_payment', { currency: 'BTC', valueCents: 10_000 }), { ...matching, valueInCents: 10_050 }, okFacts)
  assert.equal(decision.outcome, 'moved')
  const credit = (decision as Extract<ChargeDecision, { outcome: 'moved' }>).effects[0]
  // floor(9950 × 10^8 × 100 / (35 000 000 × 106))
  assert.deepEqual(credit, { kind: 'credit', held: false, arrivedCents: 10_050, units: 26819, quote })
})

test('no charge credits more than what arrived at the last accepted price, plus 1 %; a price far below it waits', () => {
  fc.assert(fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.constantFrom('BTC' as const, 'USDt' as const), fc.integer({ min: 1, max: 10 ** 14 }), fc.integer({ min: 1, max: 10 ** 14 }), (arrivedCents, currency, micros, reference) => {
    const decision = decideArrival({ ...euidCharge('waiting_payment'), currency, valueCents: arrivedCents }, { ...matching, valueInCents: arrivedCents }, { ...okFacts, quote: { ...quote, micros, referenceMicros: reference } })
    if (decision.outcome !== 'moved' || decision.status === 'security_hold') return
    const credit = decision.effects.find((effect) => effect.kind === 'credit')!
    assert.ok(credit.kind === 'credit' && credit.units <= creditCapUnits(arrivedCents, currency, reference))
  }), { numRuns: 2000 })
  // BTC last accepted at R$ 350.000,00; now 8 % lower, within the 10 % band: R$ 100,00 would credit
  // 28 993 sats, above the cap of 28 857 (R$ 100,00 at R$ 350.000,00, plus 1 %).
  const lower = decideArrival(euidCharge('waiting_payment', { currency: 'BTC', valueCents: 10_000 }), { ...matching, valueInCents: 10_000 }, { ...okFacts, quote: { ...quote, micros: 322_000_000_000 } })
  assert.equal((lower as { reviewReason: string }).reviewReason, 'quote_unavailable')
  assert.equal(toOf(decideArrival(euidCharge('waiting_payment', { currency: 'BTC', valueCents: 10_000 }), { ...matching, valueInCents: 10_000 }, { ...okFacts, quote: { ...quote, micros: 340_000_000_000 } })), 'depix_sent')
})

test('the adapter\'s status strings become the domain\'s once; unknown ones are none', () => {
  for (const status of providerStatuses) assert.equal(parseProviderStatus(status), status)
  assert.equal(parseProviderStatus('weird'), null)
  assert.equal(parseProviderStatus('DEPIX_SENT'), null)
})

test('provider statuses map to ours from waiting_payment', () => {
  const expected: Record<string, string> = {
    pending: 'waiting_payment', delayed: 'pending', approved: 'pending', under_review: 'under_review', will_refund: 'will_refund',
    refunded: 'refunded', canceled: 'canceled', expired: 'expired', error: 'error',
  }
  for (const [provider, ours] of Object.entries(expected)) {
    const decision = decideCharge(taxCharge('waiting_payment'), providerSays(provider as never))
    assert.equal(decision.outcome === 'moved' ? decision.status : 'waiting_payment', ours, provider)
  }
})

test('statuses decided by us never move on the provider\'s word; money that arrived is always processed', () => {
  for (const status of ['security_hold', 'depix_sent', 'after7d', 'refunded'] as const) {
    assert.equal(decideCharge(taxCharge(status), arrived(matching)).outcome, 'unchanged', `${status} arrival`)
    for (const provider of ['pending', 'delayed', 'approved', 'under_review', 'canceled', 'expired', 'error'] as const) {
      assert.equal(decideCharge(taxCharge(status), providerSays(provider)).outcome, 'unchanged', `${status} ${provider}`)
    }
  }
  for (const status of ['waiting_payment', 'expired', 'canceled', 'error', 'pending', 'under_review'] as const) {
    assert.equal(effectKinds(decideCharge(taxCharge(status), arrived(matching)))[0], 'credit', status)
  }
})

test('masked tax numbers match on the characters shown, and only with enough shown', () => {
  assert.equal(taxNumberMatches('***.444.777-**', '11144477735'), true)
  assert.equal(taxNumberMatches('***.444.778-**', '11144477735'), false)
  assert.equal(taxNumberMatches('111.444.777-35', '11144477735'), true)
  assert.equal(taxNumberMatches('***********', '11144477735'), false)
  assert.equal(taxNumberMatches('11.222.333/****-**', '11222333000181'), true)
  assert.equal(payerMatches(euidCharge('waiting_payment'), { payerEuid: null, payerTaxNumber: '11144477735' }), false)
  assert.ok(chargeStatuses.length === 11)
})

test('the one state machine: expiry, release, review and MED are decided by decideCharge', () => {
  const now = new Date('2026-11-22T12:10:00Z')
  const earlier = new Date('2026-11-22T12:09:59Z')
  assert.deepEqual(decideCharge(taxCharge('waiting_payment'), { kind: 'expiry_due', now, expiresAt: earlier }), { outcome: 'moved', status: 'expired', reviewReason: null, failureCode: null, effects: [] })
  assert.equal(decideCharge(taxCharge('waiting_payment'), { kind: 'expiry_due', now: earlier, expiresAt: now }).outcome, 'unchanged')
  assert.equal(decideCharge(taxCharge('depix_sent'), { kind: 'expiry_due', now, expiresAt: earlier }).outcome, 'unchanged')
  const held = euidCharge('after7d', { paidCents: 1000, creditedUnits: 900 })
  assert.deepEqual(decideCharge(held, { kind: 'release_due', now, releaseAt: earlier }), {
    outcome: 'moved', status: 'depix_sent', reviewReason: null, failureCode: null, effects: [{ kind: 'release_credit', units: 900 }, { kind: 'queue_webhook', event: 'balance.released' }],
  })
  assert.equal(decideCharge(held, { kind: 'release_due', now: earlier, releaseAt: now }).outcome, 'unchanged')
  const release = (charge: ChargeView, payerMatchesInformed: boolean, q: Quote | null = quote, entered: number | null = null): ChargeEvent => ({ kind: 'review', decision: 'release', facts: { quote: q, payerMatchesInformed }, enteredPaidCents: entered })
  assert.deepEqual(decideCharge(taxCharge('depix_sent'), release(taxCharge('depix_sent'), true)), { outcome: 'refused', code: 'payment_not_held' })
  const hold = taxCharge('security_hold', { paidCents: 1000, currency: 'BTC' })
  assert.deepEqual(decideCharge(hold, release(hold, true, null)), { outcome: 'refused', code: 'quote_unavailable' })
  assert.equal(toOf(decideCharge(hold, release(hold, true))), 'depix_sent')
  assert.equal(toOf(decideCharge(hold, release(hold, false))), 'after7d')
  assert.equal(toOf(decideCharge(hold, { kind: 'review', decision: 'refund', enteredPaidCents: null })), 'will_refund')
  const medded = decideCharge(euidCharge('after7d', { paidCents: 1000, creditedUnits: 900 }), med(null))
  assert.equal(toOf(medded), 'refunded')
  assert.deepEqual(effectKinds(medded), ['block_identities', 'take_back', 'record_clawback'])
  // Each effect says what it records: whom the block names and why, the report's key and body.
  assert.deepEqual(decideCharge(taxCharge('waiting_payment', { payerTaxNumber: '11144477735' }), med(null, { euid: 'EU000000000000009' })), {
    outcome: 'moved', status: 'waiting_payment', reviewReason: null, failureCode: null, effects: [
      { kind: 'block_identities', taxNumber: '11144477735', euid: 'EU000000000000009', reason: 'MED on deposit q1' },
      { kind: 'record_clawback', clawback: 'med', takenBackCents: 0, all: true, principalCents: null, key: 'med:null', body: { principalValueInCents: null } },
    ],
  })
  const refundedAfterCredit = decideCharge(taxCharge('depix_sent', { paidCents: 1000, creditedUnits: 900 }), providerSays('refunded'))
  assert.equal(toOf(refundedAfterCredit), 'refunded')
  assert.deepEqual(effectKinds(refundedAfterCredit), ['block_identities', 'take_back', 'record_clawback', 'keep_provider_status'])
})

test('a claw-back seen while held is recorded, and the hold can then only be refunded (if the money is with us) or closed', () => {
  const hold = taxCharge('security_hold', { paidCents: 1000 })
  assert.deepEqual(reviewDecisionsFor(hold), ['release', 'refund'])
  for (const [event, clawback, offered] of [
    [med(200), 'med', ['refund']],
    [med(null), 'med', ['close']],
    [providerSays('refunded'), 'refunded', ['close']],
    // The provider will return it: nothing to decide until it has.
    [providerSays('will_refund'), 'will_refund', []],
  ] as const) {
    const decision = decideCharge(hold, event)
    assert.equal(toOf(decision), 'security_hold', JSON.stringify(event))
    const recorded = (decision as Extract<ChargeDecision, { outcome: 'moved' }>).effects.find((effect) => effect.kind === 'record_clawback')
    assert.equal(recorded?.kind === 'record_clawback' && recorded.clawback, clawback)
    assert.ok(!effectKinds(decision).includes('take_back'), 'a hold posted nothing, so nothing is taken back from the account')
    const after: ChargeView = {
      ...hold,
      clawback,
      takenBackCents: recorded?.kind === 'record_clawback' ? recorded.takenBackCents : 0,
      takenBackAll: recorded?.kind === 'record_clawback' && recorded.all,
      providerReturning: clawback !== 'med',
    }
    assert.deepEqual(reviewDecisionsFor(after), offered, JSON.stringify(event))
    assert.deepEqual(decideCharge(after, { kind: 'review', decision: 'release', facts: { quote, payerMatchesInformed: true }, enteredPaidCents: null }), { outcome: 'refused', code: 'payment_taken_back' })
    assert.equal(toOf(decideCharge(after, { kind: 'review', decision: 'close' })), (offered as readonly string[]).includes('close') ? 'refunded' : 'refuse:payment_not_taken_back')
  }
  // A MED without an amount on a hold whose amount nobody stated took it all: nothing is left to refund.
  const silent = taxCharge('security_hold')
  const whole = (decideCharge(silent, med(null)) as Extract<ChargeDecision, { outcome: 'moved' }>).effects.find((effect) => effect.kind === 'record_clawback')
  assert.ok(whole?.kind === 'record_clawback' && whole.all)
  assert.deepEqual(decideCharge({ ...silent, clawback: 'med', takenBackAll: true }, { kind: 'review', decision: 'refund', enteredPaidCents: 1000 }), { outcome: 'refused', code: 'payment_taken_back' })
  // A partial MED leaves R$ 8,00 with us: refunding owes exactly that; closing would drop it.
  const partial = { ...hold, clawback: 'med' as const, takenBackCents: 200 }
  assert.deepEqual(decideCharge(partial, { kind: 'review', decision: 'close' }), { outcome: 'refused', code: 'payment_not_taken_back' })
  assert.deepEqual((decideCharge(partial, { kind: 'review', decision: 'refund', enteredPaidCents: null }) as Extract<ChargeDecision, { outcome: 'moved' }>).effects, [{ kind: 'owe_refund', amountCents: 800, arrivedCents: 1000 }])
  assert.deepEqual(decideCharge(hold, { kind: 'review', decision: 'close' }), { outcome: 'refused', code: 'payment_not_taken_back' })
})

test('a hold with no reported amount is never released at the charge value; support must say what arrived', () => {
  const silent = taxCharge('security_hold', { paidCents: null })
  const release = (entered: number | null): ChargeEvent => ({ kind: 'review', decision: 'release', facts: { quote, payerMatchesInformed: true }, enteredPaidCents: entered })
  assert.deepEqual(decideCharge(silent, release(null)), { outcome: 'refused', code: 'paid_amount_required' })
  assert.deepEqual(decideCharge(silent, { kind: 'review', decision: 'refund', enteredPaidCents: null }), { outcome: 'refused', code: 'paid_amount_required' })
  const credit = (decideCharge(silent, release(700)) as Extract<ChargeDecision, { outcome: 'moved' }>).effects[0]
  assert.deepEqual(credit, { kind: 'credit', held: false, arrivedCents: 700, units: 600, quote: null })
})

test('a partial MED debits only its part, at the charge\'s quote; refunded once everything is taken back', () => {
  const btc = euidCharge('depix_sent', { currency: 'BTC', paidCents: 1000, creditedUnits: 2425, quoteMicros: 350_000_000_000 })
  const first = decideCharge(btc, med(200)) as Extract<ChargeDecision, { outcome: 'moved' }>
  assert.equal(first.status, 'depix_sent')
  const step = first.effects.find((effect) => effect.kind === 'take_back')!
  // floor(200 × 10^8 × 100 / (35 000 000 × 106)) = 539 sats
  assert.ok(step.kind === 'take_back')
  assert.deepEqual([step.step.principalCents, step.step.units, step.step.lossCents, step.step.whole], [200, 539, 0, false])
  const rest = decideCharge({ ...btc, takenBackCents: 200, takenBackUnits: 539 }, med(800)) as Extract<ChargeDecision, { outcome: 'moved' }>
  assert.equal(rest.status, 'refunded')
  const last = rest.effects.find((effect) => effect.kind === 'take_back')!
  assert.ok(last.kind === 'take_back')
  // Exactly what was credited, in all; the fixed fee is the service's loss.
  assert.deepEqual([last.step.units + 539, last.step.lossCents], [2425, 100])
  assert.equal(decideCharge({ ...btc, takenBackCents: 1000, takenBackUnits: 2425, status: 'refunded' }, med(100)).outcome, 'moved')
})

test('refunds owed: paid by us or taken back by the provider, refunded only when nothing is owed', () => {
  const owing = taxCharge('will_refund', { paidCents: 1000, refund: { owedCents: 1000, paidByUsCents: 0, lossCents: 0 } })
  assert.deepEqual(decideCharge(owing, { kind: 'refund_paid' }), { outcome: 'moved', status: 'refunded', reviewReason: null, failureCode: null, effects: [{ kind: 'settle_refund', amountCents: 1000, by: 'us', owedAfter: 0 }] })
  const part = decideCharge(owing, med(300)) as Extract<ChargeDecision, { outcome: 'moved' }>
  assert.equal(part.status, 'will_refund')
  assert.deepEqual(part.effects.find((effect) => effect.kind === 'settle_refund'), { kind: 'settle_refund', amountCents: 300, by: 'provider', owedAfter: 700 })
  assert.equal(toOf(decideCharge(owing, providerSays('refunded'))), 'refunded')
  assert.deepEqual(decideCharge(taxCharge('will_refund', { refund: { owedCents: 0, paidByUsCents: 1000, lossCents: 0 } }), { kind: 'refund_paid' }), { outcome: 'refused', code: 'refund_not_owed' })
  // After we paid, a MED takes back money that left us: the service's loss, once per report.
  const paidOut = taxCharge('refunded', { paidCents: 1000, refund: { owedCents: 0, paidByUsCents: 1000, lossCents: 0 } })
  const loss = decideCharge(paidOut, med(null)) as Extract<ChargeDecision, { outcome: 'moved' }>
  assert.deepEqual(loss.effects.find((effect) => effect.kind === 'clawback_loss'), { kind: 'clawback_loss', amountCents: 1000, lossAfter: 1000 })
  // A provider "refunded" after part of a refund owed was taken back is not guessed at: recorded for support.
  const partlyTaken = decideCharge({ ...owing, takenBackCents: 300, refund: { owedCents: 700, paidByUsCents: 0, lossCents: 0 } }, providerSays('refunded'))
  assert.deepEqual(effectKinds(partlyTaken), ['record_clawback', 'keep_provider_status'])
  assert.equal(toOf(partlyTaken), 'will_refund')
  assert.deepEqual(decideCharge(taxCharge('depix_sent'), { kind: 'refund_paid' }), { outcome: 'refused', code: 'refund_not_owed' })
})

test('merchant cancel: only waiting_payment moves (to canceled); canceled again is ignored; a payment that arrives afterwards is still credited', () => {
  assert.deepEqual(decideCharge(taxCharge('waiting_payment'), { kind: 'merchant_cancel' }), { outcome: 'moved', status: 'canceled', reviewReason: null, failureCode: null, effects: [] })
  assert.deepEqual(decideCharge(taxCharge('canceled'), { kind: 'merchant_cancel' }), { outcome: 'unchanged' })
  for (const status of ['pending', 'under_review', 'security_hold', 'depix_sent', 'after7d', 'expired', 'will_refund', 'refunded', 'error'] as const) {
    assert.deepEqual(decideCharge(taxCharge(status), { kind: 'merchant_cancel' }), { outcome: 'refused', code: 'payment_not_cancelable' }, status)
  }
  const late = decideCharge(taxCharge('canceled'), arrived({ valueInCents: 1000, payerEuid: null, payerTaxNumber: '11144477735' }, { blocked: false, boundElsewhere: false, quote: null }))
  assert.equal(toOf(late), 'depix_sent')
})

test('a will_refund after credit is recorded once (support is alerted), and nothing is debited until the money goes', () => {
  const credited = taxCharge('depix_sent', { paidCents: 1000, creditedUnits: 900 })
  const announced = decideCharge(credited, providerSays('will_refund'))
  assert.deepEqual(announced, {
    outcome: 'moved', status: 'depix_sent', reviewReason: null, failureCode: null, effects: [
      { kind: 'record_clawback', clawback: 'will_refund', takenBackCents: 0, all: false, principalCents: null, key: 'status:will_refund', body: { status: 'will_refund' } },
      { kind: 'keep_provider_status', statusText: 'will_refund' },
    ],
  })
  assert.equal(decideCharge({ ...credited, clawback: 'will_refund', providerReturning: true }, providerSays('will_refund')).outcome, 'unchanged')
  // Its "refunded" after MEDs for part of it may only close those: recorded for support, not guessed.
  assert.deepEqual(effectKinds(decideCharge({ ...credited, takenBackCents: 200, takenBackUnits: 200 }, providerSays('refunded'))), ['record_clawback', 'keep_provider_status'])
})

test('a MED reported before the delivery is recorded; the money that then arrives is held and can never be released', () => {
  const waiting = taxCharge('waiting_payment')
  const medded = decideCharge(waiting, med(null)) as Extract<ChargeDecision, { outcome: 'moved' }>
  assert.deepEqual(effectKinds(medded), ['block_identities', 'record_clawback'])
  const after: ChargeView = { ...waiting, clawback: 'med', takenBackAll: true }
  // Even were the blocks somehow not seen, the claw-back holds it.
  assert.equal((decideCharge(after, arrived(matching)) as { reviewReason: string }).reviewReason, 'prior_med')
  assert.deepEqual(reviewDecisionsFor({ ...after, status: 'security_hold', paidCents: 1000 }), ['close'])
})

/** The order statuses may take: a transition to a lower rank would be a move backwards. */
const rank: Record<ChargeStatus, number> = {
  waiting_payment: 0, pending: 1, under_review: 2, expired: 3, canceled: 3, error: 3, will_refund: 4,
  security_hold: 5, after7d: 5, depix_sent: 6, refunded: 7,
}

/**
 * Applies decisions to a model of the charge's row and books, as the executor does (with the
 * domain's own posting functions), so properties can be checked over random event sequences.
 */
function replay(start: ChargeView, events: ChargeEvent[]) {
  let charge = start
  const entries: Entry[] = []
  const decisions: Array<{ event: ChargeEvent; before: ChargeView; decision: ChargeDecision }> = []
  let refund: { amountCents: number; owedCents: number; paidByUsCents: number; lossCents: number } | null = null
  for (const happened of events) {
    let event = happened
    // As apply-provider-event does: what a delivery reports arrived is kept first, and decides.
    if (event.kind === 'money_arrived') {
      if (charge.paidCents === null && event.report.valueInCents !== null) charge = { ...charge, paidCents: event.report.valueInCents }
      event = { ...event, report: { ...event.report, valueInCents: charge.paidCents } }
    }
    const before = charge
    const decision = decideCharge(charge, event)
    decisions.push({ event, before, decision })
    if (decision.outcome !== 'moved') continue
    const next = { ...charge, status: decision.status }
    for (const effect of decision.effects) {
      switch (effect.kind) {
        case 'credit':
          entries.push(...creditPosting({ id: 'c', accountId: 1, currency: charge.currency, arrivedCents: effect.arrivedCents, units: effect.units, held: effect.held }).entries)
          Object.assign(next, { creditedUnits: effect.units, paidCents: charge.paidCents ?? effect.arrivedCents, quoteMicros: effect.quote?.micros ?? null })
          break
        case 'release_credit':
          entries.push(...releasePosting({ id: 'c', accountId: 1, currency: charge.currency, units: effect.units }).entries)
          break
        case 'take_back':
          entries.push(...clawbackPosting({ id: 'c', accountId: 1, currency: charge.currency, from: effect.from, step: effect.step }).entries)
          Object.assign(next, { takenBackCents: effect.step.takenBackCents, takenBackUnits: effect.step.takenBackUnits })
          break
        case 'record_clawback':
          Object.assign(next, { clawback: effect.clawback, takenBackCents: effect.takenBackCents, takenBackAll: next.takenBackAll || effect.all, providerReturning: next.providerReturning || effect.clawback !== 'med' })
          break
        case 'owe_refund':
          entries.push(...refundOwedPosting({ id: 'c', amountCents: effect.amountCents }).entries)
          refund = { amountCents: effect.amountCents, owedCents: effect.amountCents, paidByUsCents: 0, lossCents: 0 }
          Object.assign(next, { paidCents: charge.paidCents ?? effect.arrivedCents })
          break
        case 'settle_refund':
          entries.push(...refundSettledPosting({ id: 'c', amountCents: effect.amountCents, by: effect.by, owedAfter: effect.owedAfter }).entries)
          refund = { ...refund!, owedCents: effect.owedAfter, paidByUsCents: refund!.paidByUsCents + (effect.by === 'us' ? effect.amountCents : 0) }
          break
        case 'clawback_loss':
          entries.push(...clawbackLossPosting({ id: 'c', amountCents: effect.amountCents, lossAfter: effect.lossAfter }).entries)
          refund = { ...refund!, lossCents: effect.lossAfter }
          break
      }
    }
    charge = { ...next, refund: refund === null ? null : { owedCents: refund.owedCents, paidByUsCents: refund.paidByUsCents, lossCents: refund.lossCents } }
  }
  return { charge, entries, decisions, refund }
}

const eventArbitrary = fc.oneof(
  fc.constantFrom('pending', 'delayed', 'approved', 'under_review', 'will_refund', 'refunded', 'canceled', 'expired', 'error' as const).map(providerSays),
  fc.record({
    kind: fc.constant('money_arrived' as const),
    said: fc.constant(said('depix_sent')),
    report: fc.record({ valueInCents: fc.option(fc.integer({ min: 1, max: 12_000 }), { nil: null }), payerEuid: fc.constantFrom('EU000000000000001', 'EU000000000000009'), payerTaxNumber: fc.constantFrom('11144477735', '12345678909') }),
    facts: fc.record({ blocked: fc.boolean(), boundElsewhere: fc.boolean(), quote: fc.option(fc.integer({ min: 1_000_000, max: 10 ** 12 }).map((micros): Quote => ({ micros, source: 'ticker', at: new Date(0), referenceMicros: micros })), { nil: null }) }),
  }),
  fc.record({ kind: fc.constant('expiry_due' as const), now: fc.constant(new Date(1)), expiresAt: fc.constant(new Date(0)) }),
  fc.record({ kind: fc.constant('release_due' as const), now: fc.constant(new Date(1)), releaseAt: fc.constant(new Date(0)) }),
  fc.record({
    kind: fc.constant('review' as const),
    decision: fc.constant('release' as const),
    facts: fc.record({ quote: fc.option(fc.integer({ min: 1_000_000, max: 10 ** 12 }).map((micros): Quote => ({ micros, source: 'override', at: new Date(0), referenceMicros: micros })), { nil: null }), payerMatchesInformed: fc.boolean() }),
    enteredPaidCents: fc.option(fc.integer({ min: 1, max: 12_000 }), { nil: null }),
  }),
  fc.record({ kind: fc.constant('review' as const), decision: fc.constant('refund' as const), enteredPaidCents: fc.option(fc.integer({ min: 1, max: 12_000 }), { nil: null }) }),
  fc.record({ kind: fc.constant('review' as const), decision: fc.constant('close' as const) }),
  fc.option(fc.integer({ min: 1, max: 12_000 }), { nil: null }).map((principalCents) => med(principalCents)),
  fc.record({ kind: fc.constant('refund_paid' as const) }),
  fc.record({ kind: fc.constant('merchant_cancel' as const) }),
) as fc.Arbitrary<ChargeEvent>

test('property: adverse sequences of every event (claw-backs while held, partial MEDs, missing amounts) keep every invariant', () => {
  const reached = new Set<ChargeStatus>()
  fc.assert(
    fc.property(
      fc.boolean(),
      fc.constantFrom('DEPIX' as const, 'BTC' as const, 'USDt' as const),
      fc.integer({ min: 1000, max: 10_000 }),
      fc.array(eventArbitrary, { maxLength: 25 }),
      fc.boolean(),
      (withEuid, currency, valueCents, events, optedIn) => {
        const start = { ...(withEuid ? euidCharge('waiting_payment') : taxCharge('waiting_payment')), currency, valueCents, webhookEvents: optedIn ? optInWebhookEvents : [] }
        const { charge, entries, decisions, refund } = replay(start, events)
        reached.add(start.status)
        let credits = 0
        let refundsOwed = 0
        for (const { event, before, decision } of decisions) {
          if (decision.outcome !== 'moved') continue
          reached.add(decision.status)
          const backwardsAllowed = (['expired', 'canceled', 'error'].includes(before.status) && ['pending', 'under_review'].includes(decision.status)) ||
            (before.status === 'security_hold' && decision.status === 'will_refund' && event.kind === 'review')
          assert.ok(rank[decision.status] >= rank[before.status] || backwardsAllowed, `${before.status} → ${decision.status} on ${event.kind}`)
          for (const effect of decision.effects) {
            // Never owe the payer what the provider returns or already took.
            if (effect.kind === 'owe_refund') {
              refundsOwed++
              assert.ok(!before.providerReturning && !before.takenBackAll, 'a refund owed after the provider returned the payment')
            }
            if (effect.kind !== 'credit') continue
            credits++
            // Never credit after a MED or a refund is seen on the charge, before or while held.
            assert.equal(before.clawback, null, 'credited after a claw-back')
            // At most what arrived is credited: the fee comes off it, the cap holds conversions.
            if (currency === 'DEPIX') assert.ok(effect.units <= Math.max(0, effect.arrivedCents - 100))
            else assert.ok(effect.units <= creditCapUnits(effect.arrivedCents, currency, effect.quote!.micros))
            // A credit is computed from what the provider (or support, when it never said) reported.
            assert.equal(effect.arrivedCents, before.paidCents ?? (event.kind === 'review' && event.decision !== 'close' ? event.enteredPaidCents : null))
          }
          // Opt-in events: at most one per move, and none unless asked for.
          const optIn = decision.effects.filter((effect) => effect.kind === 'queue_webhook' && (optInWebhookEvents as readonly string[]).includes(effect.event))
          assert.ok(optIn.length <= (optedIn ? 1 : 0))
        }
        assert.ok(credits <= 1 && refundsOwed <= 1)
        // Books balance per asset, and say what happened charge-wide.
        assert.ok(isBalanced(entries))
        const actual = new Map<string, number>()
        for (const entry of entries) actual.set(bookKey(entry.book, entry.currency), (actual.get(bookKey(entry.book, entry.currency)) ?? 0) + entry.amount)
        const expected = expectedChargeBooks({
          currency,
          creditedUnits: charge.creditedUnits,
          arrivedCents: charge.paidCents,
          takenBackCents: charge.creditedUnits === null ? 0 : charge.takenBackCents,
          takenBackUnits: charge.takenBackUnits,
          held: charge.status === 'after7d',
          refund,
        })
        for (const key of new Set<string>([...actual.keys(), ...expected.keys()])) assert.equal(actual.get(key) ?? 0, expected.get(key as never) ?? 0, key)
        // Never more taken from the account than it was credited; never more than arrived taken back.
        assert.ok(charge.takenBackUnits <= (charge.creditedUnits ?? 0))
        if (charge.creditedUnits !== null) assert.ok(charge.takenBackCents <= charge.paidCents!)
        if (charge.creditedUnits !== null && charge.takenBackCents === charge.paidCents) assert.equal(charge.takenBackUnits, charge.creditedUnits)
      },
    ),
    { numRuns: 4000 },
  )
  assert.deepEqual([...reached].sort(), [...chargeStatuses].sort(), 'every status is reachable')
})

test('opt-in webhook events: each names the status change it announces, and only for a charge that asked', () => {
  const now = new Date('2026-11-22T12:10:00Z')
  const optedIn = (status: ChargeStatus, extra: Partial<ChargeView> = {}): ChargeView => ({ ...taxCharge(status, extra), webhookEvents: optInWebhookEvents })
  const events = (decision: ChargeDecision) => (decision.outcome === 'moved' ? decision.effects.flatMap((effect) => (effect.kind === 'queue_webhook' ? [effect.event] : [])) : [])
  assert.deepEqual(events(decideCharge(optedIn('waiting_payment'), { kind: 'expiry_due', now, expiresAt: new Date(0) })), ['payment.expired'])
  assert.deepEqual(events(decideCharge(taxCharge('waiting_payment'), { kind: 'expiry_due', now, expiresAt: new Date(0) })), [])
  assert.deepEqual(events(decideCharge(optedIn('waiting_payment'), arrived(matching, { ...okFacts, blocked: true }))), ['payment.held'])
  assert.deepEqual(events(decideCharge(optedIn('pending'), providerSays('under_review'))), ['payment.under_review'])
  assert.deepEqual(events(decideCharge(optedIn('security_hold', { paidCents: 1000 }), { kind: 'review', decision: 'refund', enteredPaidCents: null })), ['payment.refunded'])
  assert.deepEqual(events(decideCharge(optedIn('will_refund'), providerSays('refunded'))), ['payment.refunded'])
  const credited = { paidCents: 1000, creditedUnits: 900 }
  assert.deepEqual(events(decideCharge(optedIn('depix_sent', credited), med(null))), ['payment.disputed'])
  assert.deepEqual(events(decideCharge(optedIn('depix_sent', credited), med(200))), ['payment.disputed'], 'a partial MED is a dispute too')
  assert.deepEqual(events(decideCharge(optedIn('depix_sent', credited), providerSays('refunded'))), ['payment.disputed'])
  // The spec's events stay as they were beside the opt-in ones.
  assert.deepEqual(events(decideCharge(optedIn('waiting_payment'), arrived(matching))), ['payment.confirmed'])
  assert.deepEqual(events(decideCharge(optedIn('expired'), providerSays('expired'))), [])
})
