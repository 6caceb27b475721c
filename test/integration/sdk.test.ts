// Integration runner: pglite only (every test here skips on PostgreSQL).
// The TypeScript SDK (sdk/, built by `npm test` before this runs), end to end against the running
// sandbox over HTTP: a merchant's whole integration, its errors, its retries and webhook checks.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { PixChargeClient, PixChargeError, verifyWebhook, WebhookVerificationError, type AnyWebhookEvent, type WebhookEvent, type WithdrawalWebhookEvent } from '../../sdk/dist/index.js'
import type { WithdrawalWebhookBody } from '../../src/contract/api.ts'
import { FIXED_FEE_CENTS } from '../../src/domain/money.ts'
import { skipOnSecondDatabase, startTestService, type TestService } from '../support/harness.ts'
import { confirmedDestination, ownerWithBalance } from '../support/withdrawals.ts'

const listen = async (server: Server) => {
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const close = (server: Server) => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })

let service: TestService
let baseUrl: string
let token: string
let hooks: Server
let hooksUrl: string
const received: Array<{ raw: string; headers: IncomingHttpHeaders }> = []
const secret = 'whsec_' + Buffer.from('the SDK test secret, 32 bytes!!!').toString('base64')

before(async () => {
  if (skipOnSecondDatabase) return
  service = await startTestService()
  baseUrl = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`
  token = (await service.merchant('sdk@example.com', '52998224725')).token
  hooks = createServer((request, response) => {
    let raw = ''
    request.on('data', (chunk) => (raw += chunk))
    request.on('end', () => {
      received.push({ raw, headers: request.headers })
      response.writeHead(204).end()
    })
  })
  hooksUrl = await listen(hooks)
})
after(async () => {
  await service?.close()
  if (hooks) await close(hooks)
})

test('a whole integration: create, read, pay, verified webhook, balance, list, deliveries, redelivery', { skip: skipOnSecondDatabase }, async () => {
  const client = new PixChargeClient({ baseUrl, token })
  const payer = generateCpf()
  const euid = (await service.sandbox!.fake.endUser(payer, 'Payer')).euid
  const created = await client.createPayment({ value: '25.00', email: 'sdk@example.com', euid, webhook_url: `${hooksUrl}/pix`, webhook_secret: secret })
  assert.equal(created.status, 'waiting_payment')
  assert.equal((await client.getPayment(created.id)).amount, 2500)

  await service.pay(created.id, payer)
  assert.equal((await client.getPayment(created.id)).status, 'depix_sent')
  const [hook] = received
  assert.ok(hook)
  const event: WebhookEvent = verifyWebhook(hook.raw, hook.headers, secret)
  assert.deepEqual([event.payment_id, event.event, event.status, event.value_in_cents], [created.id, 'payment.confirmed', 'depix_sent', 2500])

  // What arrived less the fixed R$ 1,00 fee.
  assert.equal((await client.getBalance()).balances.DEPIX.available_cents, 2500 - FIXED_FEE_CENTS)
  const listed = []
  for await (const charge of client.eachPayment({ limit: 1 })) listed.push(charge.qrId)
  assert.deepEqual(listed, [created.id])
  assert.equal((await client.listPayments({ status: 'expired' })).payments.length, 0)
  // The statement: what arrived, then the fee.
  const statement = []
  for await (const line of client.eachBalanceTransaction({ currency: 'DEPIX', limit: 1 })) statement.push([line.type, line.amount, line.balance_after, line.payment_id])
  assert.deepEqual(statement, [['fee', -FIXED_FEE_CENTS, 2500 - FIXED_FEE_CENTS, created.id], ['credit', 2500, 2500, created.id]])

  const deliveries = await client.listWebhookDeliveries(created.id)
  assert.equal(deliveries.deliveries[0]!.state, 'delivered')
  assert.deepEqual(await client.redeliverWebhook(deliveries.deliveries[0]!.id), { id: deliveries.deliveries[0]!.id, state: 'pending' })
})

test('withdrawals: a destination confirmed in the Wallet, refused while cooling down, then withdrawn once, read, listed, its webhook verified', { skip: skipOnSecondDatabase }, async () => {
  const owner = await ownerWithBalance(service, 'sdk-out@example.com', '300.00')
  const destination = await confirmedDestination(service, owner, 'pix', owner.taxNumber)
  const client = new PixChargeClient({ baseUrl, token: owner.token })
  assert.deepEqual((await client.withdrawals.destinations()).destinations.map((row) => [row.id, row.type, row.state]), [[destination, 'pix', 'cooling_down']])
  const body = { currency: 'DEPIX', amount: 10_000, destination_id: destination, webhook_url: `${hooksUrl}/out`, webhook_secret: secret } as const
  const early = await client.withdrawals.create(body).catch((caught: unknown) => caught)
  assert.ok(early instanceof PixChargeError)
  assert.deepEqual([early.status, early.code], [409, 'destination_cooling_down'])

  await service.advance(24 * 3600 + 1)
  assert.equal((await client.withdrawals.destinations()).destinations[0]!.state, 'active')
  const made = await client.withdrawals.create(body, { idempotencyKey: 'payout-7' })
  // R$ 100,00: our 2 % (R$ 2,00), then the provider's 1 % of R$ 98,00, at least R$ 1,00.
  assert.deepEqual([made.status, made.amount, made.fee, made.net_amount, made.payout_cents, made.destination.id], ['confirmed', 10_000, 200, 9_800, 9_700, destination])
  assert.equal((await client.withdrawals.create(body, { idempotencyKey: 'payout-7' })).id, made.id, 'the same key answers the same withdrawal')
  const tooMuch = await client.withdrawals.create({ ...body, amount: 50_000 }).catch((caught: unknown) => caught)
  assert.ok(tooMuch instanceof PixChargeError && tooMuch.code === 'insufficient_funds', String(tooMuch))
  assert.equal((await client.getBalance()).balances.DEPIX.available_cents, 29_900 - 10_000)

  const hooksBefore = received.length
  assert.deepEqual(await client.withdrawals.list({ status: 'sent' }), { withdrawals: [], next_cursor: null })
  await service.jobs.runDue()
  assert.equal((await client.withdrawals.get(made.id)).status, 'sent')
  assert.deepEqual((await client.withdrawals.list({ status: 'sent', limit: 10 })).withdrawals.map((row) => row.id), [made.id])
  const missing = await client.withdrawals.get('wd_000000000000000000000000').catch((caught: unknown) => caught)
  assert.ok(missing instanceof PixChargeError && missing.status === 404 && missing.code === 'withdrawal_not_found')

  const events = received.slice(hooksBefore).map((hook) => verifyWebhook<WithdrawalWebhookEvent>(hook.raw, hook.headers, secret))
  assert.deepEqual(events.map((event) => event.event).sort(), ['withdrawal.confirmed', 'withdrawal.sending', 'withdrawal.sent'])
  for (const event of events) assert.deepEqual([event.withdrawal_id, event.email, event.amount, event.fee, event.net_amount, event.event], [made.id, 'sdk-out@example.com', 10_000, 200, 9_800, `withdrawal.${event.status}`])
  const either = verifyWebhook<AnyWebhookEvent>(received[hooksBefore]!.raw, received[hooksBefore]!.headers, secret)
  assert.ok('withdrawal_id' in either && either.withdrawal_id === made.id)
  // The body is not among the OpenAPI document's schemas (its webhooks are the charges'): the type check ties it to the contract instead.
  const matchesContract: Same<Omit<WithdrawalWebhookEvent, 'event'>, Omit<WithdrawalWebhookBody, 'event'>> = true
  assert.ok(matchesContract)
})

test('errors carry code, param and request id; a 400 is never retried', { skip: skipOnSecondDatabase }, async () => {
  let waits = 0
  const client = new PixChargeClient({ baseUrl, token, sleep: async () => { waits++ } })
  const error = await client.createPayment({ value: '10,50', email: 'sdk@example.com', tax_number: '11144477735' }).catch((caught: unknown) => caught)
  assert.ok(error instanceof PixChargeError)
  assert.deepEqual([error.status, error.code, error.param], [400, 'value_invalid', 'value'])
  assert.match(error.requestId ?? '', /^req_/)
  assert.equal(waits, 0)
  const missing = await new PixChargeClient({ baseUrl, token: 'nope' }).getBalance().catch((caught: unknown) => caught)
  assert.ok(missing instanceof PixChargeError && missing.code === 'token_not_found')
})

test('a 503 with Retry-After is retried with the same Idempotency-Key, and one charge is created', { skip: skipOnSecondDatabase }, async () => {
  // A load balancer in front of the service that answers the first request 503 during a deploy.
  const keys: string[] = []
  let refuseNext = 1
  const proxy = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', async () => {
      keys.push(String(request.headers['idempotency-key']))
      if (refuseNext-- > 0) return response.writeHead(503, { 'retry-after': '1' }).end('deploying')
      const forwarded = Object.fromEntries(['x-api-token', 'content-type', 'idempotency-key', 'accept'].flatMap((name) => (request.headers[name] ? [[name, String(request.headers[name])]] : [])))
      const upstream = await fetch(`${baseUrl}${request.url}`, { method: request.method!, headers: forwarded, ...(body ? { body } : {}) })
      response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(await upstream.text())
    })
  })
  const proxyUrl = await listen(proxy)
  try {
    const waits: number[] = []
    const client = new PixChargeClient({ baseUrl: proxyUrl, token, sleep: async (ms) => { waits.push(ms) } })
    const created = await client.createPayment({ value: '10.00', email: 'sdk@example.com', tax_number: '11144477735' })
    assert.deepEqual(waits, [1000])
    assert.equal(keys.length, 2)
    assert.equal(keys[0], keys[1])
    assert.equal((await client.getPayment(created.id)).status, 'waiting_payment')

    // Without Retry-After, or beyond what the client accepts to wait, it fails at once.
    refuseNext = 1
    const impatient = new PixChargeClient({ baseUrl: proxyUrl, token, maxRetryAfterSeconds: 0, sleep: async (ms) => { waits.push(ms) } })
    const error = await impatient.getBalance().catch((caught: unknown) => caught)
    assert.ok(error instanceof PixChargeError && error.status === 503 && error.retryAfterSeconds === 1)
    assert.deepEqual(waits, [1000])
  } finally {
    await close(proxy)
  }
})

test('the service\'s own 503 (provider down) is retried as it says, then surfaces', { skip: skipOnSecondDatabase }, async () => {
  const down = await startTestService()
  try {
    const merchant = await down.merchant('down@example.com', '52998224725')
    await down.sandbox!.fake.close()
    const waits: number[] = []
    const client = new PixChargeClient({
      baseUrl: `http://127.0.0.1:${(down.app.server.address() as AddressInfo).port}`,
      token: merchant.token,
      sleep: async (ms) => { waits.push(ms) },
    })
    const error = await client.createPayment({ value: '10.00', email: 'c@example.com', tax_number: '11144477735' }).catch((caught: unknown) => caught)
    assert.ok(error instanceof PixChargeError)
    assert.deepEqual([error.status, error.code, error.retryAfterSeconds], [503, 'provider_unavailable', 5])
    assert.deepEqual(waits, [5000, 5000])
  } finally {
    await down.close().catch(() => {})
  }
})

