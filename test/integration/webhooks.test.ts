// Merchant webhooks end to end against a real HTTP receiver: bodies, three independent signature
// checks, retries on the sandbox clock, 410, redirects, outages, restarts and two instances.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { Webhook } from 'standardwebhooks'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { openPostgres } from '../../src/store/database.ts'
import { startService } from '../../src/service.ts'
import { RETRY_SCHEDULE_MS } from '../../src/webhooks/sender.ts'
import { serializeWebhookBody } from '../../src/webhooks/signature.ts'
import type { WebhookEventName } from '../../sdk/src/types.ts'
import { ok, refused } from '../support/api.ts'
import { T0, openTestDatabase, startTestService, testDatabase, type TestService } from '../support/harness.ts'
import { webhookEventsRepository } from '../../src/store/webhook-events.ts'

type Received = { headers: IncomingMessage['headers']; body: string; path: string }

/** A receiver whose answer each test sets: a status, a redirect, or no answer at all. */
async function startReceiver() {
  const received: Received[] = []
  let answer: (path: string) => { status: number; headers?: Record<string, string>; body?: string } | 'hang' | 'endless' = () => ({ status: 200 })
  const server: Server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      received.push({ headers: request.headers, body, path: request.url! })
      const reply = answer(request.url!)
      if (reply === 'hang') return
      if (reply === 'endless') {
        // 200, then a body that never ends: 1 kB every 10 ms until the connection is dropped.
        response.writeHead(200)
        const drip = setInterval(() => response.write('x'.repeat(1024)), 10)
        response.on('close', () => clearInterval(drip))
        return
      }
      response.writeHead(reply.status, reply.headers ?? {}).end(reply.body ?? 'ok')
    })
  })
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    for: (path: string) => received.filter((entry) => entry.path === path),
    answer: (fn: typeof answer) => (answer = fn),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}

let service: TestService
let token: string
let receiver: Awaited<ReturnType<typeof startReceiver>>
before(async () => {
  // Frozen at the real time of the run: the standardwebhooks package checks webhook-timestamp
  // against the wall clock, as a real receiver does.
  // Short enough for the receiver that hangs to time out quickly, long enough that the answering
  // ones never do on a loaded machine.
  service = await startTestService({ WEBHOOK_TIMEOUT_MS: '1500' }, { clock: createAdjustableClock(new Date()) })
  token = (await service.merchant('hooks@example.com', '52998224725')).token
  receiver = await startReceiver()
})
after(async () => {
  await service.close()
  await receiver.close()
})

async function paidCharge(path: string, secret: string | undefined, options: { thirdParty?: boolean; email?: string } = {}) {
  const payer = generateCpf()
  const euid = (await service.sandbox!.fake.endUser(payer, 'Payer')).euid
  const created = ok(await service.api.post('/api/create-payment', {
    value: '15.00', email: options.email ?? 'customer@example.com', euid, webhook_url: receiver.url(path), ...(secret ? { webhook_secret: secret } : {}),
  }, { token }))
  const paid = await service.pay(created.id, options.thirdParty ? generateCpf() : payer)
  return { id: created.id, euid, record: paid.body }
}

/** The one delivery a charge queued, as its merchant lists it. */
async function deliveryOf(paymentId: string) {
  const [delivery] = ok(await service.api.get(`/api/webhook-deliveries?payment_id=${paymentId}`, { token })).deliveries
  assert.ok(delivery, `no delivery for ${paymentId}`)
  return delivery
}

/** Python's json.dumps(json.loads(raw), separators=(',', ':')), run by Python itself. */
function pythonReserialize(raw: string): string {
  const result = spawnSync('python3', ['-c', "import json,sys; sys.stdout.write(json.dumps(json.loads(sys.stdin.read()), separators=(',', ':')))"], { input: raw, encoding: 'utf8' })
  assert.equal(result.status, 0, result.stderr)
  return result.stdout
}

