// Issue 23 (decisions 15): withdrawals race on one account across two instances sharing one
// PostgreSQL database; the account lock makes each confirmation see what the others reserved, so
// the available balance never goes below zero through a withdrawal.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { checkLedger } from '../../src/app/check-ledger.ts'
import { openPostgres } from '../../src/store/database.ts'
import { startService } from '../../src/service.ts'
import { newLiquidAddress, parseLiquidAddress } from '../../src/treasury/liquid-address.ts'
import { T0, openTestDatabase, testDatabase } from '../support/harness.ts'

test('twenty withdrawals at once on one account, through two instances: only what the balance covers is reserved', { skip: testDatabase !== 'postgres' }, async () => {
  const database = await openTestDatabase()
  const env = { PROVIDER_WEBHOOK_SECRET: 'shared-secret', DATA_DIR: '/nonexistent', BASE_URL: 'http://pix.test', SANDBOX_PROVIDER_REQUIRE_NAME: 'off', RATE_LIMIT_PER_MINUTE: '0' }
  const first = await startService(loadConfig(env), { database: await openPostgres(database.url!, 5), clock: createAdjustableClock(T0), logger: false })
  const second = await startService(loadConfig(env), { database: await openPostgres(database.url!, 5), clock: createAdjustableClock(T0), logger: false })
  try {
    // Listening, so the sandbox's provider can deliver its webhook for the payment that funds the account.
    await first.app.listen({ host: '127.0.0.1', port: 0 })
    const post = (app: typeof first.app, url: string, body: unknown, headers: Record<string, string> = {}) => app.inject({ method: 'POST', url, payload: body as object, headers })
    const taxNumber = generateCpf()
    const account = (await post(first.app, '/sandbox/accounts', { email: 'race-out@example.com', tax_number: taxNumber, name: 'Race Owner' })).json()
    const token = (await post(first.app, '/sandbox/accounts/race-out@example.com/tokens', {})).json().token
    const charge = (await post(first.app, '/api/create-payment', { value: '300.00', email: 'race-out@example.com', euid: account.euid }, { 'x-api-token': token })).json()
    assert.equal((await post(first.app, `/sandbox/payments/${charge.id}/pay`, { payer_name: 'Race Owner', payer_tax_number: taxNumber })).json().status, 'depix_sent')
    // A destination confirmed and past its cool-down (the Wallet's part has its own tests).
    const owner = (await first.store.accounts.findByEmail('race-out@example.com'))!
    const address = newLiquidAddress('elementsregtest', randomBytes(20), Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex'))
    const destination = (await first.store.withdrawals.insertDestination({
      id: `dst_${randomBytes(12).toString('hex')}`, account_id: owner.id, type: 'liquid', value: address, script_hex: parseLiquidAddress(address, 'elementsregtest')!.scriptHex, label: null,
      state: 'confirmed', created_at: T0, confirmed_at: T0, usable_at: T0, canceled_at: null, cancel_token_hash: createHash('sha256').update(randomBytes(8)).digest('hex'),
    }))!

    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      post(i % 2 ? second.app : first.app, '/api/withdrawals', { currency: 'DEPIX', amount: 3_000, destination_id: destination.id }, { 'x-api-token': token })))
    const codes = answers.map((answer) => (answer.statusCode === 200 ? answer.json().status : answer.json().code))
    // R$ 299,00 available: nine R$ 30,00 withdrawals fit, the tenth does not.
    assert.equal(codes.filter((code) => code === 'confirmed').length, 9, JSON.stringify(codes))
    assert.equal(codes.filter((code) => code === 'insufficient_funds').length, 11, JSON.stringify(codes))
    assert.equal((await second.store.ledger.balances(owner.id, 'available')).DEPIX, 29_900 - 9 * 3_000)
    assert.equal((await second.store.ledger.balances(owner.id, 'withdrawing')).DEPIX, 9 * 3_000)
    assert.equal((await checkLedger({ store: first.store })).ok, true)
  } finally {
    await first.close()
    await second.close()
    await database.close()
  }
})
