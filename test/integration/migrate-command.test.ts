// `npm run migrate` as docs/operations.md runs it: before an upgrade, and on PostgreSQL from several
// machines at once (each instance also migrates at start, under the same advisory lock).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { rmSync } from 'node:fs'
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
    const appliers = runs.filter((run) => run.output.startsWith('applied '))
    assert.equal(appliers.length, 1, runs.map((run) => run.output).join('\n'))
    assert.equal(appliers[0]!.output, `applied ${Object.keys(migrations).join(', ')}; the database is at ${latest}\n`)
    assert.equal(runs.filter((run) => run.output === `nothing to apply; the database is at ${latest}\n`).length, 2)
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
    assert.deepEqual(run, { code: 0, output: `nothing to apply; the database is at ${latest}\n` })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
