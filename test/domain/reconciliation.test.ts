import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { ChargeStatus } from '../../src/domain/charge.ts'
import { advanceSweep, DEPOSITS_PAGE, nextReconcileAt, sweepPlans, sweepWindow, type SweepCursor } from '../../src/domain/reconciliation.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const T0 = Date.parse('2026-11-01T00:00:00Z')

test('every non-final charge is asked about until it is final; an under_review of ten days is still asked on day ten', () => {
  const createdAt = new Date(T0)
  const asks = (status: ChargeStatus, from: number, to: number, settledAt: Date | null = null) => {
    const times: number[] = []
    for (let next = nextReconcileAt({ status, createdAt, settledAt }, new Date(from)); next && next.getTime() <= to; next = nextReconcileAt({ status, createdAt, settledAt }, next)) times.push(next.getTime() - T0)
    return times
  }
  assert.deepEqual(asks('waiting_payment', T0, T0 + 30 * DAY), [12 * MINUTE, 40 * MINUTE], 'unpaid: until the QR and the provider\'s grace are over')
  assert.deepEqual(asks('expired', T0 + 20 * MINUTE, T0 + 30 * DAY), [40 * MINUTE])
  const review = asks('under_review', T0, T0 + 10 * DAY + HOUR)
  assert.deepEqual(review.slice(0, 4), [2 * HOUR, 8 * HOUR, 26 * HOUR, 50 * HOUR])
  assert.ok(review.at(-1)! >= 9 * DAY, 'still asked after nine days')
  const settledAt = new Date(T0 + DAY)
  assert.deepEqual(asks('depix_sent', T0 + DAY, T0 + 365 * DAY, settledAt), [8 * DAY, 31 * DAY, 91 * DAY], 'credited: re-checked for 90 days')
  assert.deepEqual(asks('refunded', T0, T0 + 365 * DAY), [])
})

/**
 * Charges created uniformly at 10,000 a day over 91 days, with the lives charges lead in
 * production (delay 24 h): which deposit-status calls fall on the last day, hour by hour.
 */
test('the polling budget holds at 10,000 charges a day: deposit-status within 60/min in every hour, /deposits within 12/min', () => {
  const perDay = 10_000
  const days = 91
  const window = { start: T0 + (days - 1) * DAY, end: T0 + days * DAY }
  const perHour = new Array<number>(24).fill(0)
  // Each life: the statuses a charge takes and when (ms after creation); after the last, it stays.
  const lives: Array<{ share: number; steps: Array<[number, ChargeStatus]>; settledAfter: number | null }> = [
    { share: 0.3, steps: [[0, 'waiting_payment'], [10 * MINUTE, 'expired']], settledAfter: null },
    { share: 0.55, steps: [[0, 'waiting_payment'], [3 * MINUTE, 'pending'], [24 * HOUR + 3 * MINUTE, 'depix_sent']], settledAfter: 24 * HOUR + 3 * MINUTE },
    { share: 0.05, steps: [[0, 'waiting_payment'], [3 * MINUTE, 'under_review'], [3 * DAY, 'depix_sent']], settledAfter: 3 * DAY },
    { share: 0.05, steps: [[0, 'waiting_payment'], [2 * MINUTE, 'depix_sent']], settledAfter: 2 * MINUTE },
    { share: 0.05, steps: [[0, 'waiting_payment'], [3 * MINUTE, 'security_hold']], settledAfter: null },
  ]
  let total = 0
  for (const life of lives) {
    const count = Math.round(perDay * days * life.share)
    for (let i = 0; i < count; i++) {
      const created = T0 + Math.floor((i * days * DAY) / count)
      const statusAt = (at: number) => life.steps.filter(([after]) => created + after <= at).at(-1)![1]
      const settledAt = life.settledAfter === null ? null : new Date(created + life.settledAfter)
      // The first ask comes as the charge is created; each later one from the status at the time of the ask.
      for (let ask = nextReconcileAt({ status: 'waiting_payment', createdAt: new Date(created), settledAt: null }, new Date(created)); ask && ask.getTime() < window.end;) {
        const at = ask.getTime()
        if (at >= window.start) {
          perHour[Math.floor((at - window.start) / HOUR)]!++
          total++
        }
        const status = statusAt(at)
        ask = nextReconcileAt({ status, createdAt: new Date(created), settledAt: settledAt && settledAt.getTime() <= at ? settledAt : null }, new Date(at))
      }
    }
  }
  const busiest = Math.max(...perHour)
  assert.ok(busiest <= 60 * 60 * 0.75, `busiest hour: ${busiest} deposit-status calls, over three quarters of 3,600`)
  assert.ok(total <= 60 * 24 * 60 * 0.75, `${total} calls a day`)
  // The sweep: a run a minute, each within its plan's calls.
  const callsPerMinute = sweepPlans(24).reduce((sum, plan) => sum + plan.callsPerRun, 0)
  assert.ok(callsPerMinute <= 12 / 2, `${callsPerMinute} /deposits calls a minute leave half of 12/min to creations that lost their reply`)
})

test('the sweep reads a status\'s window backwards from now, halving a full page, and starts over when the lookback is read', () => {
  const now = new Date(T0)
  const lookback = 26 * HOUR
  let state: SweepCursor = { cursor: null, spanMs: HOUR }
  const first = sweepWindow(state, now, lookback)
  assert.deepEqual([first.start.getTime(), first.end.getTime()], [T0 - HOUR, T0])
  state = advanceSweep(state, first, DEPOSITS_PAGE, now, lookback)
  assert.deepEqual(state, { cursor: first.end, spanMs: 30 * MINUTE }, 'a full page: the same end, half the width')
  const second = sweepWindow(state, now, lookback)
  state = advanceSweep(state, second, 50, now, lookback)
  assert.deepEqual(state, { cursor: second.start, spanMs: HOUR }, 'short of a page: move past it, and widen to fill three quarters of one (at most twice)')
  assert.equal(advanceSweep({ cursor: second.start, spanMs: HOUR }, { start: new Date(T0 - 2 * HOUR), end: new Date(T0 - HOUR) }, 150, now, lookback).spanMs, HOUR, 'at 150 an hour, an hour fills three quarters of a page')
  // Read to the end of the lookback: a 10,000-a-day status takes a bounded number of calls.
  let calls = 2
  const perMs = 10_000 / DAY
  while (state.cursor !== null && calls < 500) {
    const window = sweepWindow(state, now, lookback)
    const found = Math.min(DEPOSITS_PAGE, Math.round((window.end.getTime() - window.start.getTime()) * perMs))
    state = advanceSweep(state, window, found, now, lookback)
    calls++
  }
  assert.equal(state.cursor, null)
  // 10,833 deposits at three quarters of a page a call: about 73 calls.
  assert.ok(calls <= 90, `a whole pass over 26 h of 10,000 deposits a day took ${calls} calls`)
})
