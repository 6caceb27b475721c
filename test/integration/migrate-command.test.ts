// `npm run migrate` as docs/operations.md runs it: before an upgrade, and on PostgreSQL from several
// machines at once (each instance also migrates at start, under the same advisory lock).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../src/store/migrate.ts'
import { migratedPgliteFolder, openEmptyDatabase, testDatabase } from '../support/harness.ts'

const latest = Object.keys(migrations).at(-1)!

async function migrate(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn('npm', ['run', '--silent', 'migrate'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const [code] = await once(child, 'exit')
  return { code, output }
}

test('three npm run migrate at once on an empty PostgreSQL database: one applies every migration, the others wait and find nothing left', { skip: testDatabase !== 'postgres' && 'several processes share only a PostgreSQL database; the embedded one admits one process' }, async () => {
  const database = await openEmptyDatabase()
  try {
    const runs = await Promise.all([1, 2, 3].map(() => migrate({ DATABASE_URL: database.url! })))
    for (const run of runs) assert.equal(run.code, 0, run.output)
    // Each says first which database it migrates (never the password).
    const url = new URL(database.url!)
    const which = `database: PostgreSQL ${url.pathname.slice(1)} on ${url.host} as ${url.username} (DATABASE_URL)\n`
    const appliers = runs.filter((run) => run.output.startsWith(`${which}applied `))
    assert.equal(appliers.length, 1, runs.map((run) => run.output).join('\n'))
    assert.equal(appliers[0]!.output, `${which}applied ${Object.keys(migrations).join(', ')}; the database is at ${latest}\n`)
    assert.equal(runs.filter((run) => run.output === `${which}nothing to apply; the database is at ${latest}\n`).length, 2)
    const recorded = await database.db.selectFrom('kysely_migration' as never).select('name' as never).execute()
    assert.equal(recorded.length, Object.keys(migrations).length)
  } finally {
    await database.close()
  }
})

test('npm run migrate on an embedded database already at the latest migration says so and exits', { skip: testDatabase !== 'pglite' && 'the PostgreSQL run has its own test above' }, async () => {
  const dir = await migratedPgliteFolder('pix-migrate-')
  try {
    const run = await migrate({ DATA_DIR: dir, DATABASE_URL: '' })
    assert.deepEqual(run, { code: 0, output: `database: embedded in ${dir} (DATA_DIR; DATABASE_URL is not set)\nnothing to apply; the database is at ${latest}\n` })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('npm run migrate without DATABASE_URL names the embedded database it makes, and with MODE=production refuses to make one', { skip: testDatabase !== 'pglite' && 'about the embedded database: the PGlite run' }, async () => {
  const parent = mkdtempSync(join(tmpdir(), 'pix-migrate-none-'))
  const dir = join(parent, 'data')
  try {
    const refused = await migrate({ MODE: 'production', DATA_DIR: dir, DATABASE_URL: '' })
    assert.equal(refused.code, 1, refused.output)
    assert.equal(refused.output, `cannot migrate: MODE=production and no DATABASE_URL, and ${dir} holds no embedded database: this would make a new, empty one. Run it with the service's environment (DATABASE_URL, or the DATA_DIR the service uses)\n`)
    assert.ok(!existsSync(dir), 'nothing was made')
    const made = await migrate({ DATA_DIR: dir, DATABASE_URL: '' })
    assert.equal(made.code, 0, made.output)
    assert.ok(made.output.startsWith(`database: a new embedded one in ${dir} (DATA_DIR; DATABASE_URL is not set)\napplied 001_foundation, `), made.output)
    // Once it exists, production may migrate it (an embedded production database, the service stopped).
    const again = await migrate({ MODE: 'production', DATA_DIR: dir, DATABASE_URL: '' })
    assert.deepEqual(again, { code: 0, output: `database: embedded in ${dir} (DATA_DIR; DATABASE_URL is not set)\nnothing to apply; the database is at ${latest}\n` })
  } finally {
    rmSync(parent, { recursive: true, force: true })
  }
})
