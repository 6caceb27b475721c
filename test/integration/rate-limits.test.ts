import { test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { startService } from '../../src/service.ts'
import { eulenPublishedLimits } from '../../src/provider/rate-limits.ts'
import { openPostgres } from '../../src/store/database.ts'
import { T0, openTestDatabase, reachable, startTestService, testDatabase } from '../support/harness.ts'

test('per-token rate limit: 429 rate_limited with Retry-After; other tokens unaffected; 0 switches it off', async () => {
  const limited = await startTestService({ RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_BURST: '3' })
  try {
    const a = await limited.merchant('a@example.com', '52998224725')
    const b = await limited.merchant('b@example.com', '11144477735')
    const read = (token: string) => limited.api.get('/api/get-balance', { token })
    for (let i = 0; i < 3; i++) assert.equal((await read(a.token)).status, 200)
    const refused = await read(a.token)
    assert.equal(refused.status, 429)
    assert.equal(refused.body.code, 'rate_limited')
    assert.match(String(refused.headers['retry-after']), /^\d+$/)
    assert.equal(typeof refused.body.request_id, 'string')
    assert.equal((await read(b.token)).status, 200)
  } finally {
    await limited.close()
  }
  const unlimited = await startTestService({ RATE_LIMIT_PER_MINUTE: '0' })
  try {
    const a = await unlimited.merchant('a@example.com', '52998224725')
    for (let i = 0; i < 20; i++) assert.equal((await unlimited.api.get('/api/get-balance', { token: a.token })).status, 200)
  } finally {
    await unlimited.close()
  }
})

test('calls to the provider are held to its published limits: the 51st deposit in a burst is a clear 503', async () => {
  const service = await startTestService({ SANDBOX_PROVIDER_LIMITS: 'on', RATE_LIMIT_PER_MINUTE: '0' })
  try {
    const merchant = await service.merchant('burst@example.com', '52998224725')
    const create = () => service.api.post('/api/create-payment', { value: '10.00', email: 'c@example.com', tax_number: generateCpf() }, { token: merchant.token })
    // The bucket refills one deposit every 4 s on the database's clock: 49 taken at once, as 49
    // deposits would, leave the 50th and 51st a moment apart however slow the machine (50 real
    // creates took over 4 s on a loaded one, and the 51st found a token refilled).
    assert.equal(await service.store.rateBuckets.take('provider:deposit', eulenPublishedLimits.deposit, 49), 0)
    assert.equal((await create()).status, 200)
    const refused = await create()
    assert.equal(refused.status, 503)
    assert.equal(refused.body.code, 'provider_unavailable')
    assert.match(String(refused.headers['retry-after']), /^[1-9]\d*$/)
  } finally {
    await service.close()
  }
})

test('the provider\'s limits hold for the deployment: two instances on one database share the burst of 50', { skip: testDatabase !== 'postgres', timeout: 120_000 }, async () => {
  const { first, second, token } = await twoInstancesWithOneToken({ SANDBOX_PROVIDER_LIMITS: 'on', RATE_LIMIT_PER_MINUTE: '0' })
  try {
    const started = performance.now()
    const statuses: number[] = []
    const queue = Array.from({ length: 70 }, (_, i) => i)
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        const instance = i % 2 === 0 ? first : second
        const response = await instance.api.post('/api/create-payment', { value: '10.00', email: 'c@example.com', tax_number: generateCpf(), payer_name: 'Payer Person' }, { token })
        assert.ok(response.status === 200 || (response.status === 503 && response.body.code === 'provider_unavailable'), JSON.stringify(response.body))
        statuses.push(response.status)
      }
    }))
    // The burst, and what the sustained 15/min refilled while the test ran: never 50 per instance.
    const refilled = Math.ceil(((performance.now() - started) / 1000) * (15 / 60))
    const made = statuses.filter((status) => status === 200).length
    assert.ok(made >= 50 && made <= 50 + refilled, `${made} deposits made (refill allowed ${refilled})`)
  } finally {
    await second.close()
    await first.close()
  }
})

