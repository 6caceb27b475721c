import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { creditPosting, isBalanced, medDebitPosting, releasePosting, type Entry } from '../../src/domain/ledger.ts'

const currency = fc.constantFrom('DEPIX' as const, 'BTC' as const, 'USDt' as const)

test('property: every posting balances in every currency, and credits the formula amount', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1000, max: 500_000 }), currency, fc.integer({ min: 1, max: 1_000_000_000 }), fc.boolean(), (value, cur, quote, held) => {
      const { posting, credited } = creditPosting({ id: 'c', accountId: 7, valueCents: value, currency: cur, quoteCents: quote, held })
      assert.ok(isBalanced(posting.entries))
      const toAccount = posting.entries.filter((entry) => entry.accountId === 7)
      assert.deepEqual(toAccount, [{ book: held ? 'held' : 'available', accountId: 7, currency: cur, amount: credited }])
      assert.equal(posting.entries.find((entry) => entry.book === 'fees')?.amount, 100)
      assert.ok(isBalanced(releasePosting({ id: 'c', accountId: 7, currency: cur, credited }).entries))
      assert.ok(isBalanced(medDebitPosting({ id: 'c', accountId: 7, currency: cur, credited, held }).entries))
    }),
    { numRuns: 2000 },
  )
})

test('credit, release and MED of one payment leave the account where it started', () => {
  const { posting, credited } = creditPosting({ id: 'c', accountId: 7, valueCents: 2500, currency: 'BTC', quoteCents: 35_000_000, held: true })
  const all: Entry[] = [...posting.entries, ...releasePosting({ id: 'c', accountId: 7, currency: 'BTC', credited }).entries, ...medDebitPosting({ id: 'c', accountId: 7, currency: 'BTC', credited, held: false }).entries]
  const account = all.filter((entry) => entry.accountId === 7).reduce((sum, entry) => sum + entry.amount, 0)
  assert.equal(account, 0)
  assert.deepEqual([posting.key], ['credit:c'])
})

test('unbalanced entries are detected', () => {
  assert.equal(isBalanced([{ book: 'available', accountId: 1, currency: 'DEPIX', amount: 1 }]), false)
  assert.equal(isBalanced([{ book: 'available', accountId: 1, currency: 'DEPIX', amount: 1 }, { book: 'fees', accountId: null, currency: 'BTC', amount: -1 }]), false)
  assert.equal(isBalanced([{ book: 'available', accountId: 1, currency: 'DEPIX', amount: 0.5 }, { book: 'fees', accountId: null, currency: 'DEPIX', amount: -0.5 }]), false)
})
