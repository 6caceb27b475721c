// Boots the real service for a test on a fresh database: in-memory PGlite, or a throwaway
// database on the PostgreSQL server when TEST_DATABASE=postgres (a missing server fails the run).
import { createHash, randomBytes } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { Kysely } from 'kysely'
import pg from 'pg'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import { openPglite, openPostgres, type OpenedDatabase } from '../../src/store/database.ts'
import { migrateToLatest } from '../../src/store/migrate.ts'
import { FastPgliteDialect } from '../../src/store/pglite-dialect.ts'
import { migrateFakeEulen } from '../../src/sandbox/fake-eulen-store.ts'
import { migrateOutbox } from '../../src/sandbox/outbox.ts'
import type { Database } from '../../src/store/schema.ts'
import { startService, type Service, type ServiceOptions } from '../../src/service.ts'
import { typedApi, type Answer, type RequestOptions, type TypedApi } from './api.ts'

export const testDatabase = process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'pglite'
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/**
 * For the suites about what a client sees (the documents, the SDK, the pages in a browser): the
 * database under them does not change what they check, so they run once, in the PGlite run.
 */
export const skipOnSecondDatabase = testDatabase === 'postgres' ? 'checked once, in the PGlite run: the database does not change it' : false

/**
 * The node flags this test process runs with, less the test runner's own (and its preload into
 * the test runner, test/support/test-resource-hook.ts), for the node processes a test starts: they
 * run as the integration runner set the tests to (see test/run-integration.ts).
 */
export const childNodeFlags = process.execArgv.filter((flag, index, flags) =>
  !flag.startsWith('--test') && flag !== '--expose-internals' && !flag.endsWith('test-resource-hook.ts') && !(flag === '--import' && flags[index + 1]?.endsWith('test-resource-hook.ts')))

export const T0 = new Date('2026-11-22T12:00:00.000Z')

const snapshotFiles: Partial<Record<'empty' | 'migrated', Promise<string>>> = {}
const snapshots: Partial<Record<'empty' | 'migrated', Promise<Blob>>> = {}
let postgresTemplate: Promise<string> | undefined

/** Names the migrations (and the database engine) a migrated template was made from. */
function migrationsHash(engine: string): string {
  const sources = join(import.meta.dirname, '../../src')
  const hash = createHash('sha256').update(engine)
  const files = ['store/migrate.ts', ...readdirSync(join(sources, 'store/migrations')).sort().map((name) => `store/migrations/${name}`), 'sandbox/fake-eulen-store.ts', 'sandbox/outbox.ts']
  for (const file of files) hash.update(readFileSync(join(sources, file)))
  return hash.digest('hex').slice(0, 16)
}

/**
 * The service's migrations, and the sandbox's own (its fake provider's and its outbox's): a
 * sandbox service, or a fake provider, started on a test database finds its tables made. Making
 * them at every start (about 30 DDL statements) was a tenth of a test service's CPU (measured:
 * 1,014–1,082 → 900–927 ms on PGlite). A production-mode service does not look at them.
 */
async function migrateTestDatabase(db: Kysely<any>): Promise<void> {
  await migrateToLatest(db)
  await migrateFakeEulen(db)
  await migrateOutbox(db)
}

/**
 * A PGlite data folder, dumped once per set of migrations and kept in the temp folder for every
 * test process: loading it takes a fraction of a fresh PGlite's initdb (and migrations). `empty`
 * has only what initdb makes, for the tests of the migrations themselves (each fresh PGlite ran
 * initdb again: about 2.5 s of CPU a test). The template databases are dropped from it: nothing
 * in a test creates a database, and a third of the files load faster. Answers the dump's path.
 */
