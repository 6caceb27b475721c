import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  formatRecoveryCode, normalizeRecoveryCode, operatorActionNeedsStepUp, REMOVAL_WAIT_MS, removalEffectiveAt, STEP_UP_MS, stepUpFresh,
} from '../../src/domain/second-factor.ts'
import { operatorActions } from '../../src/domain/operators.ts'

const now = new Date('2026-11-22T12:00:00Z')

test('a factor checked within 5 minutes counts for a step-up; older, never, or from the future does not', () => {
  assert.equal(STEP_UP_MS, 300_000)
  assert.equal(stepUpFresh(now.getTime() - 299_000, now), true)
  assert.equal(stepUpFresh(now.getTime() - STEP_UP_MS, now), true)
  assert.equal(stepUpFresh(now.getTime() - STEP_UP_MS - 1, now), false)
  assert.equal(stepUpFresh(undefined, now), false)
  assert.equal(stepUpFresh(null, now), false)
  assert.equal(stepUpFresh(now.getTime() + 1000, now), false)
})

test('the removal of a last factor waits 72 hours', () => {
  assert.equal(REMOVAL_WAIT_MS, 72 * 3600 * 1000)
  assert.equal(removalEffectiveAt(now).toISOString(), '2026-11-25T12:00:00.000Z')
})

test('recovery codes: three groups of four, typed loosely, read strictly', () => {
  assert.equal(formatRecoveryCode('7KQM2XHD9RTB'), '7KQM-2XHD-9RTB')
  assert.equal(normalizeRecoveryCode('7kqm-2xhd-9rtb'), '7KQM2XHD9RTB')
  assert.equal(normalizeRecoveryCode(' 7KQM 2XHD 9RTB '), '7KQM2XHD9RTB')
  assert.equal(normalizeRecoveryCode('7KQM-2XHD-9RT'), null)
  // 0, O, 1, I and L are not in the alphabet: a code never holds one, so such a typo matches nothing.
  assert.equal(normalizeRecoveryCode('7KQM-2XHD-9RT0'), null)
  assert.equal(normalizeRecoveryCode('<script>aaaa'), null)
})

test('the console actions that move money or trust need a step-up; blocks do not', () => {
  for (const action of ['hold.review', 'refund.pay', 'withdrawal.review', 'quotes.set', 'identity.assign', 'token.activate']) assert.equal(operatorActionNeedsStepUp(action), true, action)
  for (const action of ['block.add', 'block.lift', 'refund.record_paid']) assert.equal(operatorActionNeedsStepUp(action), false, action)
  for (const action of Object.keys(operatorActions)) assert.equal(typeof operatorActionNeedsStepUp(action), 'boolean')
})
