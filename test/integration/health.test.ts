import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { loggerOptions } from '../../src/http/app.ts'
import { eulenPublishedLimits } from '../../src/provider/rate-limits.ts'
import { startService } from '../../src/service.ts'
import { T0, openTestDatabase, startTestService } from '../support/harness.ts'

test('/healthz answers while the process is up; /readyz follows the database and the provider', async () => {
  const service = await startTestService()
  try {
    assert.deepEqual((await service.request({ method: 'GET', url: '/healthz' })).body, { status: 'ok' })
    const ready = await service.request({ method: 'GET', url: '/readyz' })
    assert.equal(ready.status, 200)
    assert.deepEqual(ready.body, { status: 'ready', database: 'ok', provider: 'ok', provider_check: { result: 'ok', checked_at: T0.toISOString(), age_seconds: 0 }, mail: 'ok' })
  } finally {
    await service.close()
  }
  const lines: string[] = []
  const stream = new Writable({ write(chunk, _encoding, done) { lines.push(...String(chunk).split('\n').filter(Boolean)); done() } })
  const down = await startTestService({}, { logger: { ...loggerOptions('info'), stream } })
  try {
    await down.sandbox!.fake.close()
    const unready = await down.request({ method: 'GET', url: '/readyz' })
    assert.equal(unready.status, 503)
    const { provider_check: check, reason, ...rest } = unready.body
    assert.deepEqual(rest, { status: 'unready', database: 'ok', provider: 'unreachable', mail: 'ok' })
    // What the check met stays out of a public body (it may name an address); the log has it.
    assert.deepEqual(check, { result: 'failed', checked_at: T0.toISOString(), age_seconds: 0 })
    assert.equal(reason, "the provider's last check, 0 s ago, failed; the log says how (provider_check.detail)")
    assert.equal((await down.request({ method: 'GET', url: '/healthz' })).status, 200)
    // The log says why once, when the answer changes, not at every probe.
    assert.equal((await down.request({ method: 'GET', url: '/readyz' })).status, 503)
    const said = lines.map((line) => JSON.parse(line)).filter((entry) => String(entry.msg).startsWith('unready: '))
    assert.deepEqual(said.map((entry) => entry.msg), [`unready: ${reason}`])
    assert.match(said[0].provider_check.detail, /^provider unreachable: /)
    assert.equal(lines.map((line) => JSON.parse(line)).filter((entry) => String(entry.msg).startsWith('the provider did not answer /ping')).length, 1)
  } finally {
    await down.close().catch(() => {})
  }
})

test("/readyz answers from the deployment's last provider check: asked once a minute, never beyond the provider's budget, stale after 5 minutes", async () => {
  // The provider's published limits held as production holds them: one /ping a minute.
  const service = await startTestService({ SANDBOX_PROVIDER_LIMITS: 'on' })
  const readyz = () => service.request({ method: 'GET', url: '/readyz' })
  try {
    const first = await readyz()
    assert.equal(first.status, 200, JSON.stringify(first.body))
    // Half a minute on, nobody asks again: the same check, older.
    await service.advance(30)
    const again = await readyz()
    assert.equal(again.status, 200, JSON.stringify(again.body))
    assert.deepEqual(again.body.provider_check, { result: 'ok', checked_at: T0.toISOString(), age_seconds: 30 })
    // A minute on the check is due, but the minute's ping is spent (the limit counts real time):
    // nothing is asked that the budget does not have, and the last check still answers.
    await service.advance(31)
    const due = await readyz()
    assert.equal(due.status, 200, JSON.stringify(due.body))
    assert.deepEqual(due.body.provider_check, { result: 'ok', checked_at: T0.toISOString(), age_seconds: 61 })
    // Five minutes without a check say nothing about the provider now.
    await service.advance(240)
    await service.store.rateBuckets.take('provider:ping', eulenPublishedLimits.ping)
    const stale = await readyz()
    assert.equal(stale.status, 503)
    assert.equal(stale.body.provider, 'unreachable')
    assert.deepEqual(stale.body.provider_check, { result: 'ok', checked_at: T0.toISOString(), age_seconds: 301 })
    assert.match(stale.body.reason, /^the provider's last check is 301 s old/)
  } finally {
    await service.close()
  }
})

test('a restarted instance is ready at once: the check it finds in the database is the deployment’s', async () => {
  const opened = await openTestDatabase()
  // Both lives of the instance use the one database, which outlives the first.
  const database = { ...opened, close: async () => {} }
  const clock = createAdjustableClock(T0)
  const config = loadConfig({ DATA_DIR: '/nonexistent', BASE_URL: 'http://pix.test', SANDBOX_PROVIDER_LIMITS: 'on' })
  try {
    const before = await startService(config, { database, clock, logger: false })
    try {
      assert.equal((await before.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200)
    } finally {
      await before.close()
    }
    clock.advance(20)
    const after = await startService(config, { database, clock, logger: false })
    try {
      const ready = await after.app.inject({ method: 'GET', url: '/readyz' })
      assert.equal(ready.statusCode, 200, ready.body)
      assert.deepEqual(ready.json().provider_check, { result: 'ok', checked_at: T0.toISOString(), age_seconds: 20 })
    } finally {
      await after.close()
    }
  } finally {
    await opened.close()
  }
})
