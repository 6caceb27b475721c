import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { childNodeFlags, migratedPgliteFolder, openTestDatabase, startTestService, testDatabase } from '../support/harness.ts'

test('int8 money columns come back as plain numbers, and past 2^53 fail loudly', async () => {
  const database = await openTestDatabase()
  try {
    const row = await sql<{ small: number; big: number }>`select 500000::int8 as small, 9007199254740991::int8 as big`.execute(database.db)
    assert.deepEqual(row.rows[0], { small: 500000, big: Number.MAX_SAFE_INTEGER })
    await assert.rejects(sql`select 9007199254740993::int8 as too_big`.execute(database.db), /beyond a safe integer/)
  } finally {
    await database.close()
  }
})

test('a posting writes its entries in order and moves each running balance by the sum of its entries, once per key', async () => {
  const database = await openTestDatabase()
  try {
    const { createStore } = await import('../../src/store/store.ts')
    const store = createStore(database.db)
    const now = new Date('2026-01-01T00:00:00Z')
    const [a, b] = [await store.accounts.ensure('a@example.com', now), await store.accounts.ensure('b@example.com', now)]
    const entries = [
      { book: 'provider_clearing', accountId: null, currency: 'DEPIX', amount: -1000 },
      { book: 'available', accountId: a.id, currency: 'DEPIX', amount: 700 },
      { book: 'held', accountId: b.id, currency: 'DEPIX', amount: 100 },
      // Two entries on one balance in one posting: it moves by their sum.
      { book: 'available', accountId: a.id, currency: 'DEPIX', amount: 200 },
      { book: 'conversion', accountId: null, currency: 'BTC', amount: -5 },
      { book: 'available', accountId: b.id, currency: 'BTC', amount: 5 },
    ] as const
    assert.equal(await store.ledger.post({ key: 'k1', kind: 'credit', entries: [...entries] }, null, now), true)
    assert.equal(await store.ledger.post({ key: 'k1', kind: 'credit', entries: [...entries] }, null, now), false, 'a replayed key posts nothing')
    assert.equal(await store.ledger.post({ key: 'k2', kind: 'release', entries: [{ book: 'held', accountId: b.id, currency: 'DEPIX', amount: -100 }, { book: 'available', accountId: b.id, currency: 'DEPIX', amount: 100 }] }, null, now), true)
    const written = await database.db.selectFrom('ledger_entries').innerJoin('ledger_postings', 'ledger_postings.id', 'ledger_entries.posting_id')
      .select(['key', 'book', 'account_id', 'currency', 'amount']).orderBy('ledger_entries.id').execute()
    assert.deepEqual(written.map((row) => [row.key, row.book, row.account_id, row.currency, row.amount]), [
      ...entries.map((entry) => ['k1', entry.book, entry.accountId, entry.currency, entry.amount]),
      ['k2', 'held', b.id, 'DEPIX', -100], ['k2', 'available', b.id, 'DEPIX', 100],
    ])
    assert.deepEqual(await store.ledger.balances(a.id), { DEPIX: 900, BTC: 0, USDt: 0 })
    assert.deepEqual(await store.ledger.balances(b.id), { DEPIX: 100, BTC: 5, USDt: 0 })
    assert.deepEqual(await store.ledger.balances(b.id, 'held'), { DEPIX: 0, BTC: 0, USDt: 0 })
    assert.deepEqual(await store.ledger.disagreements(), [])
    await assert.rejects(store.ledger.post({ key: 'k3', kind: 'credit', entries: [{ book: 'available', accountId: a.id, currency: 'DEPIX', amount: 1 }] }, null, now), /does not balance/)
  } finally {
    await database.close()
  }
})

const opener = (dir: string, hold: boolean) => `
  const { openPglite } = await import(${JSON.stringify(new URL('../../src/store/database.ts', import.meta.url).href)});
  try {
    const db = await openPglite(${JSON.stringify(dir)});
    console.log('opened');
    ${hold ? "process.stdin.resume(); process.stdin.on('end', async () => { await db.close(); process.exit(0) });" : 'await db.close(); process.exit(0);'}
  } catch (e) { console.log(e.name + ': ' + e.message) }
`
// The children exit explicitly, as main.ts does: PGlite can keep a process alive after closing a
// folder it reopened.

/** Opens the folder in a child process, as a second service would, and reports what happened. */
function openInChild(dir: string): string {
  const child = spawnSync(process.execPath, [...childNodeFlags, '--input-type=module', '-e', opener(dir, false)], { encoding: 'utf8', timeout: 30_000 })
  return child.stdout + child.stderr
}

/** A child process that opens the folder and holds it until its stdin closes. */
async function holdInChild(dir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...childNodeFlags, '--input-type=module', '-e', opener(dir, true)], { stdio: ['pipe', 'pipe', 'inherit'] })
  const [line] = (await once(child.stdout!, 'data')) as [Buffer]
  assert.equal(line.toString().trim(), 'opened')
  return child
}

