// An amount support types for a held payment whose arrival the provider never stated: taken as
// typed within 5 % of the value, otherwise kept until an admin other than its author types it too.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { typedAmountStep, type PaidAmountProposal } from '../../src/domain/typed-amount.ts'

const joao = { name: 'joao@example.com', admin: false }
const ana = { name: 'ana@example.com', admin: true }
const bia = { name: 'bia@example.com', admin: true }

test('within 5 % of the value a typed amount is taken as typed, by anyone, whatever waits', () => {
  for (const paidCents of [950, 1_000, 1_050]) {
    assert.deepEqual(typedAmountStep(1_000, { decision: 'release', paidCents }, null, joao), { kind: 'accept' }, String(paidCents))
  }
  const pending: PaidAmountProposal = { decision: 'release', paidCents: 499_900, proposedBy: joao.name }
  assert.deepEqual(typedAmountStep(1_000, { decision: 'refund', paidCents: 1_010 }, pending, joao), { kind: 'accept' })
})

test('beyond 5 %: a proposal; the same decision and amount by another admin confirms it; its author or a non-admin cannot', () => {
  for (const paidCents of [1, 949, 1_051, 499_900]) {
    assert.deepEqual(typedAmountStep(1_000, { decision: 'release', paidCents }, null, ana), { kind: 'propose' }, String(paidCents))
  }
  const pending: PaidAmountProposal = { decision: 'release', paidCents: 499_900, proposedBy: 'Joao@Example.com' }
  assert.deepEqual(typedAmountStep(1_000, { decision: 'release', paidCents: 499_900 }, pending, joao), { kind: 'refuse', code: 'second_operator_required' })
  assert.deepEqual(typedAmountStep(1_000, { decision: 'release', paidCents: 499_900 }, pending, { name: 'rui@example.com', admin: false }), { kind: 'refuse', code: 'operator_forbidden' })
  assert.deepEqual(typedAmountStep(1_000, { decision: 'release', paidCents: 499_900 }, pending, ana), { kind: 'confirm', proposal: pending })
  // Another amount or another decision is a new proposal, not a confirmation.
  assert.deepEqual(typedAmountStep(1_000, { decision: 'release', paidCents: 49_990 }, pending, ana), { kind: 'propose' })
  assert.deepEqual(typedAmountStep(1_000, { decision: 'refund', paidCents: 499_900 }, pending, ana), { kind: 'propose' })
  const byAdmin: PaidAmountProposal = { decision: 'refund', paidCents: 3_000, proposedBy: ana.name }
  assert.deepEqual(typedAmountStep(1_000, { decision: 'refund', paidCents: 3_000 }, byAdmin, ana), { kind: 'refuse', code: 'second_operator_required' })
  assert.deepEqual(typedAmountStep(1_000, { decision: 'refund', paidCents: 3_000 }, byAdmin, bia).kind, 'confirm')
})

test('property: nothing beyond the tolerance is ever accepted on one operator\'s word', () => {
  fc.assert(fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 1, max: 10_000_000 }), fc.boolean(), (value, paid, admin) => {
    const step = typedAmountStep(value, { decision: 'release', paidCents: paid }, null, { name: 'x', admin })
    const fits = Math.abs(paid - value) * 100 <= 5 * value
    assert.equal(step.kind, fits ? 'accept' : 'propose')
  }), { numRuns: 2000 })
})
