// Jobs carry their kind's payload, checked when queued and when claimed; a run that did its work
// and asks for another is rescheduled, not counted as a failure, so the back-off after a failure
// depends on failures alone.
import { after, before, beforeEach, test } from 'node:test'
import assert from 'node:assert/strict'
import { createAdjustableClock, type AdjustableClock } from '../../src/clock.ts'
import { backoffAfterFailure, createJobRunner, type JobHandlers } from '../../src/jobs/runner.ts'
import type { OpenedDatabase } from '../../src/store/database.ts'
import { jobPayloads, type JobKind } from '../../src/store/job-kinds.ts'
import { createStore, type Store } from '../../src/store/store.ts'
import { openTestDatabase, T0 } from '../support/harness.ts'

let database: OpenedDatabase
let store: Store
let clock: AdjustableClock

before(async () => {
  database = await openTestDatabase()
  store = createStore(database.db)
})
after(() => database.close())
beforeEach(async () => {
  clock = createAdjustableClock(T0)
  await database.db.deleteFrom('jobs').execute()
})

/** A runner on the test database; a kind the test gives no handler fails as a job would. */
function runnerWith(handlers: Partial<JobHandlers>) {
  const errors: Array<{ details: object; message: string }> = []
  const unexpected = async () => {
    throw new Error('no job of this kind belongs to this test')
  }
  const runner = createJobRunner({
    store,
    clock,
    log: { error: (details, message) => errors.push({ details, message }) },
    handlers: { ...(Object.fromEntries(Object.keys(jobPayloads).map((kind) => [kind, unexpected])) as Record<JobKind, typeof unexpected>), ...handlers },
  })
  return { runner, errors }
}

const jobRows = () => database.db.selectFrom('jobs').select(['id', 'kind', 'run_at', 'attempts', 'locked_until', 'last_error']).orderBy('id').execute()
const fromNow = (ms: number) => new Date(clock.now().getTime() + ms)
const HOUR_MS = 3_600_000

test('a job that did its work and runs again counts no failure: the first failure after many re-runs waits the shortest back-off', async () => {
  let fail = false
  const payloads: unknown[] = []
  // Asks the provider again every hour, as reconcile_charge does while a charge is open.
  const { runner } = runnerWith({
    async reconcile_charge(payload) {
      payloads.push(payload)
      if (fail) throw new Error('provider unreachable')
      return { again: fromNow(HOUR_MS) }
    },
  })
  await store.jobs.enqueue('reconcile_charge', { chargeId: 'ch_rerun' }, clock.now(), clock.now())
  for (let run = 1; run <= 8; run++) {
    assert.equal(await runner.runDue(), 1)
    const [job] = await jobRows()
    assert.deepEqual({ attempts: job!.attempts, last_error: job!.last_error, locked_until: job!.locked_until, run_at: job!.run_at }, { attempts: 0, last_error: null, locked_until: null, run_at: fromNow(HOUR_MS) }, `after ${run} runs`)
    clock.advance(HOUR_MS / 1000)
  }
  assert.deepEqual(payloads[0], { chargeId: 'ch_rerun' })

  fail = true
  assert.equal(await runner.runDue(), 1)
  const [failed] = await jobRows()
  assert.equal(failed!.attempts, 1)
  assert.equal(failed!.last_error, 'provider unreachable')
  assert.deepEqual(failed!.run_at, fromNow(backoffAfterFailure(0)), 'not the hour eight re-runs counted as failures would give')

  // A success after a failure forgets it.
  fail = false
  clock.advance(backoffAfterFailure(0) / 1000)
  assert.equal(await runner.runDue(), 1)
  const [recovered] = await jobRows()
  assert.deepEqual({ attempts: recovered!.attempts, last_error: recovered!.last_error }, { attempts: 0, last_error: null })
})

test('a payload that is not its kind\'s is refused when queued, and fails the transaction queuing it', async () => {
  const now = clock.now()
  // @ts-expect-error a mail job carries the mail's id, a number
  await assert.rejects(store.jobs.enqueue('send_mail', { mailId: '7' }, now, now), /cannot queue a send_mail job: payload does not match send_mail: \/mailId/)
  // @ts-expect-error a charge job names its charge
  await assert.rejects(store.jobs.enqueue('expire_charge', {}, now, now), /payload does not match expire_charge/)
  // @ts-expect-error there is no such kind
  await assert.rejects(store.jobs.enqueue('retired_kind', {}, now, now), /there is no job kind retired_kind/)
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.jobs.enqueue('release_hold', { chargeId: 'ch_held' }, now, now)
      await tx.jobs.enqueue('deliver_webhook', JSON.parse('{"eventId": 12}'), now, now)
    }),
    /payload does not match deliver_webhook: \/eventId/,
  )
  assert.deepEqual(await jobRows(), [])
})