test('payment confirmed: the body of decisions section 7, signed three independent ways', async () => {
  const secret = 'whsec_' + Buffer.from('a 32-byte secret for the test!!!').toString('base64')
  const { id, euid } = await paidCharge('/confirmed', secret)
  const [delivery] = receiver.for('/confirmed')
  assert.ok(delivery)
  assert.equal(delivery.body, `{"payment_id":"${id}","email":"customer@example.com","value_in_cents":1500,"paid_in_cents":1500,"payer_euid":"${euid}","event":"payment.confirmed","status":"depix_sent","hold_reason":null,"metadata":{}}`)
  const expected = createHmac('sha256', secret).update(delivery.body).digest('hex')
  // 1. Over the raw body, compared in constant time.
  assert.ok(timingSafeEqual(Buffer.from(String(delivery.headers['x-webhook-signature'])), Buffer.from(expected)))
  // 2. Over the body re-serialized as the spec describes, by Python itself.
  assert.equal(createHmac('sha256', secret).update(pythonReserialize(delivery.body)).digest('hex'), delivery.headers['x-webhook-signature'])
  // 3. The Standard Webhooks headers, with the standardwebhooks package.
  const verified = new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>)
  assert.deepEqual(verified, JSON.parse(delivery.body))
  assert.match(String(delivery.headers['webhook-id']), /^msg_[0-9a-f]{32}$/)
})

/** The webhook event each of these charges queued. */
const eventIdsOf = (charges: Array<{ id: string }>) => Promise.all(charges.map(async (charge) =>
  (await service.database.db.selectFrom('webhook_events').select('id').where('charge_id', '=', charge.id).executeTakeFirstOrThrow()).id))

/** The webhook events' repository on the service's database, counting the statements it runs. */
function countedEvents() {
  let statements = 0
  const events = webhookEventsRepository(service.database.db.withPlugin({ transformQuery: (args) => args.node, transformResult: async (args) => (statements++, args.result) }))
  return { events, statements: () => statements }
}

test('the events of deliveries started in one turn are read by one statement, each answered its own', async () => {
  const charges = [await paidCharge('/batch-a', undefined), await paidCharge('/batch-b', undefined), await paidCharge('/batch-c', 'batch-secret')]
  const ids = await eventIdsOf(charges)
  const { events, statements } = countedEvents()
  const found = await Promise.all([...ids, 'msg_none'].map((id) => events.findForDelivery(id)))
  assert.equal(statements(), 1)
  assert.deepEqual(found.map((event) => event?.id), [...ids, undefined])
  assert.deepEqual(found.slice(0, 3).map((event) => [event!.webhook_url, event!.webhook_secret]), [
    [receiver.url('/batch-a'), null], [receiver.url('/batch-b'), null], [receiver.url('/batch-c'), 'batch-secret'],
  ])
  // Asked in turns of their own, each is a statement of its own.
  assert.equal((await events.findForDelivery(ids[0]!))?.id, ids[0])
  assert.equal((await events.findForDelivery(ids[1]!))?.id, ids[1])
  assert.equal(statements(), 3)
})

test('the attempts of one turn are recorded by one statement: each is logged, and its event takes the latest', async () => {
  const charges = [await paidCharge('/turn-a', undefined), await paidCharge('/turn-b', undefined)]
  const [a, b] = await eventIdsOf(charges)
  const { events, statements } = countedEvents()
  const at = new Date('2026-11-27T12:00:00Z')
  await Promise.all([
    events.recordAttempt({ eventId: a!, at, statusCode: 200, durationMs: 4001, error: null }, { attempts: 8, state: 'delivered', deliveredAt: at }),
    events.recordAttempt({ eventId: a!, at, statusCode: 500, durationMs: 4002, error: null }, { attempts: 7 }),
    events.recordAttempt({ eventId: b!, at, statusCode: 410, durationMs: 4003, error: null }, { attempts: 9, state: 'gone' }),
  ])
  assert.equal(statements(), 1)
  const stored = await service.database.db.selectFrom('webhook_events').select(['id', 'state', 'attempts', 'delivered_at']).where('id', 'in', [a!, b!]).orderBy('attempts').execute()
  assert.deepEqual(stored.map((event) => [event.id, event.state, event.attempts]), [[a, 'delivered', 8], [b, 'gone', 9]])
  assert.equal(stored[0]!.delivered_at?.toISOString(), at.toISOString())
  const logged = await service.database.db.selectFrom('webhook_attempts').select(['event_id', 'status_code']).where('duration_ms', 'in', [4001, 4002, 4003]).orderBy('duration_ms').execute()
  assert.deepEqual(logged.map((attempt) => [attempt.event_id, attempt.status_code]), [[a, 200], [a, 500], [b, 410]])
})

