// Integration runner: postgres only (every test here skips on PGlite).
// The README's production install, as an operator runs it: the project's files in a clean folder,
// `npm ci --omit=dev`, then `npm start`. Dev dependencies are absent there, so anything the
// service needs at run time (the pinned Node 24 that runs the TypeScript above all) must be a
// runtime dependency, or this fails before the first request.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { openTestDatabase, testDatabase } from '../support/harness.ts'
import { sandboxBanner } from '../support/production-rig.ts'

// Run once, in the PostgreSQL half: that half waits on the server most of the time, so the
// install's 25 s (mostly unpacking the 190 MB Node package, then 5 s making the embedded database's
// empty cluster) costs the suite's wall time little.
const skip = testDatabase === 'pglite' ? 'run once, in the PostgreSQL half: the database does not change it' : false

test('npm ci --omit=dev && npm start serves from a clean folder', { skip, timeout: 300_000 }, async () => {
  const folder = mkdtempSync(join(tmpdir(), 'pix-production-install-'))
  const database = skip ? null : await openTestDatabase()
  try {
    // What a checkout holds, uncommitted edits included, and nothing installed or generated (a
    // worktree's node_modules may be a symlink, which .gitignore's `node_modules/` does not match).
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { encoding: 'utf8' }).split('\0').filter((file) => file && file !== 'node_modules' && existsSync(file))
    for (const file of files) {
      mkdirSync(join(folder, dirname(file)), { recursive: true })
      cpSync(file, join(folder, file))
    }
    // The machine's npm (not the pinned Node's), as on a fresh machine.
    execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: folder, stdio: 'pipe' })
    assert.ok(!existsSync(join(folder, 'node_modules/typescript')), 'dev dependencies were installed')
    // The install's own step (postinstall) made the empty cluster a new embedded data folder copies.
    const { version } = JSON.parse(readFileSync(join(folder, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }
    assert.ok(existsSync(join(folder, `node_modules/.cache/pix-charge-service/pglite-${version}/PG_VERSION`)), 'the install made no empty cluster')
    // The rehearsal's fakes need the dev dependencies: here they say which install they need, not a stack.
    const fakes = spawnSync('npm', ['run', '--silent', 'fakes'], { cwd: folder, env: { PATH: process.env.PATH, HOME: process.env.HOME, FAKES_PORT: '0', FAKES_DATA_DIR: join(folder, 'fakes') }, encoding: 'utf8', timeout: 60_000 })
    assert.equal(fakes.status, 1, fakes.stdout + fakes.stderr)
    assert.match(fakes.stderr, /^npm run fakes needs the dev dependencies .*`npm ci`/s)
    assert.doesNotMatch(fakes.stderr, /ERR_MODULE_NOT_FOUND|\n\s+at /)

    const child = spawn('npm', ['start'], {
      cwd: folder,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DATABASE_URL: database!.url! },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    try {
      const { base, token, output } = await sandboxBanner(child)
      const ready = await fetch(`${base}/readyz`)
      assert.equal(ready.status, 200, output())
      const created = await fetch(`${base}/api/create-payment`, {
        method: 'POST',
        headers: { 'x-api-token': token, 'content-type': 'application/json' },
        body: JSON.stringify({ value: '10.00', email: 'install@example.com', tax_number: '11144477735', payer_name: 'Install Payer' }),
      })
      assert.equal(created.status, 200, await created.text())
    } finally {
      // npm start's whole process group: npm and the service under it.
      process.kill(-child.pid!, 'SIGTERM')
      if (child.exitCode === null) await once(child, 'exit')
    }
  } finally {
    await database?.close()
    rmSync(folder, { recursive: true, force: true })
  }
})