test('the per-token API limit holds for the deployment: two instances on one database share one token\'s budget', { skip: testDatabase !== 'postgres', timeout: 120_000 }, async () => {
  // 120 a minute: leases of 2 tokens, so each instance also spends from its own lease.
  const { first, second, token } = await twoInstancesWithOneToken({ RATE_LIMIT_PER_MINUTE: '120', RATE_LIMIT_BURST: '120' })
  try {
    const started = performance.now()
    const served = { first: 0, second: 0 }
    let refused = 0
    const queue = Array.from({ length: 240 }, (_, i) => i)
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        const which = i % 2 === 0 ? 'first' : 'second'
        const response = await (which === 'first' ? first : second).api.get('/api/get-balance', { token })
        if (response.status === 200) served[which]++
        else {
          assert.equal(response.body.code, 'rate_limited')
          assert.match(String(response.headers['retry-after']), /^\d+$/)
          refused++
        }
      }
    }))
    // The budget of 120, and what 2 a second refilled while the test ran: never 120 per instance.
    const refilled = Math.ceil(((performance.now() - started) / 1000) * 2)
    const total = served.first + served.second
    assert.ok(total <= 120 + refilled, `${total} served (refill allowed ${refilled})`)
    assert.ok(total >= 100 && served.first > 0 && served.second > 0, JSON.stringify(served))
    assert.equal(total + refused, 240)
  } finally {
    await second.close()
    await first.close()
  }
})

/** Two instances of the service on one PostgreSQL database, and a merchant token both accept. */
async function twoInstancesWithOneToken(settings: Record<string, string>) {
  const database = await openTestDatabase()
  const env = { ...settings, PROVIDER_WEBHOOK_SECRET: 's', DATA_DIR: '/nonexistent', BASE_URL: 'http://pix.test' }
  const first = reachable(await startService(loadConfig(env), { database, clock: createAdjustableClock(T0), logger: false }))
  const second = reachable(await startService(loadConfig(env), { database: await openPostgres(database.url!, 5), clock: createAdjustableClock(T0), logger: false }))
  await first.app.inject({ method: 'POST', url: '/sandbox/accounts', payload: { email: 'shared@example.com', tax_number: '52998224725' } })
  const token: string = (await first.app.inject({ method: 'POST', url: '/sandbox/accounts/shared@example.com/tokens', payload: {} })).json().token
  return { first, second, token }
}

test('idle API buckets are forgotten, the provider\'s never are (a provider bucket refills slower than a minute)', async () => {
  const service = await startTestService()
  try {
    const limit = { perMinute: 60, burst: 60 }
    assert.equal(await service.store.rateBuckets.take('api:token:idle', limit, 5), 0)
    assert.equal(await service.store.rateBuckets.take('provider:deposit', { perMinute: 15, burst: 50 }), 0)
    await service.store.rateBuckets.forgetIdle('api:', 0)
    const keys = (await service.database.db.selectFrom('rate_buckets').select('key').execute()).map((row) => row.key)
    assert.deepEqual(keys, ['provider:deposit'])
    // All or none: more than the bucket holds is refused with the wait for that many.
    assert.ok((await service.store.rateBuckets.take('api:token:big', limit, 61)) >= 1)
  } finally {
    await service.close()
  }
})

test('issue 21 (point 5): bogus tokens write nothing; a token over its limit is answered without the database; the burst is a sixth of the minute', async () => {
  const service = await startTestService({ RATE_LIMIT_PER_MINUTE: '60', AUTH_FAILURES_PER_MINUTE: '60' })
  try {
    const merchant = await service.merchant('burst-default@example.com', '52998224725')
    const rows = async () => (await service.database.db.selectFrom('rate_buckets').select('key').execute()).length
    const before = await rows()
    // 2,000 distinct bogus tokens from 25 addresses: 60 failures each are answered 401, the other
    // 20 are 429 before any lookup; none makes a bucket row.
    const answers = new Map<number, number>()
    for (let i = 0; i < 2000; i++) {
      const response = await service.app.inject({ method: 'GET', url: '/api/get-balance', headers: { 'x-api-token': `pxt_bogus_${i}` }, remoteAddress: `10.9.0.${i % 25}` })
      answers.set(response.statusCode, (answers.get(response.statusCode) ?? 0) + 1)
    }
    assert.deepEqual(Object.fromEntries(answers), { 401: 25 * 60, 429: 25 * 20 })
    assert.equal(await rows(), before, 'no rate-limit row for a token that does not exist')

    // A real token: 10 at once (a sixth of 60), then refused; refused requests ask the database nothing.
    const read = () => service.api.get('/api/get-balance', { token: merchant.token })
    let served = 0
    for (let i = 0; i < 10; i++) if ((await read()).status === 200) served++
    assert.equal(served, 10)
    assert.equal((await read()).status, 429)
    let takes = 0
    const take = service.store.rateBuckets.take
    service.store.rateBuckets.take = (...args) => {
      takes++
      return take(...args)
    }
    for (let i = 0; i < 20; i++) assert.equal((await read()).status, 429)
    assert.equal(takes, 0, 'answered from what this instance already knows')
    assert.equal(await rows(), before + 1, 'one bucket, for the one real token')
  } finally {
    await service.close()
  }
})
