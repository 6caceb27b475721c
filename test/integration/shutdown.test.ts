// SIGTERM under load: the service stops accepting, finishes what it acknowledged, and exits 0;
// every charge it answered 200 for is in the database afterwards.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPglite, openPostgres } from '../../src/store/database.ts'
import { childNodeFlags, openTestDatabase, testDatabase } from '../support/harness.ts'
import { sandboxBanner } from '../support/production-rig.ts'

test('SIGTERM under load loses no acknowledged request', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pix-shutdown-'))
  const postgres = testDatabase === 'postgres' ? await openTestDatabase() : null
  try {
    const child = spawn(process.execPath, [...childNodeFlags, 'src/main.ts'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, LOG_LEVEL: 'warn', ...(postgres ? { DATABASE_URL: postgres.url! } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const { base, token, output } = await sandboxBanner(child)

    const fire = (i: number) =>
      fetch(`${base}/api/create-payment`, {
        method: 'POST',
        headers: { 'x-api-token': token, 'content-type': 'application/json' },
        body: JSON.stringify({ value: '10.00', email: `load${i}@example.com`, tax_number: '11144477735', payer_name: 'Load Payer' }),
      }).then(async (response) => ({ status: response.status, body: await response.json().catch(() => null) }), () => ({ status: 0, body: null }))

    const inFlight: Array<Promise<{ status: number; body: any }>> = []
    for (let i = 0; i < 40; i++) inFlight.push(fire(i))
    await inFlight[5]
    child.kill('SIGTERM')
    for (let i = 40; i < 60; i++) inFlight.push(fire(i))
    const results = await Promise.all(inFlight)
    const [code] = await once(child, 'exit')
    assert.equal(code, 0, output())

    const acknowledged = results.filter((result) => result.status === 200).map((result) => result.body.id as string)
    assert.ok(acknowledged.length > 0)
    const database = postgres ? await openPostgres(postgres.url!, 1) : await openPglite(dir)
    try {
      const stored = await database.db.selectFrom('charges').select('id').where('id', 'in', acknowledged).execute()
      assert.equal(stored.length, acknowledged.length)
    } finally {
      await database.close()
    }
  } finally {
    await postgres?.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
