// Routes reach data only through use cases (src/app). The layer check (.dependency-cruiser.cjs)
// stops the API, the Wallet, the console and the payment pages importing a repository; this stops
// them calling one through the store they are handed. A route may hand the store on to a use
// case, and give the session stores (web/session-store.ts) their rows.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

const folders = ['src/http', 'src/wallet', 'src/console', 'src/pay', 'src/web']
const handedOn = new Set(['deps.store', 'deps.store.sessions.console', 'deps.store.sessions.wallet'])

test('the API, the Wallet, the console, the payment pages and web/ call no repository: they hand the store to use cases', () => {
  const found: string[] = []
  for (const folder of folders) {
    for (const name of readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'))) {
      const lines = readFileSync(join(folder, name), 'utf8').split('\n')
      lines.forEach((line, index) => {
        const uses = [...line.matchAll(/\bdeps\.store(?:\.\w+)*/g)].map(([use]) => use).filter((use) => !handedOn.has(use))
        const calls = [...line.matchAll(/\bstore\.\w+\.\w+\s*\(/g)].map(([call]) => call)
        for (const use of [...uses, ...calls]) found.push(`${folder}/${name}:${index + 1}: ${use}`)
      })
    }
  }
  assert.deepEqual(found, [])
})
