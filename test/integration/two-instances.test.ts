// Integration runner: postgres only (every test here skips on PGlite).
// Two service instances on one PostgreSQL database receive the same provider webhook at the same
// moment: the payment is credited once.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { openPostgres } from '../../src/store/database.ts'
import { startService } from '../../src/service.ts'
import { T0, openTestDatabase, testDatabase } from '../support/harness.ts'

test('the same webhook at two instances at once credits once', { skip: testDatabase !== 'postgres' }, async () => {
  const database = await openTestDatabase()
  const env = { PROVIDER_WEBHOOK_SECRET: 'shared-secret', DATA_DIR: '/nonexistent', BASE_URL: 'http://pix.test' }
  const first = await startService(loadConfig(env), { database: await openPostgres(database.url!, 5), clock: createAdjustableClock(T0), logger: false })
  const second = await startService(loadConfig(env), { database: await openPostgres(database.url!, 5), clock: createAdjustableClock(T0), logger: false })
  try {
    const post = async (app: typeof first.app, url: string, body: unknown, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url, payload: body as object, headers })
    await post(first.app, '/sandbox/accounts', { email: 'shop@example.com', tax_number: '52998224725' })
    const token = (await post(first.app, '/sandbox/accounts/shop@example.com/tokens', {})).json().token
    for (let round = 0; round < 10; round++) {
      const payer = generateCpf()
      const created = (await post(first.app, '/api/create-payment', { value: '10.00', email: `c${round}@example.com`, tax_number: payer, payer_name: 'Payer Person' }, { 'x-api-token': token })).json()
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
