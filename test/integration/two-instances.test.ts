// Integration runner: postgres only (every test here skips on PGlite).
// Two service instances on one PostgreSQL database receive the same provider webhook at the same
// moment: the payment is credited once. They are ready together, and stay so through a rolling
// restart, though the provider allows the deployment one /ping a minute.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { openPostgres } from '../../src/store/database.ts'
import { startService } from '../../src/service.ts'
import { ok } from '../support/api.ts'
import { T0, openTestDatabase, reachable, testDatabase } from '../support/harness.ts'

test('the same webhook at two instances at once credits once', { skip: testDatabase !== 'postgres' }, async () => {
  const database = await openTestDatabase()
  const env = { PROVIDER_WEBHOOK_SECRET: 'shared-secret', DATA_DIR: '/nonexistent', BASE_URL: 'http://pix.test' }
  const first = reachable(await startService(loadConfig(env), { database: await openPostgres(database.url!, 5), clock: createAdjustableClock(T0), logger: false }))
  const second = await startService(loadConfig(env), { database: await openPostgres(database.url!, 5), clock: createAdjustableClock(T0), logger: false })
  try {
    const post = async (app: typeof first.app, url: string, body: unknown, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url, payload: body as object, headers })
    await post(first.app, '/sandbox/accounts', { email: 'shop@example.com', tax_number: '52998224725' })
    const token = (await post(first.app, '/sandbox/accounts/shop@example.com/tokens', {})).json().token
    for (let round = 0; round < 10; round++) {
      const payer = generateCpf()
      const created = ok(await first.api.post('/api/create-payment', { value: '10.00', email: `c${round}@example.com`, tax_number: payer, payer_name: 'Payer Person' }, { token }))
      const charge = (await first.store.charges.findById(created.id))!
      const webhook = { qrId: charge.provider_deposit_id, status: 'depix_sent', valueInCents: 1000, payerName: 'P', payerTaxNumber: payer, payerEUID: (await first.sandbox!.fake.endUser(payer, 'P')).euid }
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => post(i % 2 ? second.app : first.app, '/provider/webhooks/deposit', webhook, { authorization: 'Basic shared-secret' })),
      )
      assert.deepEqual(answers.map((answer) => answer.statusCode), [200, 200, 200, 200, 200, 200])
      const postings = await first.database.db.selectFrom('ledger_postings').select('key').where('charge_id', '=', charge.id).execute()
      assert.equal(postings.length, 1, JSON.stringify(await first.store.charges.findById(charge.id)))
      const account = await first.store.accounts.findByEmail(`c${round}@example.com`)
      assert.equal((await second.store.ledger.balances(account!.id)).DEPIX, 900)
    }
  } finally {
    await first.close()
    await second.close()
    await database.close()
  }
})

test('two instances are ready together and stay ready through a rolling restart, on one /ping a minute', { skip: testDatabase !== 'postgres' }, async () => {
  const database = await openTestDatabase()
  // The provider's published limits held as production holds them; both instances share the deployment's budget.
  const config = loadConfig({ DATA_DIR: '/nonexistent', BASE_URL: 'http://pix.test', SANDBOX_PROVIDER_LIMITS: 'on' })
  const clock = createAdjustableClock(T0)
  const start = async () => startService(config, { database: await openPostgres(database.url!, 5), clock, logger: false })
  const instances = [await start(), await start()]
  const readiness = async () => Promise.all(instances.map(async (instance) => {
    const answer = await instance.app.inject({ method: 'GET', url: '/readyz' })
    return `${answer.statusCode} ${answer.json().reason ?? ''}`.trim()
  }))
  try {
    // A load balancer polls both every 10 s for 3 minutes; each instance in turn is restarted.
    for (let poll = 0; poll < 18; poll++) {
      assert.deepEqual(await readiness(), ['200', '200'], `poll ${poll}`)
      if (poll === 6 || poll === 12) {
        const which = poll === 6 ? 0 : 1
        await instances[which]!.close()
        instances[which] = await start()
        assert.deepEqual(await readiness(), ['200', '200'], `just after restarting instance ${which}`)
      }
      clock.advance(10)
    }
  } finally {
    for (const instance of instances) await instance.close()
    await database.close()
  }
})
