// The books under withdrawals (issue 23 point 3): one account meets random adverse sequences of
// credits, releases of held credits, MED claw-backs (which may take available below zero),
// withdrawal requests confirmed against the running available balance (as the use case does under
// the account's lock), and every later event (cancel, review, fail, sent, completed, returned,
// replays). Every decision's postings go through the real posting functions into a model ledger.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { takeBack } from '../../src/domain/clawback.ts'
import {
  bookKey,
  clawbackPosting,
  creditPosting,
  expectedWithdrawalBooks,
  isBalanced,
  releasePosting,
  withdrawalReleasePosting,
  withdrawalReservePosting,
  withdrawalReturnPosting,
  withdrawalSettlePosting,
  type Entry,
  type Posting,
  type WithdrawalAmounts,
} from '../../src/domain/ledger.ts'
import { creditedAmount, currencies, type Currency } from '../../src/domain/money.ts'
import {
  decideWithdrawal,
  isReserved,
  priceWithdrawal,
  reviewReasons,
  type WithdrawalEvent,
  type WithdrawalStatus,
} from '../../src/domain/withdrawal.ts'
import { payoutFailures, payoutStatuses } from '../../src/domain/payout.ts'

const ACCOUNT = 7
const quotes: Record<Currency, fc.Arbitrary<number | null>> = {
  DEPIX: fc.constant(null),
  BTC: fc.integer({ min: 200_000_000_000, max: 600_000_000_000 }),
  USDt: fc.integer({ min: 4_000_000, max: 7_000_000 }),
}

type Step =
  | { kind: 'credit'; currency: Currency; arrivedCents: number; held: boolean; quoteMicros: number | null }
  | { kind: 'release_hold'; pick: number }
  | { kind: 'med'; pick: number; principalCents: number | null }
  /**
   * In the currency of a recent credit (or any), a share of what is available then (now and then any
   * amount when nothing is). `api`: confirmed as it is made (POST /api/withdrawals); else later by
   * the owner's code (a `confirm` step).
   */
  | { kind: 'request'; currency: Currency | null; pick: number; pix: boolean; permille: number; fallback: number; api: boolean; review: (typeof reviewReasons)[number] | null }
  | { kind: 'confirm'; pick: number; allowed: boolean; review: (typeof reviewReasons)[number] | null }
  | { kind: 'event'; pick: number; event: WithdrawalEvent }
  /** The worker's paying path: its payout sending, then sent. */
  | { kind: 'pay'; pick: number }
  | { kind: 'replay' }

/** Events after the confirmation, weighted towards the path that pays (start, sent) so that settlements and returns happen. */
const payoutNews = (status: (typeof payoutStatuses)[number]) => fc.record({
  kind: fc.constant('payout' as const),
  outcome: fc.record({ status: fc.constant(status), reason: fc.option(fc.constantFrom(...reviewReasons), { nil: null }), code: fc.option(fc.constantFrom(...payoutFailures), { nil: null }) }),
})
const laterEvent: fc.Arbitrary<WithdrawalEvent> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), signed: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'code_expired' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('approve' as const), allowed: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reject' as const }) },
  { weight: 4, arbitrary: payoutNews('sending') },
  { weight: 1, arbitrary: payoutNews('in_review') },
  { weight: 1, arbitrary: payoutNews('queued') },
  { weight: 2, arbitrary: payoutNews('failed') },
  { weight: 4, arbitrary: payoutNews('sent') },
  { weight: 2, arbitrary: payoutNews('completed') },
  { weight: 2, arbitrary: payoutNews('returned') },
)