test('verifyWebhook: plain and whsec_ secrets, both signatures, a time tolerance, a changed body', { skip: skipOnSecondDatabase }, () => {
  const body = '{"payment_id":"p","email":"a@b.c","value_in_cents":1000,"payer_euid":null,"event":"payment.confirmed","status":"depix_sent"}'
  const now = Date.parse('2026-11-23T12:00:00Z')
  const sign = async (plain: string) => {
    const { createHmac } = await import('node:crypto')
    const key = plain.startsWith('whsec_') ? Buffer.from(plain.slice(6), 'base64') : Buffer.from(plain)
    const timestamp = String(now / 1000)
    return {
      'webhook-id': 'msg_1',
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${createHmac('sha256', key).update(`msg_1.${timestamp}.${body}`).digest('base64')}`,
      'x-webhook-signature': createHmac('sha256', plain).update(body).digest('hex'),
    }
  }
  return (async () => {
    for (const plain of ['a plain secret', secret]) {
      const headers = await sign(plain)
      assert.equal(verifyWebhook(body, headers, plain, { now: () => now }).event, 'payment.confirmed')
      assert.equal(verifyWebhook(Buffer.from(body), new Headers(headers), plain, { now: () => now + 299_000 }).status, 'depix_sent')
      const refused = (rawBody: string, hdrs: Record<string, string>, at = now) => assert.throws(() => verifyWebhook(rawBody, hdrs, plain, { now: () => at }), WebhookVerificationError)
      refused(body.replace('1000', '9000'), headers)
      refused(body, headers, now + 301_000)
      refused(body, { ...headers, 'x-webhook-signature': '0'.repeat(64) })
      refused(body, { ...headers, 'webhook-signature': 'v1,AAAA' })
      refused(body, { 'x-webhook-signature': headers['x-webhook-signature'] })
    }
  })()
})

test('refunds: part of a payment given back to its payer, read and listed; more than is left refused with its code', { skip: skipOnSecondDatabase }, async () => {
  const client = new PixChargeClient({ baseUrl, token })
  const payer = generateCpf()
  const euid = (await service.sandbox!.fake.endUser(payer, 'Payer')).euid
  const created = await client.createPayment({ value: '30.00', email: 'sdk@example.com', euid })
  await service.pay(created.id, payer)
  const refund = await client.refunds.create(created.id, { amount: '10.00', reason: 'returned item' }, { idempotencyKey: 'return-1042' })
  assert.deepEqual([refund.status, refund.amount_cents, refund.fee_cents, refund.debit_amount], ['pending', 1000, 100, 1100])
  assert.equal((await client.refunds.create(created.id, { amount: '10.00', reason: 'returned item' }, { idempotencyKey: 'return-1042' })).id, refund.id)
  assert.equal((await client.refunds.get(refund.id)).payment_id, created.id)
  assert.deepEqual((await client.refunds.list(created.id)).refunds.map((row) => row.id), [refund.id])
  assert.equal((await client.getPayment(created.id)).refundedAmount, 1000)
  const over = await client.refunds.create(created.id, { amount: '20.01' }).catch((caught: unknown) => caught)
  assert.ok(over instanceof PixChargeError)
  assert.deepEqual([over.status, over.code, over.param], [409, 'refund_exceeds_paid', 'amount'])
})
