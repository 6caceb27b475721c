// Backups as docs/operations.md takes them, restored: PostgreSQL with pg_dump and pg_restore while
// the service runs, the embedded database by stopping the service and archiving DATA_DIR. The
// restored service finds the same balances, answers the same token and its books check. The
// PostgreSQL half runs the guide's own shell blocks, on a server of its own (the guide's role and
// database names are the server's, not a test's): the superuser makes the role and the database,
// the service runs as that role, and the dump and restore are that role's, but for the one step
// the guide gives the superuser.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { loadConfig } from '../../src/config.ts'
import { openPostgres } from '../../src/store/database.ts'
import { startService, type Service } from '../../src/service.ts'
import { migratedPgliteFolder, testDatabase } from '../support/harness.ts'
import { startPrivatePostgres } from '../support/private-postgres.ts'

/** The shell blocks of a section of docs/operations.md (from its heading to the next of its level), in order. */
function guideBlocks(heading: string): string[] {
  const guide = readFileSync('docs/operations.md', 'utf8')
  const start = guide.indexOf(`\n${heading}\n`)
  assert.ok(start >= 0, `docs/operations.md has no "${heading}"`)
  const level = heading.split(' ')[0]!
  const end = guide.indexOf(`\n${level} `, start + heading.length + 2)
  const section = guide.slice(start, end < 0 ? undefined : end)
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map(([, body]) => body!)
}

/** Runs a block in bash, as an operator's shell would (umask 022), in `cwd`; answers what it printed. */
function shell(script: string, cwd: string, env: Record<string, string>): string {
  return execFileSync('bash', ['-euo', 'pipefail', '-c', `umask 022\n${script}`], { cwd, env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

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

test('PostgreSQL as the guide makes it: a role owning only its database; pg_dump of the running service (0600), restored as that role: the same balances', { skip: testDatabase !== 'postgres' && 'the PostgreSQL run covers pg_dump; this run restores the embedded folder below' }, async () => {
  const blocks = guideBlocks('### PostgreSQL')
  assert.equal(blocks.length, 3, 'the role and database, the dump, the restore')
  const [setup, dump, restore] = blocks as [string, string, string]
  const server = await startPrivatePostgres()
  const port = new URL(server.url).port
  const folder = mkdtempSync(join(tmpdir(), 'pix-pgdump-'))
  // `sudo -u postgres` is the superuser through the local socket; here, the test server's superuser.
  const superuser = { PGHOST: '127.0.0.1', PGPORT: port, PGUSER: 'postgres', PGDATABASE: 'postgres' }
  const asSuperuser = (block: string) => block.replaceAll('sudo -u postgres ', '')
  const opsToken = randomBytes(24).toString('base64url')
  const start = async (databaseUrl: string) =>
    listening(startService(loadConfig({ ...env, DATABASE_URL: databaseUrl, OPS_TOKEN: opsToken, DATA_DIR: '/nonexistent' }), { logger: false, database: await openPostgres(databaseUrl, 3) }))
  try {
    const printed = shell(asSuperuser(setup), folder, superuser)
    const databaseUrl = /^DATABASE_URL=(\S+)$/m.exec(printed)?.[1]?.replace('127.0.0.1:5432', `127.0.0.1:${port}`)
    assert.match(databaseUrl ?? '', /^postgres:\/\/pix:[0-9a-f]{48}@127\.0\.0\.1:\d+\/pix$/, printed)
    const role = execFileSync('psql', ['-XAtc', "select rolsuper, rolcreatedb, rolcreaterole from pg_roles where rolname = 'pix'", server.url], { encoding: 'utf8' })
    assert.equal(role.trim(), 'f|f|f', 'the role is no superuser and may make no database or role')

    // The service, as that role, makes its tables; the dump is taken while it runs, as that role.
    const { token, before } = await balancesOfACreditedService(() => start(databaseUrl!), () => shell(dump, folder, { DATABASE_URL: databaseUrl! }))
    const dumps = readdirSync(folder).filter((name) => name.endsWith('.dump'))
    assert.equal(dumps.length, 1)
    assert.equal(statSync(join(folder, dumps[0]!)).mode & 0o777, 0o600, 'the dump is readable by its owner only')

    // The restore: the superuser makes the database, the role restores into it.
    const restoreHere = asSuperuser(restore).replace(/pix-\d{4}-\d{2}-\d{2}\.dump/, dumps[0]!)
    const [createdb, ...asRole] = restoreHere.trim().split('\n')
    shell(createdb!, folder, superuser)
    shell(asRole.join('\n'), folder, { DATABASE_URL: databaseUrl! })
    const owners = execFileSync('psql', ['-XAtc', "select distinct tableowner from pg_tables where schemaname = 'public'", server.url.replace(/\/postgres$/, '/pix_restored')], { encoding: 'utf8' })
    assert.equal(owners.trim(), 'pix', 'the restored tables are the role\'s')
    await restoredAlike(() => start(databaseUrl!.replace(/\/pix$/, '/pix_restored')), before, token)
  } finally {
    await server.close()
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
    // The guide's archive line, between its stop and start of the service, as the operator's shell runs it.
    const archive = guideBlocks('### The embedded database')[0]!.split('\n').find((line) => line.includes(' tar '))!
    shell(archive.replaceAll('sudo ', '').replaceAll('/var/lib/pix-charge', dataDir).replaceAll('/var/backups', backups), backups, {})
    const archives = readdirSync(backups).filter((name) => name.endsWith('.tgz'))
    assert.equal(archives.length, 1)
    assert.equal(statSync(join(backups, archives[0]!)).mode & 0o777, 0o600, 'the archive is readable by its owner only')
    mkdirSync(restoredDir)
    execFileSync('tar', ['-C', restoredDir, '-xzf', join(backups, archives[0]!)])
    await restoredAlike(() => start(restoredDir), before, token)
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(backups, { recursive: true, force: true })
  }
})