/** Which withdrawal or credit a step is about, counted from the newest (mostly one of the last few). */
const pick = fc.oneof({ weight: 4, arbitrary: fc.nat({ max: 2 }) }, { weight: 1, arbitrary: fc.nat({ max: 1_000 }) })
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...currencies).chain((currency) => fc.record({ kind: fc.constant('credit' as const), currency: fc.constant(currency), arrivedCents: fc.integer({ min: 1_000, max: 50_000 }), held: fc.boolean().chain((h) => (h ? fc.boolean() : fc.constant(false))), quoteMicros: quotes[currency] })) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('release_hold' as const), pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('med' as const), pick, principalCents: fc.option(fc.integer({ min: 1, max: 60_000 }), { nil: null }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('request' as const), currency: fc.option(fc.constantFrom(...currencies), { nil: null, freq: 2 }), pick, pix: fc.boolean(), permille: fc.integer({ min: 100, max: 1_300 }), fallback: fc.integer({ min: 1, max: 20_000_000 }), api: fc.boolean(), review: fc.option(fc.constantFrom(...reviewReasons), { nil: null, freq: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('confirm' as const), pick, allowed: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }), review: fc.option(fc.constantFrom(...reviewReasons), { nil: null, freq: 3 }) }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('event' as const), pick, event: laterEvent }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pay' as const), pick }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'replay' as const }) },
)

const newest = <T>(items: readonly T[], pick: number): T | undefined => items[items.length - 1 - (pick % Math.max(1, items.length))]

type Credit = { id: string; currency: Currency; arrivedCents: number; units: number; quoteMicros: number | null; held: boolean; takenBackCents: number; takenBackUnits: number }
type Withdrawal = WithdrawalAmounts & { status: WithdrawalStatus; entries: Entry[] }

/** A model ledger: postings applied by key, once. */
class Books {
  readonly entries: Entry[] = []
  readonly keys = new Set<string>()
  apply(posting: Posting): void {
    assert.ok(isBalanced(posting.entries), `posting ${posting.key} does not balance per currency`)
    // Money never moves twice: the state machine never asks for the same posting again.
    assert.ok(!this.keys.has(posting.key), `posting ${posting.key} applied twice`)
    this.keys.add(posting.key)
    this.entries.push(...posting.entries)
  }
  balance(book: Entry['book'], currency: Currency, accountId: number | null = ACCOUNT): number {
    return this.entries.filter((e) => e.book === book && e.currency === currency && e.accountId === accountId).reduce((sum, e) => sum + e.amount, 0)
  }
}

const sumByBook = (entries: readonly Entry[]) => {
  const sums = new Map<string, number>()
  for (const e of entries) sums.set(bookKey(e.book, e.currency), (sums.get(bookKey(e.book, e.currency)) ?? 0) + e.amount)
  for (const [key, value] of sums) if (value === 0) sums.delete(key)
  return sums
}

const booksStatus = (status: WithdrawalStatus): 'reserved' | 'settled' | 'none' =>
  isReserved(status) ? 'reserved' : status === 'sent' || status === 'completed' ? 'settled' : 'none'