function pgliteSnapshotFile(kind: 'empty' | 'migrated'): Promise<string> {
  snapshotFiles[kind] ??= (async () => {
    const engine = readFileSync(join(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json'), 'utf8')
    const path = join(tmpdir(), `pix-test-pglite-${kind}-${migrationsHash(`${engine} without templates, 1 MB WAL segments`)}.tar`)
    if (existsSync(path)) return path
    // WAL in segments of 1 MB, not PostgreSQL's 16: the dump then carries 5 MB of WAL instead of a
    // 16 MB segment, and every test database copies and loads less (measured: 416–509 → 349–382 ms
    // of CPU an open). The segment size is read from the copy's control file, so a folder unpacked
    // from it (migratedPgliteFolder) keeps it too; nothing in the service depends on it.
    const pglite = new PGlite({ initDbStartParams: ['--wal-segsize=1'] })
    const db = new Kysely<Database>({ dialect: new FastPgliteDialect(pglite) })
    if (kind === 'migrated') await migrateTestDatabase(db)
    for (const template of ['template0', 'template1']) {
      await pglite.exec(`alter database ${template} with is_template false allow_connections true`)
      await pglite.exec(`drop database ${template}`)
    }
    await pglite.exec('checkpoint')
    const dumped = await pglite.dumpDataDir('none')
    await db.destroy()
    // Written whole, then renamed: a process reading it never sees half a file.
    const partial = `${path}.${process.pid}`
    writeFileSync(partial, Buffer.from(await dumped.arrayBuffer()))
    renameSync(partial, path)
    return path
  })()
  return snapshotFiles[kind]
}

/**
 * A new data folder, as DATA_DIR names it, holding a migrated PGlite database where openPglite
 * keeps it (`<folder>/pglite`): for the tests that open a folder from several processes.
 * Unpacking the dump spares the first of them PGlite's initdb on a folder (4.5 s of CPU) and the
 * migrations; a fresh folder's first start is what the SIGTERM test runs.
 */
export async function migratedPgliteFolder(prefix: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  mkdirSync(join(dir, 'pglite'))
  const unpacked = spawnSync('tar', ['-xf', await pgliteSnapshotFile('migrated'), '-C', join(dir, 'pglite')], { encoding: 'utf8' })
  if (unpacked.status !== 0) throw new Error(`tar: ${unpacked.stderr}`)
  return dir
}

function databaseUrl(name: string): string {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.href
}

/**
 * A migrated database on the PostgreSQL server that test databases are copied from, made once
 * per set of migrations (by whichever test process gets there first) and kept; each process looks
 * it up once. Copying it is quicker than migrating each new database. It is built under a name of
 * its own and renamed when done, so no process copies a half-migrated template; older templates
 * are dropped.
 */
async function migratedPostgresTemplate(admin: pg.Client): Promise<string> {
  const template = `pixtest_template_${migrationsHash('postgres')}`
  const exists = async () => (await admin.query('select 1 from pg_database where datname = $1', [template])).rowCount === 1
  if (await exists()) return template
  const building = `pixtest_building_${randomBytes(6).toString('hex')}`
  await admin.query(`create database ${building}`)
  const opened = await openPostgres(databaseUrl(building), 1)
  try {
    await migrateTestDatabase(opened.db)
  } finally {
    await opened.close()
  }
  try {
    await admin.query(`alter database ${building} rename to ${template}`)
    const stale = await admin.query<{ datname: string }>(`select datname from pg_database where datname like 'pixtest\\_template\\_%' and datname <> $1`, [template])
    // Templates of other migrations (older checkouts) go, but not from under a run of another
    // checkout that is copying one this moment: without force, one in use is left for next time.
    for (const { datname } of stale.rows) await admin.query(`drop database if exists ${datname}`).catch(() => {})
  } catch (error) {
    // Another process finished its template first: use that one.
    await admin.query(`drop database if exists ${building}`)
    if (!(await exists())) throw error
  }
  return template
}

/**
 * The settings of a test's in-memory PGlite. A test's data fits in 16 MB of shared buffers; the
 * default 128 MB cost each start about 40 % more CPU (measured: 576 → 347 ms), setting up memory
 * no test uses. Its files live in memory and end with the process, so flushing and guarding the
 * WAL against torn pages guards nothing: without it, 150 charges made and read cost 10–20 % less
 * CPU (alternated in one process). The tests of durability open folders with the service's own
 * settings (migratedPgliteFolder, production-rig.ts).
 */
const inMemorySettings = ['shared_buffers = 16MB', 'fsync = off', 'synchronous_commit = off', 'full_page_writes = off']

/** A fresh in-memory PGlite, migrated: the test database of the PGlite run, or a fake provider's. */
export async function openMigratedPglite(): Promise<OpenedDatabase> {
  return openPglite(null, { snapshot: await pgliteSnapshot('migrated'), settings: inMemorySettings })
}

/** The migrated dump, read once per process: for a PGlite of a test's own (`loadDataDir`). */
export function migratedPgliteSnapshot(): Promise<Blob> {
  return pgliteSnapshot('migrated')
}

function pgliteSnapshot(kind: 'empty' | 'migrated'): Promise<Blob> {
  snapshots[kind] ??= pgliteSnapshotFile(kind).then((path) => new Blob([readFileSync(path)]))
  return snapshots[kind]
}

/** A new database on the PostgreSQL server, copied from `template` (or empty), dropped when closed. */
async function throwawayPostgres(template: string | null, connections: number): Promise<OpenedDatabase & { url: string }> {
  const name = `pixtest_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`create database ${name}${template === null ? '' : ` template ${template}`}`)
  } finally {
    await admin.end()
  }
  const url = databaseUrl(name)
  const opened = await openPostgres(url, connections)
  return {
    ...opened,
    url,
    close: async () => {
      await opened.close()
      const cleanup = new pg.Client({ connectionString: adminUrl })
      await cleanup.connect()
      await cleanup.query(`drop database if exists ${name} with (force)`)
      await cleanup.end()
    },
  }
}

/** A fresh, empty database of the kind under test, dropped when closed. */
export async function openTestDatabase(): Promise<OpenedDatabase & { url: string | null }> {
  if (testDatabase === 'pglite') return { ...(await openMigratedPglite()), url: null }
  const template = await (postgresTemplate ??= (async () => {
    const admin = new pg.Client({ connectionString: adminUrl })
    await admin.connect()
    try {
      return await migratedPostgresTemplate(admin)
    } finally {
      await admin.end()
    }
  })())
  return throwawayPostgres(template, 5)
}

/** A new database with nothing in it, not even the migrations, dropped when closed: for testing the migrations themselves. */
export async function openEmptyDatabase(): Promise<OpenedDatabase & { url: string | null }> {
  if (testDatabase === 'pglite') return { ...(await openPglite(null, { snapshot: await pgliteSnapshot('empty'), settings: inMemorySettings })), url: null }
  return throwawayPostgres(null, 2)
}

export type TestService = Service & {
  /** Any request, its answer untyped: for what the contract does not describe (hostile bodies, pages, /ops, /sandbox). */
  request: (options: RequestOptions) => Promise<Answer & { raw: Buffer }>
  /** The merchant API, answers typed by the contract (support/api.ts). */
  api: TypedApi
  /** The sandbox payer pays a charge (or it takes another ending); answers the charge record. */
  pay: (chargeId: string, taxNumber: string, outcome?: string, extra?: Record<string, unknown>) => Promise<{ status: number; body: any }>
  /** Moves the sandbox clock and runs what fell due. */
  advance: (seconds: number) => Promise<void>
  /** Calls an /ops endpoint with the operator token. */
  ops: (method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>
  /** POSTs a provider webhook with the registered Basic secret (or another Authorization). */
  providerWebhook: (type: 'deposit' | 'med', body: unknown, authorization?: string) => Promise<{ status: number; body: any }>
  /** An identified merchant (own purchase, EUID) with a current token. */
  merchant: (email: string, taxNumber: string) => Promise<{ email: string; euid: string; token: string; tokenId: string }>
}

export async function startTestService(
  env: Record<string, string> = {},
  options: Omit<ServiceOptions, 'database'> = {},
): Promise<TestService> {
  // Most suites are about other rules than the provider's name rule and send no payer_name; the
  // rule (on by default) has its own tests, which turn it on.
  const config: Config = loadConfig({ DATA_DIR: '/nonexistent', BASE_URL: 'http://pix.test', SANDBOX_PROVIDER_REQUIRE_NAME: 'off', ...env })
  const database = await openTestDatabase()
  const service = await startService(config, { clock: createAdjustableClock(T0), logger: false, ...options, database })
  // Listening lets the fake provider deliver its webhooks over HTTP; jobs run when a test moves
  // the sandbox clock (or calls service.jobs.runDue), never on a timer.
  await service.app.listen({ host: '127.0.0.1', port: Number(env.PORT ?? 0) })

  const reached = reachable(service)
  const { request } = reached

  const merchant: TestService['merchant'] = async (email, taxNumber) => {
    const account = await request({ method: 'POST', url: '/sandbox/accounts', body: { email, tax_number: taxNumber, name: 'Merchant Name' } })
    if (account.status !== 200) throw new Error(`sandbox account: ${JSON.stringify(account.body)}`)
    const token = await request({ method: 'POST', url: `/sandbox/accounts/${email}/tokens`, body: {} })
    if (token.status !== 200) throw new Error(`sandbox token: ${JSON.stringify(token.body)}`)
    return { email, euid: account.body.euid, token: token.body.token, tokenId: token.body.token_id }
  }

  const pay: TestService['pay'] = (chargeId, taxNumber, outcome, extra = {}) =>
    request({ method: 'POST', url: `/sandbox/payments/${chargeId}/pay`, body: { payer_name: 'Payer Person', payer_tax_number: taxNumber, ...(outcome ? { outcome } : {}), ...extra } })
  const advance: TestService['advance'] = async (seconds) => {
    const moved = await request({ method: 'POST', url: '/sandbox/clock', body: { advance_seconds: seconds } })
    if (moved.status !== 200) throw new Error(`clock: ${JSON.stringify(moved.body)}`)
  }
  const ops: TestService['ops'] = (method, url, body) =>
    request({ method, url, headers: { authorization: `Bearer ${service.opsToken}`, 'x-operator': 'ana@support' }, ...(body === undefined ? {} : { body }) })
  const providerWebhook: TestService['providerWebhook'] = (type, body, authorization = `Basic ${service.providerWebhookSecret}`) =>
    request({ method: 'POST', url: `/provider/webhooks/${type}`, body, headers: { authorization } })

  return { ...reached, merchant, pay, advance, ops, providerWebhook }
}

/** Requests to a service in this process, through Fastify's inject: JSON bodies, the token as X-API-Token. */
export function injectTransport(app: Service['app']): TestService['request'] {
  return async ({ method, url, token, body, headers, payload }) => {
    const response = await app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(token === undefined ? {} : { 'x-api-token': token }),
        ...(body === undefined && payload === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(payload !== undefined ? { payload } : body !== undefined ? { payload: JSON.stringify(body) } : {}),
    })
    const isJson = String(response.headers['content-type'] ?? '').startsWith('application/json')
    return { status: response.statusCode, body: isJson ? response.json() : response.body, headers: response.headers, raw: response.rawPayload }
  }
}

/** A service started by a test itself, with the two ways in every test service has: `request` and the typed `api`. */
export function reachable<S extends Service>(service: S): S & Pick<TestService, 'request' | 'api'> {
  const request = injectTransport(service.app)
  return { ...service, request, api: typedApi(request) }
}

/**
 * Two sandbox instances on one PostgreSQL database, each with a pool of its own, as two servers
 * behind a balancer run them: the race tests send half their requests to each. `close` ends both
 * and the database.
 */
export async function twoInstances(env: Record<string, string> = {}) {
  const database = await openTestDatabase()
  const config = loadConfig({ PROVIDER_WEBHOOK_SECRET: 'shared-secret', DATA_DIR: '/nonexistent', BASE_URL: 'http://pix.test', SANDBOX_PROVIDER_REQUIRE_NAME: 'off', RATE_LIMIT_PER_MINUTE: '0', ...env })
  const start = async () => reachable(await startService(config, { database: await openPostgres(database.url!, 5), clock: createAdjustableClock(T0), logger: false }))
  const first = await start()
  const second = await start()
  return {
    first, second,
    close: async () => {
      await first.close()
      await second.close()
      await database.close()
    },
  }
}
