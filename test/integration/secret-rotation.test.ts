// Rotating OPS_TOKEN and PROVIDER_WEBHOOK_SECRET without downtime (docs/operations.md): an
// instance started with the new secret and the old one as *_PREVIOUS accepts both, beside an
// instance still on the old one, on one database; once the old secret is dropped it stops working.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { startService, type Service } from '../../src/service.ts'
import type { OpenedDatabase } from '../../src/store/database.ts'
import { T0, openTestDatabase } from '../support/harness.ts'
import { newestCode, walletClient } from '../support/wallet-client.ts'

const secret = () => randomBytes(24).toString('base64url')
const oldOps = secret()
const newOps = secret()
const oldHook = secret()
const newHook = secret()

let database: OpenedDatabase
/** Before the rotation, during it (new secret, old one as previous), after it (new secret only). */
let before_: Service
let during: Service
let after_: Service

before(async () => {
  database = await openTestDatabase()
  // Three instances of one deployment on one database; the test closes the database itself.
  const shared = { ...database, close: async () => {} }
  const start = (env: Record<string, string>) =>
    startService(loadConfig({ DATA_DIR: '/nonexistent', BASE_URL: 'http://pix.test', SANDBOX_PROVIDER_REQUIRE_NAME: 'off', ...env }), { database: shared, clock: createAdjustableClock(T0), logger: false })
  before_ = await start({ OPS_TOKEN: oldOps, PROVIDER_WEBHOOK_SECRET: oldHook })
  during = await start({ OPS_TOKEN: newOps, OPS_TOKEN_PREVIOUS: oldOps, PROVIDER_WEBHOOK_SECRET: newHook, PROVIDER_WEBHOOK_SECRET_PREVIOUS: oldHook })
  after_ = await start({ OPS_TOKEN: newOps, PROVIDER_WEBHOOK_SECRET: newHook })
  await before_.app.inject({ method: 'POST', url: '/sandbox/accounts', payload: { email: 'owner@example.com', tax_number: '52998224725' } })
})
after(async () => {
  for (const service of [before_, during, after_]) await service.close()
  await database.close()
})

const ops = (service: Service, token: string) => service.app.inject({ method: 'GET', url: '/ops/holds', headers: { authorization: `Bearer ${token}` } })
const hook = (service: Service, secretValue: string) =>
  service.app.inject({ method: 'POST', url: '/provider/webhooks/deposit', headers: { authorization: `Basic ${secretValue}` }, payload: { qrId: 'f'.repeat(32), status: 'pending' } })

test('OPS_TOKEN_PREVIOUS: both tokens open /ops during the rotation, only the new one after it', async () => {
  assert.equal((await ops(during, oldOps)).statusCode, 200)
  assert.equal((await ops(during, newOps)).statusCode, 200)
  assert.equal((await ops(after_, newOps)).statusCode, 200)
  assert.equal((await ops(after_, oldOps)).statusCode, 401)
})

test('PROVIDER_WEBHOOK_SECRET_PREVIOUS: webhooks with either secret are taken during the switch at the provider, only the new one after it', async () => {
  assert.equal((await hook(during, oldHook)).statusCode, 200)
  assert.equal((await hook(during, newHook)).statusCode, 200)
  assert.equal((await hook(after_, newHook)).statusCode, 200)
  assert.equal((await hook(after_, oldHook)).statusCode, 401)
})

test('a Wallet session signed with the old token stays open during the rotation; mail sealed with it is still sent', async () => {
  const wallet = walletClient(before_)
  await wallet.get('/wallet')
  await wallet.post('/wallet/sign-in', { email: 'owner@example.com' })
  // The instance being replaced sealed the code's mail; the new one sends it (its outbox route runs the queue).
  const code = await newestCode(during, 'owner@example.com')
  await wallet.get('/wallet/code?email=owner%40example.com')
  const signedIn = await wallet.post('/wallet/code', { email: 'owner@example.com', code })
  assert.equal(signedIn.status, 303, signedIn.html)
  const cookie = `wallet_session=${wallet.jar.get('wallet_session')}`
  const overview = (service: Service) => service.app.inject({ method: 'GET', url: '/wallet/charges', headers: { cookie } })
  assert.equal((await overview(before_)).statusCode, 200)
  assert.equal((await overview(during)).statusCode, 200)
  // Dropping the old token signs out what it signed, as a rotation without *_PREVIOUS would at once.
  assert.equal((await overview(after_)).statusCode, 303)
})
