// Integration runner: pglite only (no database: the checked connection against a real receiver on loopback)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { DomainError } from '../../src/domain/errors.ts'
import { webhookDestinations } from '../../src/webhooks/destination.ts'

const refusedAsInvalid = (error: unknown) => error instanceof DomainError && error.code === 'webhook_url_invalid'

/** A receiver on loopback that counts what reaches it. */
async function loopbackReceiver() {
  let received = 0
  const server = createServer((request, response) => {
    received++
    request.resume()
    response.end('ok')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return { port, received: () => received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

test('the connection is opened only to the addresses its own lookup checked: a name that turns private after the check reaches nothing', async () => {
  const receiver = await loopbackReceiver()
  // localhost would reach the receiver through the system's DNS: only the checked lookup keeps it out.
  const answers = [['93.184.216.34'], ['127.0.0.1']]
  const lookups: string[] = []
  const destinations = webhookDestinations({
    publicOnly: true, timeoutMs: 1_000,
    resolveHost: async (host) => {
      lookups.push(host)
      return answers.shift() ?? ['127.0.0.1']
    },
  })
  const url = new URL(`http://localhost:${receiver.port}/hook`)
  await destinations.check(url)
  await assert.rejects(destinations.call(url, { method: 'POST', body: '{}' }), /private, loopback or link-local/)
  await assert.rejects(destinations.call(new URL(`http://127.0.0.1:${receiver.port}/hook`), { method: 'POST', body: '{}' }), refusedAsInvalid)
  assert.equal(receiver.received(), 0)
  assert.deepEqual(lookups, ['localhost', 'localhost'])
  await receiver.close()
})

test('an allowed receiver is called over one kept-alive connection: one lookup for several deliveries', async () => {
  const receiver = await loopbackReceiver()
  let lookups = 0
  const destinations = webhookDestinations({
    publicOnly: true, timeoutMs: 1_000, allowedNetworks: ['127.0.0.0/8'],
    resolveHost: async () => {
      lookups++
      return ['127.0.0.1']
    },
  })
  for (let delivery = 0; delivery < 3; delivery++) {
    const reply = await destinations.call(new URL(`http://receiver.example:${receiver.port}/hook`), { method: 'POST', body: '{}' })
    assert.equal(reply.status, 200)
    // The runner's next claim comes later; undici's pool learns a connection is free only once the
    // event loop has turned, and a call made before then opens another.
    await nextTurn()
  }
  assert.equal(receiver.received(), 3)
  assert.equal(lookups, 1)
  await receiver.close()
})