function run(steps: Step[], stats: { reserves: number; settles: number; returns: number; insufficient: number; negative: number }) {
  const books = new Books()
  const credits: Credit[] = []
  const withdrawals: Withdrawal[] = []
  /** The last event decided, for a replay. */
  const memory: { last: { withdrawal: Withdrawal; event: WithdrawalEvent } | null } = { last: null }

  const decide = (withdrawal: Withdrawal, event: WithdrawalEvent) => {
    const availableBefore = books.balance('available', withdrawal.currency)
    const decision = decideWithdrawal(withdrawal, event)
    memory.last = { withdrawal, event }
    if (decision.outcome === 'refused' && decision.code === 'insufficient_funds') {
      stats.insufficient++
      assert.ok(event.kind === 'confirm' && availableBefore < withdrawal.amount, 'refused for funds it had')
    }
    if (decision.outcome !== 'moved') return
    for (const effect of decision.effects) {
      let posting: Posting | null = null
      if (effect.kind === 'reserve') posting = withdrawalReservePosting(withdrawal)
      if (effect.kind === 'release') posting = withdrawalReleasePosting(withdrawal)
      if (effect.kind === 'settle') posting = withdrawalSettlePosting(withdrawal)
      if (effect.kind === 'unsettle') posting = withdrawalReturnPosting(withdrawal)
      if (posting === null) continue
      books.apply(posting)
      withdrawal.entries.push(...posting.entries)
      if (effect.kind === 'reserve') {
        stats.reserves++
        // Reserved only what was available under the lock: a withdrawal never takes available below zero.
        assert.ok(event.kind === 'confirm' && event.available === availableBefore)
        assert.ok(books.balance('available', withdrawal.currency) >= 0, `withdrawal ${withdrawal.id} took available to ${books.balance('available', withdrawal.currency)}`)
      }
      if (effect.kind === 'settle') stats.settles++
      if (effect.kind === 'unsettle') stats.returns++
    }
    withdrawal.status = decision.status
    // After every move, the withdrawal's own postings are what its status says they must be.
    assert.deepEqual(sumByBook(withdrawal.entries), expectedWithdrawalBooks({ ...withdrawal, status: booksStatus(withdrawal.status) }), `${withdrawal.id} ${withdrawal.status}`)
  }

  for (const step of steps) {
    switch (step.kind) {
      case 'credit': {
        const units = creditedAmount(step.arrivedCents, step.currency, step.quoteMicros)
        const credit: Credit = { id: `c${credits.length}`, currency: step.currency, arrivedCents: step.arrivedCents, units, quoteMicros: step.quoteMicros, held: step.held, takenBackCents: 0, takenBackUnits: 0 }
        credits.push(credit)
        books.apply(creditPosting({ id: credit.id, accountId: ACCOUNT, currency: credit.currency, arrivedCents: credit.arrivedCents, units, held: credit.held }))
        break
      }
      case 'release_hold': {
        const held = credits.filter((credit) => credit.held)
        const credit = newest(held, step.pick)
        if (!credit) break
        // What is still held becomes available (a claw-back while held already took its part).
        books.apply(releasePosting({ id: credit.id, accountId: ACCOUNT, currency: credit.currency, units: credit.units - credit.takenBackUnits }))
        credit.held = false
        break
      }
      case 'med': {
        const credit = newest(credits, step.pick)
        if (!credit) break
        const taken = takeBack({ ...credit, creditedUnits: credit.units }, step.principalCents)
        if (taken === null) break
        books.apply(clawbackPosting({ id: credit.id, accountId: ACCOUNT, currency: credit.currency, from: credit.held ? 'held' : 'available', step: taken }))
        credit.takenBackCents = taken.takenBackCents
        credit.takenBackUnits = taken.takenBackUnits
        break
      }
      case 'request': {
        const currency = step.currency ?? newest(credits, step.pick)?.currency ?? 'DEPIX'
        const available = books.balance('available', currency)
        // Now and then an amount asked for with nothing available (the owner's page was stale).
        if (available <= 0 && step.permille <= 1_200) break
        const amount = available > 0 ? Math.max(1, Math.floor((available * step.permille) / 1_000)) : step.fallback
        const type = step.pix && currency === 'DEPIX' ? 'pix' : 'liquid'
        const price = priceWithdrawal(type, currency, amount)
        if ('refused' in price) break
        const withdrawal: Withdrawal = { id: `w${withdrawals.length}`, accountId: ACCOUNT, currency, amount: price.amount, fee: price.fee, net: price.net, status: 'requested', entries: [] }
        withdrawals.push(withdrawal)
        if (step.api) decide(withdrawal, { kind: 'confirm', available: books.balance('available', currency), allowed: true, review: step.review })
        break
      }
      case 'confirm': {
        const withdrawal = newest(withdrawals, step.pick)
        if (!withdrawal) break
        // As the use case does under the account's lock: what is available now.
        decide(withdrawal, { kind: 'confirm', available: books.balance('available', withdrawal.currency), allowed: step.allowed, review: step.review })
        break
      }
      case 'event': {
        const withdrawal = newest(withdrawals, step.pick)
        if (withdrawal) decide(withdrawal, step.event)
        break
      }
      case 'pay': {
        const withdrawal = newest(withdrawals, step.pick)
        if (!withdrawal) break
        decide(withdrawal, { kind: 'payout', outcome: { status: 'sending', reason: null, code: null } })
        decide(withdrawal, { kind: 'payout', outcome: { status: 'sent', reason: null, code: null } })
        break
      }
      case 'replay': {
        // A job run twice, a webhook delivered again, a second click: the same event once more.
        const again = memory.last
        if (again === null) break
        const event = again.event.kind === 'confirm' ? { ...again.event, available: books.balance('available', again.withdrawal.currency) } : again.event
        decide(again.withdrawal, event)
        break
      }
    }
    for (const currency of currencies) {
      if (books.balance('available', currency) < 0) stats.negative++
      // The withdrawing book holds exactly the withdrawals that wait or are being sent.
      const reserved = withdrawals.filter((w) => w.currency === currency && isReserved(w.status)).reduce((sum, w) => sum + w.amount, 0)
      assert.equal(books.balance('withdrawing', currency), reserved, `withdrawing ${currency}`)
    }
  }

  // Every withdrawal's postings sum to what its final status says.
  for (const withdrawal of withdrawals) {
    assert.deepEqual(sumByBook(withdrawal.entries), expectedWithdrawalBooks({ ...withdrawal, status: booksStatus(withdrawal.status) }), `${withdrawal.id} ends ${withdrawal.status}`)
  }
  // All books together sum to zero in every currency.
  for (const currency of currencies) assert.equal(books.entries.filter((e) => e.currency === currency).reduce((sum, e) => sum + e.amount, 0), 0, currency)
  // What left the treasury is what was settled and not returned, and the fees on it are earned once.
  for (const currency of currencies) {
    const settled = withdrawals.filter((w) => w.currency === currency && booksStatus(w.status) === 'settled')
    assert.equal(books.balance('withdrawals_sent', currency, null), settled.reduce((sum, w) => sum + w.net, 0), `withdrawals_sent ${currency}`)
  }
}