test('a body with non-ASCII text is escaped so raw-body and Python re-serialization agree', () => {
  // Metadata is the merchant's own text: a numeric key (which JavaScript puts first) and accents.
  const raw = serializeWebhookBody({ payment_id: 'p', email: 'joão.açaí@exemplo.com.br', value_in_cents: 1, paid_in_cents: null, payer_euid: null, event: 'payment.confirmed', status: 'depix_sent', hold_reason: null, metadata: { pedido: 'açaí nº 1042', '7': 'sete' } })
  assert.match(raw, /jo\\u00e3o\.a\\u00e7a\\u00ed@/)
  assert.equal(pythonReserialize(raw), raw)
  assert.equal(JSON.parse(raw).email, 'joão.açaí@exemplo.com.br')
  const emoji = serializeWebhookBody({ payment_id: 'p', email: '🌴@x.io', value_in_cents: 1, paid_in_cents: null, payer_euid: null, event: 'payment.confirmed', status: 'depix_sent', hold_reason: null, metadata: {} })
  assert.equal(pythonReserialize(emoji), emoji)
})

test('a plain (non-whsec) secret keys both signatures with its UTF-8 bytes; without a secret, no signature', async () => {
  await paidCharge('/plain', 'plain sécret')
  const [signed] = receiver.for('/plain')
  assert.equal(signed!.headers['x-webhook-signature'], createHmac('sha256', Buffer.from('plain sécret', 'utf8')).update(signed!.body).digest('hex'))
  assert.deepEqual(new Webhook(Buffer.from('plain sécret', 'utf8').toString('base64')).verify(signed!.body, signed!.headers as Record<string, string>), JSON.parse(signed!.body))
  // The README's standardwebhooks line, as printed, keys both kinds of secret the API accepts.
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  const keyExpression = /^const key = (.*)$/m.exec(readme)![1]!
  const keyFor = new Function('secret', 'Buffer', `return ${keyExpression}`) as (secret: string, buffer: typeof Buffer) => string
  assert.deepEqual(new Webhook(keyFor('plain sécret', Buffer)).verify(signed!.body, signed!.headers as Record<string, string>), JSON.parse(signed!.body))
  await paidCharge('/whsec-readme', 'whsec_' + Buffer.from('another 32-byte secret for this.').toString('base64'))
  const [whsec] = receiver.for('/whsec-readme')
  assert.deepEqual(new Webhook(keyFor('whsec_' + Buffer.from('another 32-byte secret for this.').toString('base64'), Buffer)).verify(whsec!.body, whsec!.headers as Record<string, string>), JSON.parse(whsec!.body))
  await paidCharge('/unsigned', undefined)
  const [unsigned] = receiver.for('/unsigned')
  assert.equal(unsigned!.headers['x-webhook-signature'], undefined)
  assert.equal(unsigned!.headers['webhook-signature'], undefined)
  assert.ok(unsigned!.headers['webhook-id'])
})

test('after7d sends "payment confirmed", then "balance released" at the end of the hold', async () => {
  const { id } = await paidCharge('/held', 's3cret', { thirdParty: true })
  await service.advance(7 * 24 * 3600)
  const bodies = receiver.for('/held').map((entry) => JSON.parse(entry.body))
  assert.deepEqual(bodies.map((body) => [body.payment_id, body.event, body.status]), [[id, 'payment.confirmed', 'after7d'], [id, 'balance.released', 'depix_sent']])
  // Seven sandbox days later, webhook-timestamp is still the wall clock's (docs/rules.md#webhook-signatures).
  const released = receiver.for('/held')[1]!
  assert.ok(Math.abs(Number(released.headers['webhook-timestamp']) - Date.now() / 1000) < 60, String(released.headers['webhook-timestamp']))
})

