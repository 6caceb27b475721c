// What an attacker tries besides hostile bodies: guessing credentials, holding connections with
// slow or short bodies, provider reports that do not fit the charge, and bytes that are not UTF-8.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'

let service: TestService
let token: string
let port: number
before(async () => {
  service = await startTestService({
    AUTH_FAILURES_PER_MINUTE: '5', HTTP_REQUEST_TIMEOUT_MS: '300', HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_KEEP_ALIVE_TIMEOUT_MS: '300',
  })
  token = (await service.merchant('abuse@example.com', '52998224725')).token
  port = (service.app.server.address() as { port: number }).port
})
after(() => service.close())

const from = (remoteAddress: string, headers: Record<string, string>, url = '/api/get-balance', method: 'GET' | 'POST' = 'GET') =>
  service.app.inject({ method, url, headers, remoteAddress, ...(method === 'POST' ? { payload: {} } : {}) })

test('failed authentications are limited per address: 429 rate_limited with Retry-After, before any lookup', async () => {
  for (const [address, headers, url, method, code] of [
    ['10.9.0.1', { 'x-api-token': 'guess' }, '/api/get-balance', 'GET', 'token_not_found'],
    ['10.9.0.2', {}, '/api/get-balance', 'GET', 'token_missing'],
    ['10.9.0.3', { authorization: 'Bearer guess' }, '/ops/holds', 'GET', 'ops_token_invalid'],
    ['10.9.0.4', { authorization: 'Basic guess' }, '/provider/webhooks/deposit', 'POST', 'provider_webhook_unauthorized'],
  ] as const) {
    for (let i = 0; i < 5; i++) assert.equal((await from(address, headers, url, method)).json().code, code, `${url} try ${i + 1}`)
    const limited = await from(address, headers, url, method)
    assert.equal(limited.statusCode, 429, url)
    assert.equal(limited.json().code, 'rate_limited')
    const retryAfter = Number(limited.headers['retry-after'])
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`)
  }
  // Another address is not affected, and successes never count.
  for (let i = 0; i < 10; i++) assert.equal((await from('10.9.0.9', { 'x-api-token': token })).statusCode, 200)
  assert.equal((await from('10.9.0.9', { 'x-api-token': 'guess' })).json().code, 'token_not_found')
})

/** Sends raw bytes on a fresh connection; resolves with what the server said and how long until it hung up. */
function rawExchange(bytes: string): Promise<{ reply: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes))
    let reply = ''
    socket.on('data', (chunk) => (reply += chunk.toString('latin1')))
    socket.on('error', reject)
    socket.on('close', () => resolve({ reply, closedAfterMs: performance.now() - started }))
    // A bound on the test itself, far above the time-outs under test.
    socket.setTimeout(5_000, () => socket.destroy(new Error('the server held the connection for 5 s')))
  })
}

test('a body announced but not sent, slow headers and idle keep-alive connections are cut off', async () => {
  const short = await rawExchange(`POST /api/create-payment HTTP/1.1\r\nHost: x\r\nX-API-Token: ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`)
  assert.match(short.reply, /^HTTP\/1\.1 408/)
  // Issue 21 (point 7): even what Node refuses before Fastify sees it is a catalogue body.
  const body = JSON.parse(short.reply.split('\r\n\r\n')[1]!)
  assert.equal(body.code, 'request_timeout')
  assert.match(body.request_id, /^req_[0-9a-f]{24}$/)
  assert.match(body.docs_url, /#request_timeout$/)
  assert.equal(typeof body.support_email, 'string')
  assert.ok(short.closedAfterMs < 2_000, `held ${short.closedAfterMs} ms`)

  const slowHeaders = await rawExchange('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ')
  assert.match(slowHeaders.reply, /^HTTP\/1\.1 408/)
  assert.ok(slowHeaders.closedAfterMs < 2_000, `held ${slowHeaders.closedAfterMs} ms`)

  const idle = await rawExchange('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')
  assert.match(idle.reply, /^HTTP\/1\.1 200/)
  assert.ok(idle.closedAfterMs < 2_000, `an idle keep-alive connection stayed ${idle.closedAfterMs} ms`)
})

test('a MED for a charge never credited records the blocks but does not close it: a later payment is held for support', async () => {
  const payer = generateCpf()
  const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email: 'med-first@example.com', tax_number: payer }, { token }))
  const charge = (await service.store.charges.findById(created.id))!
  const med = await service.providerWebhook('med', { webhookType: 'med', qrId: charge.provider_deposit_id, taxNumber: payer, euid: null })
  assert.equal(med.status, 200)
  assert.equal((await service.store.charges.findById(charge.id))!.status, 'waiting_payment')
  assert.deepEqual((await service.store.identities.blockedKinds({ email: 'med-first@example.com', taxNumber: payer })).sort(), ['email', 'tax_number'])

  const paid = await service.pay(charge.id, payer)
  assert.equal(paid.body.status, 'security_hold')
  const hold = (await service.ops('GET', '/ops/holds')).body.holds.find((entry: { payment_id: string }) => entry.payment_id === charge.id)
  assert.equal(hold.reason, 'prior_med')
  const postings = await service.database.db.selectFrom('ledger_postings').select('key').where('charge_id', '=', charge.id).execute()
  assert.deepEqual(postings, [])
})

test('invalid UTF-8 in a provider report or a merchant request is refused, never rewritten', async () => {
  const payer = generateCpf()
  const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email: 'utf8@example.com', tax_number: payer }, { token }))
  const charge = (await service.store.charges.findById(created.id))!
  const report = Buffer.concat([
    Buffer.from(`{"qrId":"${charge.provider_deposit_id}","status":"depix_sent","valueInCents":1000,"payerTaxNumber":"${payer}","payerName":"Jo`),
    Buffer.from([0xe3, 0x6f]),
    Buffer.from('"}'),
  ])
  const refused = await service.app.inject({ method: 'POST', url: '/provider/webhooks/deposit', headers: { authorization: `Basic ${service.providerWebhookSecret}`, 'content-type': 'application/json' }, payload: report })
  assert.equal(refused.statusCode, 400)
  assert.equal(refused.json().code, 'invalid_json')
  assert.equal((await service.store.charges.findById(charge.id))!.status, 'waiting_payment')

  const body = Buffer.concat([Buffer.from('{"value":"10.00","email":"utf8b@example.com","tax_number":"11144477735","payer_name":"Jo'), Buffer.from([0xff]), Buffer.from('"}')])
  const merchant = await service.app.inject({ method: 'POST', url: '/api/create-payment', headers: { 'x-api-token': token, 'content-type': 'application/json' }, payload: body })
  assert.equal(merchant.statusCode, 400)
  assert.equal(merchant.json().code, 'invalid_json')
})