test('a second process opening the same PGlite folder is refused with a clear message', { skip: testDatabase !== 'pglite' }, async () => {
  const dir = await migratedPgliteFolder('pix-lock-')
  try {
    const holder = await holdInChild(dir)
    assert.match(openInChild(dir), /DataDirLockedError: the data folder .* is in use by another process \(pid \d+\)/)
    holder.stdin!.end()
    await once(holder, 'exit')
    assert.equal(existsSync(join(dir, 'service.lock')), false, 'the lock is released on close')

    // A lock left by a process that was killed is taken over.
    const killed = await holdInChild(dir)
    killed.kill('SIGKILL')
    await once(killed, 'exit')
    assert.equal(existsSync(join(dir, 'service.lock')), true)
    assert.match(openInChild(dir), /^opened/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

/** A folder's files, by path under it, for comparing two clusters' layouts. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1)).sort()
}

test("a new data folder starts from the install's empty cluster, whole even after a crash midway; without one PGlite runs initdb", { skip: testDatabase !== 'pglite', timeout: 120_000 }, async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'pix-template-'))
  try {
    // The install's step, as npm ci runs it (package.json's postinstall), into a folder of the test's.
    const template = join(scratch, 'template')
    const made = spawnSync(process.execPath, [...childNodeFlags, 'scripts/pglite-template.ts', template], { encoding: 'utf8', timeout: 60_000 })
    assert.equal(made.status, 0, made.stdout + made.stderr)
    assert.ok(existsSync(join(template, 'PG_VERSION')))
    assert.deepEqual(readdirSync(scratch), ['template'], 'nothing is left beside it')

    const { openPglite } = await import('../../src/store/database.ts')
    const { migrateToLatest, migrations } = await import('../../src/store/migrate.ts')
    // What a copy interrupted by a crash leaves: a folder under another name, never taken for a database.
    const copied = join(scratch, 'copied')
    mkdirSync(join(copied, 'pglite.partial'), { recursive: true })
    writeFileSync(join(copied, 'pglite.partial', 'PG_VERSION'), '17\n')
    const database = await openPglite(copied, { template })
    try {
      assert.deepEqual(await migrateToLatest(database.db), Object.keys(migrations))
      const row = await sql<{ applied: number }>`select count(*)::int8 as applied from kysely_migration`.execute(database.db)
      assert.equal(row.rows[0]!.applied, Object.keys(migrations).length)
    } finally {
      await database.close()
    }
    assert.deepEqual(readdirSync(copied).sort(), ['pglite'])

    // Installed with --ignore-scripts: no template, and PGlite's own initdb makes the same cluster.
    const initdb = join(scratch, 'initdb')
    const fallback = await openPglite(initdb, { template: join(scratch, 'none') })
    try {
      const row = await sql<{ one: number }>`select 1 as one`.execute(fallback.db)
      assert.equal(row.rows[0]!.one, 1)
    } finally {
      await fallback.close()
    }
    const relations = (dir: string) => filesUnder(dir).filter((file) => /^(base|global)\//.test(file))
    assert.ok(relations(template).length > 100)
    assert.deepEqual(relations(join(initdb, 'pglite')), relations(template))
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
})

test('an idle PostgreSQL connection killed by the server does not crash the process', { skip: testDatabase !== 'postgres' }, async () => {
  const database = await openTestDatabase()
  try {
    let reportLoss: (error: Error) => void = () => {}
    const lost = new Promise<Error>((resolve) => (reportLoss = resolve))
    const { openPostgres } = await import('../../src/store/database.ts')
    const opened = await openPostgres(database.url!, 2, (error) => reportLoss(error))
    const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(opened.db)).rows[0]!.pid
    await sql`select pg_terminate_backend(${pid})`.execute(database.db)
    assert.match((await lost).message, /terminat/)
    const after = await sql<{ one: number }>`select 1 as one`.execute(opened.db)
    assert.equal(after.rows[0]!.one, 1)
    await opened.close()
  } finally {
    await database.close()
  }
})

test('on PostgreSQL every query and write is prepared once per connection; transaction control and DDL are not', { skip: testDatabase !== 'postgres' }, async () => {
  const database = await openTestDatabase()
  try {
    const { openPostgres } = await import('../../src/store/database.ts')
    const { createStore } = await import('../../src/store/store.ts')
    // One connection, so the statements the store prepared are the ones this session sees.
    const opened = await openPostgres(database.url!, 1)
    const store = createStore(opened.db)
    const now = new Date('2026-01-01T00:00:00Z')
    for (let i = 0; i < 2; i++) {
      assert.equal(await store.charges.statusForMerchant('0'.repeat(32), 1), undefined)
      await store.transaction(async (tx) => {
        const account = await tx.accounts.ensure('someone@example.com', now)
        assert.equal((await tx.accounts.lockById(account.id))?.id, account.id)
      })
    }
    await sql`create temporary table scratch (n int)`.execute(opened.db)
    const prepared = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(opened.db)
    const statements = prepared.rows.map((row) => row.statement.replace(/\s+/g, ' ').slice(0, 40)).sort()
    assert.deepEqual(statements, [
      'insert into "accounts" ("email", "create',
      'select "id", "status", "payer_name", "pa',
      'select * from "accounts" where "email" =',
      'select * from "accounts" where "id" = $1',
      // This very read, prepared as it runs.
      'select statement from pg_prepared_statem',
    ])
    await opened.close()
  } finally {
    await database.close()
  }
})

test('a column a newer version adds (docs/operations.md, upgrades) leaves this version\'s prepared reads working', { skip: testDatabase !== 'postgres' }, async () => {
  const service = await startTestService()
  try {
    const { token } = await service.merchant('upgrade@example.com', '52998224725')
    const create = (i: number) => service.api.post('/api/create-payment', { value: '10.00', email: `payer${i}@example.com`, tax_number: '11144477735' }, { token })
    // At once, so each of the pool's connections prepares the account reads.
    for (const response of await Promise.all(Array.from({ length: 10 }, (_, i) => create(i)))) assert.equal(response.status, 200, JSON.stringify(response.body))
    // What a newer version's migration does while this version runs.
    await sql`alter table accounts add column added_by_a_newer_version text`.execute(service.database.db)
    for (const response of await Promise.all(Array.from({ length: 10 }, (_, i) => create(10 + i)))) assert.equal(response.status, 200, JSON.stringify(response.body))
  } finally {
    await service.close()
  }
})
