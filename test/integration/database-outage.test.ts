// Integration runner: postgres only (every test here skips on PGlite).
// The database away is a 503, not a 500 (issue 21, point 10): a PostgreSQL server of the test's
// own is stopped under load and started again. While it is down every call answers 503
// service_unavailable with Retry-After, logged once for the outage; within a second of its return
// the service answers again by itself, and the job runner's wake-ups resume.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { Writable } from 'node:stream'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { openPostgres } from '../../src/store/database.ts'
import { startService } from '../../src/service.ts'
import { T0, testDatabase } from '../support/harness.ts'
import { startPrivatePostgres } from '../support/private-postgres.ts'

test('PostgreSQL stopped under load: 503 service_unavailable with Retry-After, one log line, and the service back within a second of the database', { skip: testDatabase === 'postgres' ? false : 'needs a PostgreSQL server of its own; run in the PostgreSQL half', timeout: 120_000 }, async () => {
  const postgres = await startPrivatePostgres()
  const lines: Array<{ level: number; msg: string }> = []
  const logs = new Writable({ write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
    done()
  } })
  const service = await startService(loadConfig({ DATABASE_URL: postgres.url, DATA_DIR: '/nonexistent', BASE_URL: 'http://pix.test', TOKEN_CACHE_MS: '0', RATE_LIMIT_PER_MINUTE: '0' }), {
    database: await openPostgres(postgres.url, 4, () => {}),
    clock: createAdjustableClock(T0),
    logger: { level: 'warn', stream: logs },
  })
  try {
    await service.app.inject({ method: 'POST', url: '/sandbox/accounts', payload: { email: 'outage@example.com', tax_number: '52998224725' } })
    const token = (await service.app.inject({ method: 'POST', url: '/sandbox/accounts/outage@example.com/tokens', payload: {} })).json().token as string
    const read = () => service.app.inject({ method: 'GET', url: '/api/get-balance', headers: { 'x-api-token': token } })
    assert.equal((await read()).statusCode, 200)

    // Load: eight clients reading while the database goes away.
    let loading = true
    const seen = new Map<number, number>()
    const load = Promise.all(Array.from({ length: 8 }, async () => {
      while (loading) {
        const response = await read()
        seen.set(response.statusCode, (seen.get(response.statusCode) ?? 0) + 1)
        if (response.statusCode === 503) {
          assert.equal(response.json().code, 'service_unavailable')
          assert.match(String(response.headers['retry-after']), /^[1-9]\d*$/)
        }
        await new Promise((resolve) => setImmediate(resolve))
      }
    }))
    postgres.stop()
    const down = await read()
    assert.equal(down.statusCode, 503)
    assert.equal(down.json().code, 'service_unavailable')
    await new Promise((resolve) => setTimeout(resolve, 300))
    postgres.start()
    const back = performance.now()
    let recovered = Number.POSITIVE_INFINITY
    while (performance.now() - back < 10_000) {
      if ((await read()).statusCode === 200) {
        recovered = performance.now() - back
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    loading = false
    await load
    assert.ok(recovered < 1_000, `answered again ${recovered.toFixed(0)} ms after the database was back`)
    assert.equal(seen.get(500), undefined, `no 500 under the outage: ${JSON.stringify(Object.fromEntries(seen))}`)
    assert.ok((seen.get(503) ?? 0) > 0)
    const outage = lines.filter((line) => /database is unreachable/.test(line.msg))
    assert.equal(outage.length, 1, 'the outage is logged once, not per request')
    assert.equal(lines.filter((line) => /database is reachable again/.test(line.msg)).length, 1)

    // The runner's wake-ups resume (its LISTEN connection is made again): a webhook queued now is
    // delivered at once, not at the next poll a minute away.
    const delivered = new Promise<number>((resolve) => {
      const receiver = createServer((request, response) => {
        response.end('ok')
        resolve(performance.now())
        receiver.close()
      })
      receiver.listen(0, '127.0.0.1', () => hookPort.resolve((receiver.address() as { port: number }).port))
    })
    const hookPort = Promise.withResolvers<number>()
    service.jobs.start(60_000)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const created = await service.app.inject({ method: 'POST', url: '/api/create-payment', headers: { 'x-api-token': token },
      payload: { value: '10.00', email: 'c@example.com', tax_number: '11144477735', payer_name: 'Ana Souza', webhook_url: `http://127.0.0.1:${await hookPort.promise}/hook` } })
    assert.equal(created.statusCode, 200, created.body)
    const charge = (await service.store.charges.findById(created.json().id))!
    const sent = performance.now()
    const paid = await service.app.inject({ method: 'POST', url: '/provider/webhooks/deposit', headers: { authorization: `Basic ${service.providerWebhookSecret}` },
      payload: { qrId: charge.provider_deposit_id, status: 'depix_sent', valueInCents: 1000, payerName: 'Ana Souza', payerTaxNumber: '11144477735' } })
    assert.equal(paid.statusCode, 200, paid.body)
    const arrivedAfter = (await delivered) - sent
    assert.ok(arrivedAfter < 2_000, `the webhook arrived ${arrivedAfter.toFixed(0)} ms after the payment`)
  } finally {
    await service.close().catch(() => {})
    await postgres.close()
  }
})
