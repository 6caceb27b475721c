// The README's "A withdrawal in the sandbox", followed as printed: its shell blocks run against
// the sandbox (after the Sandbox section's first block, whose shell they share), and the Wallet
// steps between them are made over HTTP as a browser makes them. Across the day the sandbox
// clock moves for the cool-down, the Wallet stays signed in.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import { parseLiquidAddress } from '../../src/treasury/liquid-address.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { newestCode, signedInClient } from '../support/wallet-client.ts'

let service: TestService
before(async () => {
  service = await startTestService()
})
after(() => service?.close())

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const sandboxSection = readme.slice(readme.indexOf('\n## Sandbox\n'), readme.indexOf('\n## ', readme.indexOf('\n## Sandbox\n') + 1))
const shellBlocks = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!)
const [first] = shellBlocks(sandboxSection)
const walkThrough = shellBlocks(sandboxSection.slice(sandboxSection.indexOf('### A withdrawal in the sandbox'), sandboxSection.indexOf('### A refund in the sandbox')))
const refundWalk = shellBlocks(sandboxSection.slice(sandboxSection.indexOf('### A refund in the sandbox')))

async function run(script: string): Promise<string[]> {
  const port = (service.app.server.address() as AddressInfo).port
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script.replace(/^BASE=.*$/m, `BASE=http://127.0.0.1:${port}`)], { encoding: 'utf8', timeout: 60_000 })
  assert.doesNotMatch(stdout, /"docs_url"/, 'an error answer was printed')
  return stdout.trim().split('\n')
}

test('the sandbox gives a new regtest address nobody owns, each time', async () => {
  const given = await service.request({ method: 'GET', url: '/sandbox/liquid-address' })
  assert.equal(given.status, 200, JSON.stringify(given.body))
  assert.equal(given.body.network, 'elementsregtest')
  assert.ok(parseLiquidAddress(given.body.address, 'elementsregtest'), 'a regtest address the service accepts')
  assert.notEqual((await service.request({ method: 'GET', url: '/sandbox/liquid-address' })).body.address, given.body.address)
  // The README's ready address is one too.
  const ready = /ready to paste:\n\s*`(el1[0-9a-z]+)`/.exec(sandboxSection)![1]!
  assert.ok(parseLiquidAddress(ready, 'elementsregtest'), ready)
})

test('a withdrawal in the sandbox, as the README walks it: the address it gives, the Wallet across a day of sandbox clock, the blocks mined', { timeout: 120_000 }, async () => {
  assert.equal(walkThrough.length, 2, 'the walk-through has two shell blocks')
  const [ownerBlock, withdrawBlock] = walkThrough as [string, string]
  const owned = await run(`${first}\n${ownerBlock}\necho "$OWNER"\necho "\${OWNER_H[1]}"`)
  const [status, address, owner, tokenHeader] = owned.slice(-4) as [string, string, string, string]
  assert.equal(status, 'depix_sent', owned.join('\n'))
  assert.ok(parseLiquidAddress(address, 'elementsregtest'), address)

  const wallet = await signedInClient(service, owner)
  await wallet.get('/wallet/destinations')
  const added = await wallet.post('/wallet/destinations', { type: 'liquid', value: address, label: '' })
  assert.equal(added.status, 303, added.html)
  await wallet.get(added.location!)
  assert.equal((await wallet.post(`${added.location!}/confirm`, { code: await newestCode(service, owner) })).location, '/wallet/destinations?notice=confirmed')

  const withdrawn = await run(`${first}\nOWNER_H=(-H ${JSON.stringify(tokenHeader)} -H 'Content-Type: application/json')\n${withdrawBlock}`)
  assert.equal(withdrawn.at(-1), 'completed', withdrawn.join('\n'))
  assert.match((await wallet.get('/wallet')).html, new RegExp(owner.replace(/[.+]/g, '\\$&')), 'still signed in after a day of sandbox clock')
})

test('a refund in the sandbox, as the README walks it: R$ 5,00 back by Pix, the account pays R$ 6,00, the provider\'s word completes it', { timeout: 120_000 }, async () => {
  assert.equal(refundWalk.length, 1, 'the refund walk-through has one shell block')
  const ownerBlock = walkThrough[0]!
  const refunded = await run(`${first}\n${ownerBlock}\n${refundWalk[0]!}`)
  const [status, price, , payout, refundedAmount] = refunded.slice(-5) as [string, string, string, string, string]
  assert.equal(status, 'depix_sent', refunded.join('\n'))
  assert.deepEqual(JSON.parse(price), { status: 'pending', amount: '5.00', fee_cents: 100, debit_amount: 600 })
  assert.deepEqual([payout, refundedAmount], ['completed', '500'], refunded.join('\n'))
})
