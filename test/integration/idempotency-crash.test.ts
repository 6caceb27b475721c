// A process killed (SIGKILL) while it owns an Idempotency-Key, mid-way through POST /deposit: the
// key is in use while its lease runs, then a retry with the same key and body takes it over and
// makes the charge, exactly once; a key whose charge was stored before the crash finds that charge.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { issueToken } from '../../src/app/issue-token.ts'
import { openAccount } from '../../src/app/open-account.ts'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { startFakeEulen } from '../../src/sandbox/fake-eulen.ts'
import { startService } from '../../src/service.ts'
import { openPglite, openPostgres, type OpenedDatabase } from '../../src/store/database.ts'
import { createStore } from '../../src/store/store.ts'
import { startTestTreasury } from '../support/treasury.ts'
import { T0, childNodeFlags, migratedPgliteFolder, openMigratedPglite, openTestDatabase, testDatabase } from '../support/harness.ts'

test('a key whose owner was killed mid-request is taken over after its lease, and makes one charge', { timeout: 60_000 }, async () => {
  const providerDb = await openMigratedPglite()
  // The provider keeps real time, as the service after the crash does.
  const provider = await startFakeEulen({ db: providerDb.db, clock: createAdjustableClock(), token: 'provider-token' })
  const testDb = testDatabase === 'postgres' ? await openTestDatabase() : null
  const dataDir = testDb ? mkdtempSync(join(tmpdir(), 'pix-crash-')) : await migratedPgliteFolder('pix-crash-')
  const open = (): Promise<OpenedDatabase> => (testDb ? openPostgres(testDb.url!, 3) : openPglite(dataDir))
  const treasury = await startTestTreasury()
  const env = {
    ...treasury.env,
    MODE: 'production', PRICE_SOURCE_URL: 'http://127.0.0.1:1/ticker', BASE_URL: 'https://pix.example.com', PROVIDER_URL: provider.url, PROVIDER_TOKEN: 'provider-token',
    PROVIDER_WEBHOOK_SECRET: 'hook-secret', OPS_TOKEN: 'ops-token', SMTP_URL: 'smtp://127.0.0.1:1', MAIL_FROM: 'Pix <no-reply@example.com>', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1',
    ...(testDb ? { DATABASE_URL: testDb.url! } : {}),
  }
  try {
    // The merchant, written before the child owns the database (PGlite: one process per folder).
    const setup = await open()
    const store = createStore(setup.db)
    const clock = createAdjustableClock(T0)
    const euid = (await provider.endUser('52998224725', 'Merchant')).euid
    const account = await openAccount({ store, clock }, { email: 'crash@example.com', taxNumber: '52998224725', name: 'Merchant', kyc: 'verified', euid })
    const token = (await issueToken({ store, clock }, { accountId: account.id })).token
    await setup.close()

    const child = spawn(process.execPath, [...childNodeFlags, 'src/main.ts'], { env: { ...process.env, ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    const address = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const address = (() => { try { return JSON.parse(line).address } catch { return undefined } })()
        if (typeof address === 'string') resolve(address)
      })
      child.once('exit', (code) => reject(new Error(`the child exited with ${code}`)))
    })

    const body = { value: '10.00', email: 'buyer@example.com', tax_number: '11144477735', payer_name: 'Buyer Person' }
    const headers = { 'x-api-token': token, 'content-type': 'application/json', 'idempotency-key': 'order-crash' }
    const gate = provider.holdDepositReplies()
    const inFlight = fetch(`${address}/api/create-payment`, { method: 'POST', headers, body: JSON.stringify(body) }).catch((error: unknown) => error)
    await gate.depositStored
    child.kill('SIGKILL')
    await exited
    assert.ok((await inFlight) instanceof Error, 'the killed child never answered')
    gate.release()

    const serviceClock = createAdjustableClock(new Date())
    const service = await startService(loadConfig(env), { database: await open(), clock: serviceClock, logger: false })
    try {
      const create = () => service.app.inject({ method: 'POST', url: '/api/create-payment', headers, payload: body })
      const busy = await create()
      assert.equal(busy.statusCode, 409, busy.body)
      assert.equal(busy.json().code, 'idempotency_key_in_use')
      assert.ok(Number(busy.headers['retry-after']) > 0)

      serviceClock.advance(61)
      const made = await create()
      assert.equal(made.statusCode, 200, made.body)
      const replay = await create()
      assert.deepEqual(replay.json(), made.json())
      const charges = await service.database.db.selectFrom('charges').select('id').execute()
      assert.deepEqual(charges.map((row) => row.id), [made.json().id])
      // The deposit the killed process left at the provider was looked up first and kept for support.
      const orphans = await service.app.inject({ method: 'GET', url: '/ops/unknown-deposits', headers: { authorization: 'Bearer ops-token' } })
      const kept = orphans.json().deposits as Array<{ seen_by: string; value_in_cents: number }>
      assert.deepEqual(kept.map((deposit) => [deposit.seen_by, deposit.value_in_cents]), [['lost_reply', 1000]])

      // Killed after the charge was stored but before the key was marked done: the retry finds it.
      await service.database.db.updateTable('idempotency_keys').set({ state: 'in_flight', response_status: null, response_body: null, lease_until: serviceClock.now() }).execute()
      const depositsBefore = await providerDb.db.selectFrom('fake_eulen_deposits' as never).select((eb: any) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow() as { n: unknown }
      serviceClock.advance(1)
      const found = await create()
      assert.equal(found.statusCode, 200, found.body)
      assert.deepEqual(found.json(), made.json())
      const depositsAfter = await providerDb.db.selectFrom('fake_eulen_deposits' as never).select((eb: any) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow() as { n: unknown }
      assert.equal(Number(depositsAfter.n), Number(depositsBefore.n), 'no second deposit was asked for')
    } finally {
      await service.close()
    }
  } finally {
    await provider.close()
    await treasury.elements.close()
    await providerDb.close()
    await testDb?.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
})
