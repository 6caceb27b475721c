import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { takeBack } from '../../src/domain/clawback.ts'
import { clawbackPosting, creditPosting, isBalanced, refundOwedPosting, refundSettledPosting, releasePosting, type Entry } from '../../src/domain/ledger.ts'
import { creditedAmount } from '../../src/domain/money.ts'

const currency = fc.constantFrom('DEPIX' as const, 'BTC' as const, 'USDt' as const)
const sum = (entries: Entry[], filter: (entry: Entry) => boolean) => entries.filter(filter).reduce((total, entry) => total + entry.amount, 0)

test('property: every posting balances in every currency, and credits the amount it is given', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1000, max: 500_000 }), currency, fc.integer({ min: 1_000_000, max: 10 ** 12 }), fc.boolean(), (arrived, cur, quote, held) => {
      const units = creditedAmount(arrived, cur, cur === 'DEPIX' ? null : quote)
      const posting = creditPosting({ id: 'c', accountId: 7, currency: cur, arrivedCents: arrived, units, held })
      assert.ok(isBalanced(posting.entries))
      assert.deepEqual(posting.entries.filter((entry) => entry.accountId === 7), units === 0 ? [] : [{ book: held ? 'held' : 'available', accountId: 7, currency: cur, amount: units }])
      assert.equal(posting.entries.find((entry) => entry.book === 'fees')?.amount, 100)
      assert.equal(sum(posting.entries, (entry) => entry.book === 'provider_clearing'), -arrived)
      assert.ok(isBalanced(releasePosting({ id: 'c', accountId: 7, currency: cur, units }).entries))
    }),
    { numRuns: 2000 },
  )
})

test('property: any split of a claw-back into partial MEDs debits exactly the credit, posts DEPIX to clearing, and leaves conversion at zero', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1000, max: 500_000 }), currency, fc.integer({ min: 1_000_000, max: 10 ** 12 }), fc.array(fc.option(fc.integer({ min: 1, max: 600_000 }), { nil: null }), { minLength: 1, maxLength: 8 }), (arrived, cur, quote, principals) => {
      const quoteMicros = cur === 'DEPIX' ? null : quote
      const credited = creditedAmount(arrived, cur, quoteMicros)
      const entries: Entry[] = [...creditPosting({ id: 'c', accountId: 7, currency: cur, arrivedCents: arrived, units: credited, held: false }).entries]
      let state = { takenBackCents: 0, takenBackUnits: 0 }
      for (const principal of [...principals, null]) {
        const step = takeBack({ currency: cur, arrivedCents: arrived, creditedUnits: credited, quoteMicros, ...state }, principal)
        if (step === null) break
        const posting = clawbackPosting({ id: 'c', accountId: 7, currency: cur, from: 'available', step })
        assert.ok(isBalanced(posting.entries))
        assert.ok(posting.entries.every((entry) => entry.book !== 'provider_clearing' || entry.currency === 'DEPIX'), 'the provider takes DePix back, never BTC or USDt')
        entries.push(...posting.entries)
        state = { takenBackCents: step.takenBackCents, takenBackUnits: step.takenBackUnits }
      }
      assert.equal(state.takenBackCents, arrived)
      assert.equal(state.takenBackUnits, credited)
      assert.equal(sum(entries, (entry) => entry.accountId === 7), 0, 'the account gives back exactly what it got')
      assert.equal(sum(entries, (entry) => entry.book === 'provider_clearing'), 0)
      for (const c of ['DEPIX', 'BTC', 'USDt'] as const) assert.equal(sum(entries, (entry) => entry.book === 'conversion' && entry.currency === c), 0)
      // The fee the service kept is what the claw-back cost it.
      assert.equal(sum(entries, (entry) => entry.book === 'fees') + sum(entries, (entry) => entry.book === 'med_losses'), 0)
    }),
    { numRuns: 2000 },
  )
})

test('refunds owed: a liability from clearing, settled by us (refunds_paid) or by the provider (back to clearing)', () => {
  const owed = refundOwedPosting({ id: 'c', amountCents: 1000 })
  const byProvider = refundSettledPosting({ id: 'c', amountCents: 300, by: 'provider', owedAfter: 700 })
  const byUs = refundSettledPosting({ id: 'c', amountCents: 700, by: 'us', owedAfter: 0 })
  const all = [...owed.entries, ...byProvider.entries, ...byUs.entries]
  assert.ok([owed, byProvider, byUs].every((posting) => isBalanced(posting.entries)))
  assert.equal(sum(all, (entry) => entry.book === 'refunds_owed'), 0)
  assert.equal(sum(all, (entry) => entry.book === 'refunds_paid'), 700)
  assert.equal(sum(all, (entry) => entry.book === 'provider_clearing'), -700)
  assert.notEqual(byProvider.key, byUs.key)
})

test('unbalanced entries are detected', () => {
  assert.equal(isBalanced([{ book: 'available', accountId: 1, currency: 'DEPIX', amount: 1 }]), false)
  assert.equal(isBalanced([{ book: 'available', accountId: 1, currency: 'DEPIX', amount: 1 }, { book: 'fees', accountId: null, currency: 'BTC', amount: -1 }]), false)
  assert.equal(isBalanced([{ book: 'available', accountId: 1, currency: 'DEPIX', amount: 0.5 }, { book: 'fees', accountId: null, currency: 'DEPIX', amount: -0.5 }]), false)
  assert.throws(() => creditPosting({ id: 'c', accountId: 1, currency: 'DEPIX', arrivedCents: 1000, units: 950, held: false }), /900/)
})
