// Issue 48: the Wallet's pages reach data only through use cases (src/app). The layer check
// (.dependency-cruiser.cjs) stops src/wallet importing a repository; this stops it calling one
// through the store it is handed. A route may hand the store on to a use case, and give the
// session store (web/session-store.ts) its rows; nothing else.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

const folder = 'src/wallet'
const handedOn = new Set(['deps.store', 'deps.store.sessions.wallet'])

test('the Wallet calls no repository: it hands the store to use cases', () => {
  const found: string[] = []
  for (const name of readdirSync(folder).filter((file) => file.endsWith('.ts'))) {
    const lines = readFileSync(join(folder, name), 'utf8').split('\n')
    lines.forEach((line, index) => {
      const uses = [...line.matchAll(/\bdeps\.store(?:\.\w+)*/g)].map(([use]) => use).filter((use) => !handedOn.has(use))
      const calls = [...line.matchAll(/\bstore\.\w+\.\w+\s*\(/g)].map(([call]) => call)
      for (const use of [...uses, ...calls]) found.push(`${folder}/${name}:${index + 1}: ${use}`)
    })
  }
  assert.deepEqual(found, [])
})
