// Integration runner: pglite only (no database here: the provider client against servers of its own).
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createEulenClient } from '../../src/provider/eulen-client.ts'
import { ProviderBusyError, ProviderRejectedError, ProviderReplyLostError, ProviderUnavailableError } from '../../src/provider/provider.ts'

type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string }
let replies: Array<{ status: number; body: unknown; headers?: Record<string, string> } | 'hang' | 'drop'> = []
let seen: Seen[] = []
let server: Server
let baseUrl: string

before(async () => {
  server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      seen.push({ method: request.method!, url: request.url!, headers: request.headers, body })
      const reply = replies.shift() ?? { status: 500, body: {} }
      if (reply === 'hang') return
      if (reply === 'drop') return request.socket.destroy()
      response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(reply.body))
    })
  })
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`
})
after(() => {
  server.closeAllConnections()
  server.close()
})

// Generous, so that no answered call times out on a loaded machine (one did at 300 ms); the
// test of a provider that never answers gives it less.
const client = (timeoutMs = 2_000) => createEulenClient({ baseUrl, token: 'jwt-token', timeoutMs })
const script = (...next: typeof replies) => {
  replies = next
  seen = []
}
const deposit = { amountInCents: 1000, merchantId: 'EU000000000000001', euid: 'EU000000000000002' }

test('POST /deposit sends the Bearer token and reads the {response, async} envelope', async () => {
  script({ status: 200, body: { response: { id: 'a'.repeat(32), qrCopyPaste: '000201...', qrImageUrl: 'https://x' }, async: false } })
  assert.deepEqual(await client().createDeposit(deposit), { id: 'a'.repeat(32), qrCopyPaste: '000201...', statusText: 'pending', payerEuid: null })
  assert.equal(seen[0]!.headers.authorization, 'Bearer jwt-token')
  assert.deepEqual(JSON.parse(seen[0]!.body), deposit)
  assert.equal(seen[0]!.url, '/api/deposit')
})

test('an asynchronous reply is polled at its urlResponse until the result; POST /deposit is sent once', async () => {
  const later = new Date(Date.now() + 10_000).toISOString()
  script(
    { status: 200, body: { async: true, urlResponse: `${baseUrl}/async/1`, expiration: later } },
    { status: 202, body: {} },
    { status: 200, body: { async: true, urlResponse: `${baseUrl}/async/1`, expiration: later } },
    { status: 200, body: { response: { id: 'b'.repeat(32), qrCopyPaste: '0002', payerEUID: 'EU000000000000004' }, async: false } },
  )
  assert.deepEqual(await client().createDeposit(deposit), { id: 'b'.repeat(32), qrCopyPaste: '0002', statusText: 'pending', payerEuid: 'EU000000000000004' })
  assert.deepEqual(seen.map((request) => `${request.method} ${request.url}`), ['POST /api/deposit', 'GET /api/async/1', 'GET /api/async/1', 'GET /api/async/1'])
  assert.equal(seen[1]!.headers.authorization, 'Bearer jwt-token')

  // Past its expiration: unavailable, and still never posted twice.
  script({ status: 200, body: { async: true, urlResponse: `${baseUrl}/async/2`, expiration: new Date(Date.now() + 300).toISOString() } }, ...Array.from({ length: 20 }, () => ({ status: 202, body: {} })))
  await assert.rejects(client().createDeposit(deposit), ProviderUnavailableError)
  assert.equal(seen.filter((request) => request.method === 'POST').length, 1)
  // A urlResponse on another origin is polled without our token.
  script({ status: 200, body: { async: true, urlResponse: `${baseUrl.replace('127.0.0.1', 'localhost')}/async/3`, expiration: later } }, { status: 200, body: { response: { id: 'c'.repeat(32), qrCopyPaste: '0002' } } })
  await client().createDeposit(deposit)
  assert.equal(seen[1]!.headers.authorization, undefined)
})

test('a dropped connection or a time-out on POST /deposit is never retried', async () => {
  for (const failure of ['drop', 'hang'] as const) {
    script(failure, { status: 200, body: { response: { id: 'c'.repeat(32), qrCopyPaste: '0002' } } })
    await assert.rejects(client(300).createDeposit(deposit), ProviderUnavailableError)
    assert.equal(seen.length, 1, failure)
  }
})

test('error envelopes: the message is read from response.errorMessage, errorMessage or message', async () => {
  const cases: Array<[number, unknown, string, typeof ProviderRejectedError | typeof ProviderUnavailableError]> = [
    [422, { response: { errorMessage: 'Bloqueado por compliance' }, async: false }, 'Bloqueado por compliance', ProviderRejectedError],
    [520, { errorMessage: 'Rejeitado' }, 'Rejeitado', ProviderRejectedError],
    [400, { message: 'amountInCents inválido' }, 'amountInCents inválido', ProviderRejectedError],
    [503, { response: { errorMessage: 'Congelado' } }, 'Congelado', ProviderUnavailableError],
    [500, 'not json at all', 'provider answered HTTP 500', ProviderUnavailableError],
    [500, { response: { errorMessage: 'CPF inválido para depósito' } }, 'CPF inválido para depósito', ProviderRejectedError],
    [520, {}, 'provider answered HTTP 520', ProviderRejectedError],
    [200, { response: { errorMessage: 'Limite diário excedido' }, async: false }, 'Limite diário excedido', ProviderRejectedError],
    [201, { errorMessage: 'Recusado' }, 'Recusado', ProviderRejectedError],
    [401, { response: { errorMessage: 'Token inválido' } }, 'Token inválido', ProviderUnavailableError],
  ]
  for (const [status, body, message, kind] of cases) {
    script({ status, body })
    await assert.rejects(client().createDeposit(deposit), (error: unknown) => error instanceof kind && (error as Error).message === message, `${status}`)
  }
})

test('reads: a 500 with a sentence is the provider being unavailable, a 2xx with errorMessage a refusal', async () => {
  script({ status: 500, body: { response: { errorMessage: 'Erro interno' } } })
  await assert.rejects(client().depositStatus('a'.repeat(32)), ProviderUnavailableError)
  script({ status: 200, body: { response: { errorMessage: 'Depósito não encontrado' } } })
  await assert.rejects(client().depositStatus('a'.repeat(32)), (error: unknown) => error instanceof ProviderRejectedError && error.message === 'Depósito não encontrado')
})

test('a 2xx without id or qrCopyPaste is not taken as a deposit: it is a lost reply, looked up before the merchant is answered', async () => {
  script({ status: 200, body: { response: { id: 'd'.repeat(32) } } })
  await assert.rejects(client().createDeposit(deposit), ProviderReplyLostError)
})

test('an asynchronous result served without the envelope is read; POST /deposit is sent once', async () => {
  const later = new Date(Date.now() + 10_000).toISOString()
  script(
    { status: 200, body: { async: true, urlResponse: `${baseUrl}/async/2`, expiration: later } },
    { status: 200, body: { id: 'c'.repeat(32), qrCopyPaste: '0002bare', qrImageUrl: 'https://x', expiration: later } },
  )
  assert.deepEqual(await client().createDeposit(deposit), { id: 'c'.repeat(32), qrCopyPaste: '0002bare', statusText: 'pending', payerEuid: null })
  assert.deepEqual(seen.map((request) => request.method), ['POST', 'GET'])
})

test('Eulen\'s 429 is "not now" with its Retry-After, never a refusal', async () => {
  script({ status: 429, body: { response: { errorMessage: 'Limite de requisições excedido.' } }, headers: { 'retry-after': '42' } })
  await assert.rejects(client().createDeposit(deposit), (error: unknown) => error instanceof ProviderBusyError && error.retryAfterSeconds === 42)
  script({ status: 429, body: {} })
  await assert.rejects(client().depositStatus('a'.repeat(32)), (error: unknown) => error instanceof ProviderBusyError && error.retryAfterSeconds === 60)
})

test('deposit-status reads payerEUID in either case and tolerates missing fields', async () => {
  script({ status: 200, body: { response: { qrId: 'e'.repeat(32), status: 'depix_sent', valueInCents: 1000, payerEUID: 'EU000000000000003', payerTaxNumber: '***.444.777-**', blockchainTxID: 'f'.repeat(64) } } })
  const status = await client().depositStatus('e'.repeat(32))
  assert.equal(status.payerEuid, 'EU000000000000003')
  assert.equal(status.blockchainTxId, 'f'.repeat(64))
  assert.equal(status.payerName, null)
  assert.equal(seen[0]!.url, `/api/deposit-status?id=${'e'.repeat(32)}`)
})

test('user-info: a known EUID returns its limits, an unknown one null', async () => {
  script({ status: 200, body: { response: { dailyVolumeInCents: 100, maxDailyInCents: 500000, isBlocked: false, dailyLimitResetTime: 'x' } } }, { status: 404, body: { response: { errorMessage: 'não encontrado' } } })
  assert.deepEqual(await client().userInfo('EU000000000000004'), { isBlocked: false, dailyVolumeInCents: 100, maxDailyInCents: 500000 })
  assert.equal(await client().userInfo('EU000000000000005'), null)
})