test('failures retry on the schedule; every attempt is logged; 410 stops; redirects are not followed', async () => {
  let calls = 0
  receiver.answer((path) => (path === '/flaky' ? (++calls < 3 ? { status: 500 } : { status: 200 }) : path === '/gone' ? { status: 410 } : path === '/moved' ? { status: 302, headers: { location: receiver.url('/confirmed') } } : { status: 200 }))
  const flaky = await paidCharge('/flaky', 's')
  assert.equal(receiver.for('/flaky').length, 1)
  const afterFirst = await deliveryOf(flaky.id)
  assert.deepEqual([afterFirst.state, afterFirst.attempts, afterFirst.delivered_at], ['pending', 1, null], 'a failed attempt leaves the event pending')
  await service.advance(Math.ceil((RETRY_SCHEDULE_MS[0]! * 1.1) / 1000))
  assert.equal(receiver.for('/flaky').length, 2)
  await service.advance(Math.ceil((RETRY_SCHEDULE_MS[1]! * 1.1) / 1000))
  assert.equal(receiver.for('/flaky').length, 3)
  const delivery = await deliveryOf(flaky.id)
  assert.equal(delivery.state, 'delivered')
  assert.equal(delivery.attempts, 3)
  assert.ok(delivery.delivered_at !== null && delivery.delivered_at >= delivery.attempt_log[2]!.at, 'delivered at its third attempt')
  assert.deepEqual(delivery.attempt_log.map((attempt) => attempt.status_code), [500, 500, 200])
  assert.ok(delivery.attempt_log.every((attempt) => typeof attempt.duration_ms === 'number' && attempt.at))
  // The same webhook-id on every attempt, so the receiver can deduplicate.
  assert.equal(new Set(receiver.for('/flaky').map((entry) => entry.headers['webhook-id'])).size, 1)

  const gone = await paidCharge('/gone', 's')
  await service.advance(3 * 24 * 3600)
  assert.equal(receiver.for('/gone').length, 1)
  const goneDelivery = await deliveryOf(gone.id)
  assert.deepEqual([goneDelivery.state, goneDelivery.attempts, goneDelivery.delivered_at], ['gone', 1, null])

  const moved = await paidCharge('/moved', 's')
  const movedLog = (await deliveryOf(moved.id)).attempt_log
  assert.equal(movedLog[0]!.status_code, 302)
  receiver.answer(() => ({ status: 200 }))
})

test('a receiver that does not answer in time is an attempt with an error, retried later', async () => {
  receiver.answer((path) => (path === '/slow' ? 'hang' : { status: 200 }))
  const slow = await paidCharge('/slow', 's')
  const log = await deliveryOf(slow.id)
  assert.equal(log.state, 'pending')
  assert.equal(log.attempt_log[0]!.status_code, null)
  assert.match(log.attempt_log[0]!.error ?? '', /abort|timeout/i)
  receiver.answer(() => ({ status: 200 }))
})

test('a receiver whose 200 comes with a body that never ends is delivered, after 4 kB read, without waiting for the time-out', async () => {
  receiver.answer((path) => (path === '/endless' ? 'endless' : { status: 200 }))
  const endless = await paidCharge('/endless', 's')
  const log = await deliveryOf(endless.id)
  assert.equal(log.state, 'delivered')
  assert.equal(log.attempt_log[0]!.status_code, 200)
  // The service's time-out here is 1.5 s; the drip reaches 4 kB in about 40 ms.
  assert.ok(log.attempt_log[0]!.duration_ms < 1_000, `${log.attempt_log[0]!.duration_ms} ms`)
  receiver.answer(() => ({ status: 200 }))
})