test('property: credits, MEDs, withdrawals, failures, cancels and replays never take available below zero through a withdrawal, never move money twice, and keep the books balanced', () => {
  const stats = { reserves: 0, settles: 0, returns: 0, insufficient: 0, negative: 0 }
  fc.assert(fc.property(fc.array(stepArbitrary, { minLength: 1, maxLength: 80, size: 'max' }), (steps) => run(steps, stats)), { numRuns: 300 })
  // The runs did meet the cases the properties are about.
  assert.ok(stats.reserves > 200 && stats.settles > 20 && stats.returns > 2 && stats.insufficient > 50 && stats.negative > 50, JSON.stringify(stats))
})

test('a MED after a withdrawal was reserved takes available negative; the next confirmation is refused, nothing is reserved twice', () => {
  const books = new Books()
  const arrived = 10_100
  books.apply(creditPosting({ id: 'c', accountId: ACCOUNT, currency: 'DEPIX', arrivedCents: arrived, units: 10_000, held: false }))
  const price = priceWithdrawal('pix', 'DEPIX', 10_000)
  assert.ok(!('refused' in price))
  const w: WithdrawalAmounts & { status: WithdrawalStatus } = { id: 'w', accountId: ACCOUNT, currency: 'DEPIX', amount: price.amount, fee: price.fee, net: price.net, status: 'requested' }
  const confirmed = decideWithdrawal(w, { kind: 'confirm', available: books.balance('available', 'DEPIX'), allowed: true, review: null })
  assert.equal(confirmed.outcome, 'moved')
  books.apply(withdrawalReservePosting(w))
  assert.equal(books.balance('available', 'DEPIX'), 0)
  // The payer's bank takes it all back: the account owes it.
  const step = takeBack({ currency: 'DEPIX', arrivedCents: arrived, creditedUnits: 10_000, quoteMicros: null, takenBackCents: 0, takenBackUnits: 0 }, null)!
  books.apply(clawbackPosting({ id: 'c', accountId: ACCOUNT, currency: 'DEPIX', from: 'available', step }))
  assert.equal(books.balance('available', 'DEPIX'), -10_000)
  const second: WithdrawalAmounts & { status: WithdrawalStatus } = { ...w, id: 'w2', amount: 200, fee: 4, net: 196 }
  assert.deepEqual(decideWithdrawal(second, { kind: 'confirm', available: books.balance('available', 'DEPIX'), allowed: true, review: null }), { outcome: 'refused', code: 'insufficient_funds' })
  // The first is canceled: its amount returns, and the account still owes the rest.
  books.apply(withdrawalReleasePosting(w))
  assert.equal(books.balance('available', 'DEPIX'), 0)
  // The model ledger itself refuses a posting key it has seen (what the properties rely on).
  assert.throws(() => books.apply(withdrawalReservePosting(w)), /applied twice/)
})
