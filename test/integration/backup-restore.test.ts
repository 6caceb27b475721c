// Backups as docs/operations.md takes them, restored: PostgreSQL with pg_dump and pg_restore while
// the service runs, the embedded database by stopping the service and archiving DATA_DIR. The
// restored service finds the same balances, answers the same token and its books check.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { loadConfig } from '../../src/config.ts'
import { openPostgres } from '../../src/store/database.ts'
import { startService, type Service } from '../../src/service.ts'
import { migratedPgliteFolder, openTestDatabase, testDatabase } from '../support/harness.ts'

const env = { BASE_URL: 'http://pix.test', SANDBOX_PROVIDER_REQUIRE_NAME: 'off' }

/** Listening, so the sandbox's fake provider can deliver its webhooks. */
async function listening(starting: Promise<Service>): Promise<Service> {
  const service = await starting
  await service.app.listen({ host: '127.0.0.1', port: 0 })
  return service
}

async function call(service: Service, method: 'GET' | 'POST', url: string, body?: object, headers: Record<string, string> = {}) {
  const response = await service.app.inject({ method, url, headers, ...(body ? { payload: body } : {}) })
  assert.ok(response.statusCode < 300, `${url}: ${response.body}`)
  return response.json()
}

/** An account with DEPIX and BTC credited by its own payments; answers its token. */
async function withBalances(service: Service): Promise<string> {
  const { euid } = await call(service, 'POST', '/sandbox/accounts', { email: 'shop@example.com', tax_number: '52998224725' })
  const { token } = await call(service, 'POST', '/sandbox/accounts/shop@example.com/tokens', {})
  for (const charge of [{ value: '10.00' }, { value: '100.00', swap_to: 'BTC' }]) {
    const { id } = await call(service, 'POST', '/api/create-payment', { ...charge, email: 'shop@example.com', euid }, { 'x-api-token': token })
    await call(service, 'POST', `/sandbox/payments/${id}/pay`, { payer_name: 'Shop Owner', payer_tax_number: '52998224725' })
  }
  return token
}

/** Every running balance of every account, and the token's account as the API answers it. */
async function balances(service: Service, token: string) {
  return {
    rows: await service.database.db.selectFrom('account_balances').selectAll().orderBy(['account_id', 'book', 'currency']).execute(),
    api: await call(service, 'GET', '/api/get-balance', undefined, { 'x-api-token': token }),
  }
}

/** Starts the service, credits an account, reads every balance, runs `whileRunning` (a hot backup), and stops it. */
async function balancesOfACreditedService(start: () => Promise<Service>, whileRunning: () => void = () => {}) {
  const service = await start()
  try {
    const token = await withBalances(service)
    const before = await balances(service, token)
    whileRunning()
    return { token, before }
  } finally {
    await service.close()
  }
}

async function restoredAlike(start: () => Promise<Service>, before: Awaited<ReturnType<typeof balances>>, token: string) {
  const restored = await start()
  try {
    assert.deepEqual(await balances(restored, token), before)
    assert.ok(before.api.balances.BTC.available_sats > 0 && before.api.balances.DEPIX.available_cents > 0, JSON.stringify(before.api))
    assert.equal((await call(restored, 'GET', '/ops/ledger-check', undefined, { authorization: `Bearer ${restored.opsToken}` })).ok, true)
  } finally {
    await restored.close()
  }
}

test('PostgreSQL: pg_dump of the running service, pg_restore into a new database: the same balances', { skip: testDatabase !== 'postgres' && 'the PostgreSQL run covers pg_dump; this run restores the embedded folder below' }, async () => {
  const database = await openTestDatabase()
  const url = database.url!
  const restoredName = `pixtest_restored_${randomBytes(4).toString('hex')}`
  const restoredUrl = Object.assign(new URL(url), { pathname: `/${restoredName}` }).href
  const folder = mkdtempSync(join(tmpdir(), 'pix-pgdump-'))
  const opsToken = randomBytes(24).toString('base64url')
  const start = async (databaseUrl: string) =>
    listening(startService(loadConfig({ ...env, DATABASE_URL: databaseUrl, OPS_TOKEN: opsToken, DATA_DIR: '/nonexistent' }), { logger: false, database: await openPostgres(databaseUrl, 3) }))
  try {
    // The dump is taken while the service runs, as the guide takes it.
    const { token, before } = await balancesOfACreditedService(() => start(url), () => execFileSync('pg_dump', ['--format=custom', `--file=${join(folder, 'pix.dump')}`, url]))
    execFileSync('createdb', [`--maintenance-db=${url}`, restoredName])
    execFileSync('pg_restore', ['--no-owner', `--dbname=${restoredUrl}`, join(folder, 'pix.dump')])
    await restoredAlike(() => start(restoredUrl), before, token)
  } finally {
    execFileSync('dropdb', ['--if-exists', `--maintenance-db=${url}`, restoredName])
    await database.close()
    rmSync(folder, { recursive: true, force: true })
  }
})

test('the embedded database: stop the service, archive DATA_DIR, unpack it elsewhere: the same balances', { skip: testDatabase !== 'pglite' && 'the embedded database is covered in the PGlite run' }, async () => {
  const dataDir = await migratedPgliteFolder('pix-backup-')
  const backups = mkdtempSync(join(tmpdir(), 'pix-backups-'))
  const restoredDir = join(backups, 'restored')
  const opsToken = randomBytes(24).toString('base64url')
  const start = (dir: string) => listening(startService(loadConfig({ ...env, DATA_DIR: dir, OPS_TOKEN: opsToken }), { logger: false }))
  try {
    const { token, before } = await balancesOfACreditedService(() => start(dataDir))
    execFileSync('tar', ['-C', dataDir, '-czf', join(backups, 'pix.tgz'), '.'])
    mkdirSync(restoredDir)
    execFileSync('tar', ['-C', restoredDir, '-xzf', join(backups, 'pix.tgz')])
    await restoredAlike(() => start(restoredDir), before, token)
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(backups, { recursive: true, force: true })
  }
})