test('a receiver down for a day gets every event once it is back', async () => {
  let up = false
  receiver.answer((path) => (path === '/outage' && !up ? { status: 503 } : { status: 200 }))
  const charges = [await paidCharge('/outage', 's'), await paidCharge('/outage', 's'), await paidCharge('/outage', 's')]
  for (let hour = 0; hour < 24; hour++) await service.advance(3600)
  up = true
  for (let hour = 0; hour < 24; hour++) await service.advance(3600)
  const delivered = receiver.for('/outage').filter((entry) => entry.headers['webhook-id'])
  const ids = new Set(delivered.map((entry) => JSON.parse(entry.body).payment_id))
  assert.deepEqual([...ids].sort(), charges.map((charge) => charge.id).sort())
  for (const charge of charges) {
    const event = await deliveryOf(charge.id)
    assert.equal(event.state, 'delivered')
    assert.equal(event.attempt_log.filter((attempt) => attempt.status_code === 200).length, 1)
  }
  receiver.answer(() => ({ status: 200 }))
})

test('merchants redeliver an event: same body and webhook-id; another merchant\'s event is not found', async () => {
  const { id } = await paidCharge('/again', 's')
  const event = await deliveryOf(id)
  const redelivered = await service.api.post(`/api/webhook-deliveries/${event.id}/redeliver`, undefined, { token })
  assert.deepEqual(redelivered.body, { id: event.id, state: 'pending' })
  // The runner sends it (woken by the commit in production; here the test runs what is due).
  await service.jobs.runDue()
  const both = receiver.for('/again')
  assert.equal(both.length, 2)
  assert.equal(both[0]!.body, both[1]!.body)
  assert.equal(both[0]!.headers['webhook-id'], both[1]!.headers['webhook-id'])
  const other = await service.merchant('other-shop@example.com', '11222333000181')
  const foreign = await service.api.post(`/api/webhook-deliveries/${event.id}/redeliver`, undefined, { token: other.token })
  assert.equal(refused(foreign).code, 'webhook_delivery_not_found')
  assert.deepEqual((await service.api.get('/api/webhook-deliveries', { token: other.token })).body, { deliveries: [] })
})

test('nothing lost: a process stopped after the status change delivers after restart; two instances never both deliver', { skip: testDatabase !== 'postgres' }, async () => {
  const database = await openTestDatabase()
  const env = { PROVIDER_WEBHOOK_SECRET: 'shared', DATA_DIR: '/nonexistent', BASE_URL: 'http://pix.test' }
  const start = async () => startService(loadConfig(env), { database: await openPostgres(database.url!, 5), clock: createAdjustableClock(T0), logger: false })
  const first = await start()
  try {
    await first.app.inject({ method: 'POST', url: '/sandbox/accounts', payload: { email: 'shop@example.com', tax_number: '52998224725' } })
    const shopToken = (await first.app.inject({ method: 'POST', url: '/sandbox/accounts/shop@example.com/tokens', payload: {} })).json().token
    const payers = [generateCpf(), generateCpf()]
    const ids: string[] = []
    for (const payer of payers) {
      const created = (await first.app.inject({ method: 'POST', url: '/api/create-payment', headers: { 'x-api-token': shopToken }, payload: { value: '10.00', email: `r-${payer}@example.com`, tax_number: payer, payer_name: 'Payer Person', webhook_url: receiver.url('/restart'), webhook_secret: 's' } })).json()
      const charge = (await first.store.charges.findById(created.id))!
      // The provider webhook is applied (status change + queued delivery), then the process stops before any job runs.
      const applied = await first.app.inject({ method: 'POST', url: '/provider/webhooks/deposit', headers: { authorization: 'Basic shared' }, payload: { qrId: charge.provider_deposit_id, status: 'depix_sent', valueInCents: charge.value_cents, payerTaxNumber: payer } })
      assert.equal(applied.statusCode, 200)
      ids.push(created.id)
    }
    await first.close()
    assert.equal(receiver.for('/restart').length, 0)

    const [a, b] = [await start(), await start()]
    try {
      await Promise.all([a.jobs.runDue(), b.jobs.runDue(), a.jobs.runDue(), b.jobs.runDue()])
      const got = receiver.for('/restart').map((entry) => JSON.parse(entry.body).payment_id).sort()
      assert.deepEqual(got, [...ids].sort())
    } finally {
      await a.close()
      await b.close()
    }
  } finally {
    await database.close()
  }
})

