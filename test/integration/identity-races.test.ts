// One identity, one account, under concurrency (docs/rules.md#payer-identity): two charges for
// different e-mails, paid at the same moment by the same new CPF, at two service instances sharing
// one PostgreSQL database (one instance on PGlite). The checks and the binding of a payer's
// identity are serialized per identity, so exactly one account is credited and bound; the other
// payment is held (identity_bound_elsewhere), never credited.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { openPostgres } from '../../src/store/database.ts'
import { startService, type Service } from '../../src/service.ts'
import { ok } from '../support/api.ts'
import { T0, openTestDatabase, reachable, testDatabase } from '../support/harness.ts'

const env = { PROVIDER_WEBHOOK_SECRET: 'shared-secret', OPS_TOKEN: 'ops-secret', DATA_DIR: '/nonexistent', BASE_URL: 'http://pix.test', RATE_LIMIT_PER_MINUTE: '0' }
const PAIRS = 8

test('two charges for different accounts paid at once by one new CPF: one is credited and bound, the other held', { timeout: 120_000 }, async () => {
  const database = await openTestDatabase()
  const instances: Array<ReturnType<typeof reachable<Service>>> = []
  try {
    instances.push(reachable(await startService(loadConfig(env), { database, clock: createAdjustableClock(T0), logger: false })))
    if (testDatabase === 'postgres') {
      instances.push(reachable(await startService(loadConfig(env), { database: await openPostgres(database.url!, 5), clock: createAdjustableClock(T0), logger: false })))
    }
    const first = instances[0]!
    const at = (i: number) => instances[i % instances.length]!
    const post = async (i: number, url: string, body: unknown, headers: Record<string, string> = {}) => {
      const response = await at(i).app.inject({ method: 'POST', url, payload: body as object, headers })
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`)
      return response.json()
    }
    await post(0, '/sandbox/accounts', { email: 'shop@example.com', tax_number: '52998224725' })
    const token = (await post(0, '/sandbox/accounts/shop@example.com/tokens', {})).token as string

    for (let pair = 0; pair < PAIRS; pair++) {
      const cpf = generateCpf()
      const euid = (await first.sandbox!.fake.endUser(cpf, 'Nova Pagadora')).euid
      const charges = await Promise.all(['a', 'b'].map(async (side, i) => {
        const created = ok(await at(i).api.post('/api/create-payment', { value: '10.00', email: `${side}${pair}@example.com`, tax_number: cpf, payer_name: 'Nova Pagadora' }, { token }))
        return (await first.store.charges.findById(created.id))!
      }))
      // Both payments arrive together, each at another instance.
      await Promise.all(charges.map((charge, i) =>
        post(i, '/provider/webhooks/deposit', { qrId: charge.provider_deposit_id, status: 'depix_sent', valueInCents: 1000, payerName: 'Nova Pagadora', payerTaxNumber: cpf, payerEUID: euid }, { authorization: 'Basic shared-secret' })))
      const after = await Promise.all(charges.map(async (charge) => (await first.store.charges.findById(charge.id))!))
      const credited = after.filter((charge) => charge.status === 'depix_sent')
      const held = after.filter((charge) => charge.status === 'security_hold')
      assert.equal(credited.length, 1, `pair ${pair}: ${after.map((charge) => charge.status).join(', ')}`)
      assert.equal(held.length, 1)
      assert.equal(held[0]!.hold_reason, 'identity_bound_elsewhere')
      assert.equal(held[0]!.credited_units, null)
      const owner = credited[0]!.account_id
      assert.equal(await first.store.identities.boundAccount('tax_number', cpf), owner)
      assert.equal(await first.store.identities.boundAccount('euid', euid), owner)
      const heldBalance = await first.store.ledger.balances(held[0]!.account_id)
      assert.equal(heldBalance.DEPIX, 0)
    }
    const check = await first.app.inject({ method: 'GET', url: '/ops/ledger-check', headers: { authorization: 'Bearer ops-secret' } })
    assert.equal(check.json().ok, true, check.body)
  } finally {
    for (const instance of instances.reverse()) await instance.close().catch(() => {})
    if (instances.length === 0) await database.close()
  }
})
