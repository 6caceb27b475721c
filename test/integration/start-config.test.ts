// Integration runner: pglite only (no database: the start stops at the configuration, before any is opened)
// `npm start` with a wrong environment: it exits without listening and names every wrong variable
// in one start, so an operator fixes them all at once instead of one per try.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { childNodeFlags } from '../support/harness.ts'

test('issue 48 (point 5): a start with three wrong variables names all three and exits 1', async () => {
  const child = spawn(process.execPath, [...childNodeFlags, 'src/main.ts'], {
    env: { ...process.env, DATA_DIR: '/nonexistent', DATABASE_URL: '', PORT: 'eighty', LOG_LEVEL: 'loud', WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8,intranet' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const [code] = await once(child, 'exit')
  assert.equal(code, 1, output)
  assert.match(output, /^cannot start: /)
  for (const wrong of [/PORT must be a whole number, got "eighty"/, /LOG_LEVEL must be one of .*; got "loud"/, /WEBHOOK_ALLOWED_NETWORKS: has "intranet"/]) assert.match(output, wrong)
})