test('a claimed job whose payload is not its kind\'s is logged and parked, and the jobs claimed with it run', async () => {
  const now = clock.now()
  const insert = (kind: string, payload: unknown) =>
    database.db.insertInto('jobs').values({ kind, payload: JSON.stringify(payload), run_at: now, created_at: now }).returning('id').executeTakeFirstOrThrow().then((row) => row.id)
  const ran: string[] = []
  let bothRan!: () => void
  const done = new Promise<void>((resolve) => (bothRan = resolve))
  const handlers: Partial<JobHandlers> = {
    async release_hold(payload) {
      ran.push(`release ${payload.chargeId}`)
      if (ran.length === 2) bothRan()
      return { done: true }
    },
    async deliver_webhook(payload) {
      ran.push(`deliver ${payload.eventId}`)
      if (ran.length === 2) bothRan()
      return { done: true }
    },
    async send_mail(payload) {
      ran.push(`mail ${payload.mailId}`)
      return { done: true }
    },
  }

  // The running runner's lanes: a charge job with a charge id that is no string beside a good one;
  // a delivery queued before destinations were recorded still runs.
  const badCharge = await insert('expire_charge', { chargeId: 42 })
  await insert('release_hold', { chargeId: 'ch_ok' })
  await insert('deliver_webhook', { eventId: 'ev_old' })
  const running = runnerWith(handlers)
  running.runner.start(HOUR_MS)
  await done
  await running.runner.stop()
  assert.deepEqual(ran.sort(), ['deliver ev_old', 'release ch_ok'])

  // runDue (the sandbox's and the tests' drain): a retired kind and a mail job without its mail.
  const retired = await insert('retired_kind', {})
  const badMail = await insert('send_mail', {})
  await insert('send_mail', { mailId: 7 })
  const draining = runnerWith(handlers)
  assert.equal(await draining.runner.runDue(), 1)
  assert.deepEqual(ran.sort(), ['deliver ev_old', 'mail 7', 'release ch_ok'])

  const parked = await jobRows()
  assert.deepEqual(parked.map((job) => job.id), [badCharge, retired, badMail], 'the good jobs ran and were deleted; the bad ones stay')
  for (const job of parked) {
    assert.deepEqual(job.run_at, new Date('9999-12-31T00:00:00.000Z'))
    assert.equal(job.locked_until, null)
    assert.equal(job.attempts, 0)
  }
  assert.deepEqual(parked.map((job) => job.last_error), [
    'payload does not match expire_charge: /chargeId must be string',
    'there is no job kind retired_kind',
    "payload does not match send_mail: the payload must have required property 'mailId'",
  ])
  const logged = (errors: Array<{ details: object; message: string }>) => errors.map((entry) => [entry.message, (entry.details as { job: { id: number } }).job.id])
  assert.deepEqual(logged(running.errors), [['job cannot be run; parked', badCharge]])
  assert.deepEqual(logged(draining.errors), [['job cannot be run; parked', retired], ['job cannot be run; parked', badMail]])

  // Operators see them on /metrics.
  assert.deepEqual(await store.jobs.parkedByKind().then((rows) => rows.sort((a, b) => a.kind.localeCompare(b.kind))), [
    { kind: 'expire_charge', n: 1 }, { kind: 'retired_kind', n: 1 }, { kind: 'send_mail', n: 1 },
  ])

  // Parked, never claimed again: no retries, no more errors.
  clock.advance(10 * 365 * 24 * 3600)
  assert.equal(await draining.runner.runDue(), 0)
  assert.equal(draining.errors.length, 2)
})

test('a batch handler\'s jobs due together run in one call, in at most the lane\'s slots; each one\'s outcome is kept', async () => {
  const now = clock.now()
  for (let mailId = 1; mailId <= 5; mailId++) await store.jobs.enqueue('send_mail', { mailId }, now, now)
  const calls: number[][] = []
  let ran!: () => void
  const allRan = new Promise<void>((resolve) => (ran = resolve))
  const { runner } = runnerWith({
    send_mail: {
      async batch(jobs) {
        calls.push(jobs.map((job) => job.payload.mailId))
        if (calls.flat().length === 5) ran()
        // The third mail's server said "not now": its job alone runs again later.
        return jobs.map((job) => (job.payload.mailId === 3 ? { again: fromNow(HOUR_MS) } : { done: true }))
      },
    },
  })
  runner.start(HOUR_MS)
  await allRan
  await runner.stop()
  // The mail lane has two slots: five due jobs went in two batches, none twice.
  assert.deepEqual(calls, [[1, 2, 3], [4, 5]])
  const left = await jobRows()
  assert.deepEqual(left.map((job) => ({ run_at: job.run_at, attempts: job.attempts, locked_until: job.locked_until })), [{ run_at: fromNow(HOUR_MS), attempts: 0, locked_until: null }])
})
