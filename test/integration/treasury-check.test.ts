// Integration runner: pglite only (no database here: the treasury adapter against the fake node).
// Before a payout's transaction is stored, what the node says it pays is checked against the
// payout (docs/treasury.md, "Payouts"): exactly one output to the destination with its asset,
// amount and blinding key, the fee, and change the node says is the wallet's own. A proxy between
// the adapter and the fake Elements node rewrites the node's decodepsbt answer as a node that
// built another transaction would give it; the adapter must refuse to sign for it.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadConfig } from '../../src/config.ts'
import { startFakeElements, type FakeElements } from '../../src/sandbox/fake-elements.ts'
import { createElementsTreasury } from '../../src/treasury/elements-rpc.ts'
import { newLiquidAddress, parseLiquidAddress } from '../../src/treasury/liquid-address.ts'
import { TreasuryCheckError, TreasuryUnavailableError, type TreasuryPayment } from '../../src/treasury/treasury.ts'

const BLINDING_KEY = Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')
const { assets } = loadConfig({}).treasury

let elements: FakeElements
let proxy: Server
let proxyUrl: string
/** Rewrites the node's answer to a call (the parsed reply of one call, or of a batch), or leaves it. */
let rewrite: ((method: string, reply: any) => unknown) | null = null
/** The methods the adapter called, each batch as one entry naming its calls. */
let seen: string[] = []

before(async () => {
  elements = await startFakeElements({ network: 'elementsregtest', wallet: 'treasury', user: 'rpc', password: 'check-password', assets })
  // A coin of each asset a funding: each test's fundings stay locked, never broadcast.
  elements.setBalance('DEPIX', 100_000_000_000n, 20)
  elements.setBalance('BTC', 10_000_000n, 20)
  proxy = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', async () => {
      const call = JSON.parse(body)
      const method = Array.isArray(call) ? `batch:${call.map((each: { method: string }) => each.method).join(',')}` : call.method
      seen.push(method)
      const upstream = await fetch(`${elements.url}${request.url}`, { method: 'POST', headers: { authorization: request.headers.authorization!, 'content-type': 'application/json' }, body })
      const text = await upstream.text()
      const answer = rewrite === null ? text : JSON.stringify(rewrite(method, JSON.parse(text)))
      response.writeHead(upstream.status, { 'content-type': 'application/json' }).end(answer)
    })
  })
  proxy.listen(0, '127.0.0.1')
  await new Promise((resolve) => proxy.once('listening', resolve))
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
})
after(async () => {
  proxy.closeAllConnections()
  proxy.close()
  await elements.close()
})

const treasury = () => createElementsTreasury({ url: proxyUrl, wallet: 'treasury', auth: { user: 'rpc', password: 'check-password' }, assets, timeoutMs: 5_000 })
const payment = (): TreasuryPayment => {
  const address = parseLiquidAddress(newLiquidAddress('elementsregtest', randomBytes(20), BLINDING_KEY), 'elementsregtest')!
  return { currency: 'DEPIX', units: 1_000_000_000n, address: address.address, scriptHex: address.scriptHex, blindingKeyHex: address.blindingKeyHex }
}
/** Funds `paid` and signs it with the node's answers rewritten by `answers` (each request's parsed reply). */
async function signRewriting(paid: TreasuryPayment, answers: (method: string, reply: any) => unknown) {
  const node = treasury()
  const { psbt } = await node.fund(paid)
  seen = []
  rewrite = answers
  try {
    return await node.signChecked(psbt, paid)
  } finally {
    rewrite = null
  }
}

/** Funds `paid` and signs it with decodepsbt's answer rewritten by `change` (its outputs, in place). */
const signWith = (paid: TreasuryPayment, change: ((outputs: any[]) => void) | null) => signRewriting(paid, (method, reply) => {
  // decodepsbt is the first call of the batch that also finalizes.
  if (method.startsWith('batch:decodepsbt') && change !== null) change(reply[0].result.outputs)
  return reply
})

test('a transaction as the node built it is signed in three requests: its change outputs (one an asset) asked about in one batch with its txid, not a call each', async () => {
  const signed = await signWith(payment(), null)
  assert.match(signed.txid, /^[0-9a-f]{64}$/)
  assert.deepEqual(seen, ['walletprocesspsbt', 'batch:decodepsbt,finalizepsbt', 'batch:getaddressinfo,getaddressinfo,decoderawtransaction'])
})

test('a transaction whose change goes to an address the wallet does not own is refused: no signed transaction comes back to be stored', async () => {
  const outsider = elements.outsideAddress()
  const paid = payment()
  await assert.rejects(signWith(paid, (outputs) => {
    const change = outputs.find((output) => output.script.type !== 'fee' && output.script.hex !== paid.scriptHex && output.asset === assets.DEPIX)
    change.script.address = outsider
  }), (error: unknown) => error instanceof TreasuryCheckError && error.message.includes(outsider))
})

test('a transaction paying the destination another amount, or twice, or an output with no address is refused', async () => {
  const paid = payment()
  const toDestination = (outputs: any[]) => outputs.find((output) => output.script.hex === paid.scriptHex)
  await assert.rejects(signWith(paid, (outputs) => void (toDestination(outputs).amount = '10.00000001')), TreasuryCheckError)
  const again = payment()
  await assert.rejects(signWith(again, (outputs) => void outputs.push({ ...outputs.find((output) => output.script.hex === again.scriptHex) })), /pays the destination 2 times/)
  await assert.rejects(signWith(payment(), (outputs) => void outputs.push({ amount: '0.00000001', asset: assets.BTC, script: { hex: '6a00', type: 'nulldata' } })), /neither the destination nor/)
})

test('a batch the node answers without an answer for each call is the node failing, not a pass', async () => {
  await assert.rejects(signRewriting(payment(), (method, reply) => (method.startsWith('batch:') ? reply.slice(1) : reply)), TreasuryUnavailableError)
})

test('a transaction the node could not finalize (an input left unsigned) is refused, and its txid is never asked', async () => {
  await assert.rejects(signRewriting(payment(), (method, reply) => {
    if (method.startsWith('batch:decodepsbt')) reply[1].result = { ...reply[1].result, complete: false }
    return reply
  }), (error: unknown) => error instanceof TreasuryCheckError && /could not sign every input/.test(error.message))
  assert.ok(!seen.some((method) => method.includes('decoderawtransaction')), seen.join(' '))
})

test('the change lookups\' batch answered without an answer for each call is the node failing too', async () => {
  await assert.rejects(signRewriting(payment(), (method, reply) => (method.startsWith('batch:getaddressinfo') ? reply.slice(0, -1) : reply)), TreasuryUnavailableError)
})

test('a transaction that fails the check is held as such even when the node failed to finalize it in the same batch', async () => {
  const paid = payment()
  await assert.rejects(signRewriting(paid, (method, reply) => {
    if (!method.startsWith('batch:decodepsbt')) return reply
    reply[0].result.outputs.find((output: any) => output.script.hex === paid.scriptHex).amount = '10.00000001'
    reply[1] = { result: null, error: { code: -22, message: 'TX decode failed' }, id: reply[1].id }
    return reply
  }), TreasuryCheckError)
})