test('opt-in events: expiry, hold, review, refund and MED after credit, each only when asked for', async () => {
  const optIn: WebhookEventName[] = ['payment.expired', 'payment.held', 'payment.under_review', 'payment.refunded', 'payment.disputed']
  const create = async (path: string, webhookEvents: WebhookEventName[] | undefined) => {
    const payer = generateCpf()
    const euid = (await service.sandbox!.fake.endUser(payer, 'Payer')).euid
    const created = ok(await service.api.post('/api/create-payment', {
      // Each its own receiving account: the MED blocks the one it hits.
      value: '15.00', email: `optin${path.replaceAll('/', '-')}@example.com`, euid, webhook_url: receiver.url(path), ...(webhookEvents ? { webhook_events: webhookEvents } : {}),
    }, { token }))
    return { id: created.id, payer }
  }
  const seen = (path: string) => receiver.for(path).map((entry) => { const body = JSON.parse(entry.body); return `${body.event}:${body.status}` })

  for (const events of [optIn, undefined]) {
    const tag = events ? 'on' : 'off'
    const expiring = await create(`/opt-${tag}/expired`, events)
    const held = await create(`/opt-${tag}/held`, events)
    await service.pay(held.id, held.payer, 'depix_sent', { paid_cents: 3000 })
    assert.equal((await service.ops('POST', `/ops/payments/${held.id}/review`, { decision: 'refund', note: 'paid twice the amount' })).status, 200)
    const reviewed = await create(`/opt-${tag}/review`, events)
    await service.pay(reviewed.id, reviewed.payer, 'under_review')
    const refunded = await create(`/opt-${tag}/refund`, events)
    await service.pay(refunded.id, refunded.payer, 'will_refund')
    const disputed = await create(`/opt-${tag}/med`, events)
    await service.pay(disputed.id, disputed.payer)
    assert.equal((await service.request({ method: 'POST', url: `/sandbox/payments/${disputed.id}/med` })).status, 200)
    await service.advance(601)

    if (events) {
      assert.deepEqual(seen('/opt-on/expired'), ['payment.expired:expired'])
      assert.deepEqual(seen('/opt-on/held'), ['payment.held:security_hold', 'payment.refunded:will_refund'])
      assert.deepEqual(seen('/opt-on/review'), ['payment.under_review:under_review'])
      assert.deepEqual(seen('/opt-on/refund'), ['payment.refunded:will_refund'])
      assert.deepEqual(seen('/opt-on/med'), ['payment.confirmed:depix_sent', 'payment.disputed:refunded'])
    } else {
      // Without webhook_events only the spec's two events are ever sent.
      for (const path of ['expired', 'held', 'review', 'refund']) assert.deepEqual(seen(`/opt-off/${path}`), [], path)
      assert.deepEqual(seen('/opt-off/med'), ['payment.confirmed:depix_sent'])
    }
  }

  const euid = (await service.sandbox!.fake.endUser(generateCpf(), 'Payer')).euid
  for (const [body, why] of [
    [{ webhook_url: receiver.url('/x'), webhook_events: ['payment.paid'] }, 'an unknown name'],
    [{ webhook_url: receiver.url('/x'), webhook_events: ['payment.held', 'payment.held'] }, 'a name twice'],
    [{ webhook_events: ['payment.held'] }, 'no webhook_url'],
    [{ webhook_url: receiver.url('/x'), webhook_events: 'payment.held' }, 'not a list'],
  ] as const) {
    const answer = await service.api.postUntyped('/api/create-payment', { value: '15.00', email: 'optin@example.com', euid, ...body }, { token })
    assert.equal(answer.status, 400, why)
    assert.equal(answer.body.code, 'webhook_events_invalid', why)
    assert.equal(answer.body.param, 'webhook_events', why)
  }
  // Listing the spec's own events is allowed: they are always sent.
  ok(await service.api.post('/api/create-payment', {
    value: '15.00', email: 'optin@example.com', euid, webhook_url: receiver.url('/x'), webhook_events: ['payment.confirmed', 'balance.released', 'payment.expired'],
  }, { token }))
})
