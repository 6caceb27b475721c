// Eulen's behaviours as the fake copies them, met through the real adapter over HTTP: the delay
// floor on merchant charges and `delayed` until it ends, the payer's EUID before payment, replies
// that come asynchronously, and the reply shapes of docs/rules.md#eulen-api.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { createAdjustableClock } from '../../src/clock.ts'
import { euidForTaxNumber, startFakeEulen, type FakeEulen } from '../../src/sandbox/fake-eulen.ts'
import type { FakeEulenTables } from '../../src/sandbox/fake-eulen-store.ts'
import type { OpenedDatabase } from '../../src/store/database.ts'
import type { CreatePaymentRequest } from '../../sdk/src/types.ts'
import { ok } from '../support/api.ts'
import { openMigratedPglite, openTestDatabase, startTestService, type TestService } from '../support/harness.ts'

let service: TestService
let token: string
before(async () => {
  service = await startTestService({ PROVIDER_DELAY_HOURS: '24', SANDBOX_PROVIDER_MIN_DELAY_HOURS: '24' })
  token = (await service.merchant('delay@example.com', '52998224725')).token
})
after(() => service.close())

const create = (body: Omit<CreatePaymentRequest, 'value'> & ({ euid: string } | { tax_number: string })) => service.api.post('/api/create-payment', { value: '10.00', ...body }, { token })
/** The fake provider's own tables, on the service's database. */
const fakeTables = (database: OpenedDatabase) => database.db.withTables<FakeEulenTables>()
const fakeDeposit = async (chargeId: string) => {
  const charge = (await service.store.charges.findById(chargeId))!
  return fakeTables(service.database).selectFrom('fake_eulen_deposits').selectAll().where('id', '=', charge.provider_deposit_id).executeTakeFirstOrThrow()
}
const fakeDeposits = async () => Number((await fakeTables(service.database).selectFrom('fake_eulen_deposits').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)

test('every merchant charge asks for the configured delay; the money is pending until the provider delivers it', async () => {
  const payer = generateCpf()
  const created = await create({ email: 'delayed@example.com', tax_number: payer, webhook_url: 'http://127.0.0.1:1/h' })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  assert.equal((await fakeDeposit(created.body.id)).delay_hours, 24)

  const paid = await service.pay(created.body.id, payer)
  assert.equal(paid.body.status, 'pending', 'delayed at the provider is pending here')
  const account = (await service.store.accounts.findByEmail('delayed@example.com'))!
  assert.equal((await service.store.ledger.balances(account.id)).DEPIX, 0)
  const deposit = await fakeDeposit(created.body.id)
  assert.equal(deposit.status, 'delayed')
  assert.equal(new Date(deposit.delay_until!).getTime(), service.clock.now().getTime() + 24 * 3_600_000)

  await service.advance(23 * 3600)
  assert.equal((await service.store.charges.findById(created.body.id))!.status, 'pending')
  await service.advance(3600)
  const confirmed = (await service.store.charges.findById(created.body.id))!
  assert.equal(confirmed.status, 'depix_sent')
  assert.equal((await service.store.ledger.balances(account.id)).DEPIX, 900)
  const events = await service.database.db.selectFrom('webhook_events').select('event').where('charge_id', '=', created.body.id).execute()
  assert.deepEqual(events.map((event) => event.event), ['payment.confirmed'])
})

test('the 7-day hold of a third-party payment counts from our confirmation, after the provider delay', async () => {
  const known = generateCpf()
  const euid = (await service.sandbox!.fake.endUser(known, 'Known Payer')).euid
  const created = ok(await create({ email: 'held-delay@example.com', euid }))
  assert.equal((await service.pay(created.id, generateCpf())).body.status, 'pending')
  await service.advance(24 * 3600)
  const held = (await service.store.charges.findById(created.id))!
  assert.equal(held.status, 'after7d')
  assert.equal(held.release_at!.getTime(), held.confirmed_at!.getTime() + 7 * 24 * 3_600_000)
  assert.equal(held.confirmed_at!.getTime(), service.clock.now().getTime())
})

test('a delay below the provider\'s floor is refused the way Eulen refuses it: no QR, the provider\'s sentence', async () => {
  const low = await startTestService({ PROVIDER_DELAY_HOURS: '1', SANDBOX_PROVIDER_MIN_DELAY_HOURS: '24' })
  try {
    const merchant = await low.merchant('floor@example.com', '52998224725')
    const refused = await low.api.post('/api/create-payment', { value: '10.00', email: 'x@example.com', tax_number: generateCpf() }, { token: merchant.token })
    assert.equal(refused.status, 422)
    assert.equal(refused.body.code, 'provider_rejected')
    assert.match(refused.body.error, /delayDepixInHours mínimo para lojistas é 24 h/)
    assert.equal(await low.database.db.selectFrom('charges').select('id').executeTakeFirst(), undefined)
  } finally {
    await low.close()
  }
})

test('a tax number the provider knows shows its payerEuid before payment; an unknown one does not', async () => {
  const returning = generateCpf()
  const record = async (id: string) => ok(await service.api.get(`/api/get-payment/${id}`, { token }))
  const first = ok(await create({ email: 'euid-early@example.com', tax_number: returning }))
  await service.pay(first.id, returning)
  await service.advance(24 * 3600)
  const second = ok(await create({ email: 'euid-early@example.com', tax_number: returning }))
  const known = await record(second.id)
  assert.equal(known.status, 'waiting_payment')
  assert.equal(known.payerEuid, (await service.sandbox!.fake.endUser(returning, null)).euid)
  const fresh = ok(await create({ email: 'euid-early@example.com', tax_number: generateCpf() }))
  assert.equal((await record(fresh.id)).payerEuid, null)
})

test('asynchronous provider replies are followed to their result, with one deposit', async () => {
  service.sandbox!.fake.setAsyncReplies('enveloped')
  try {
    const before = await fakeDeposits()
    const created = await create({ email: 'async@example.com', tax_number: generateCpf() })
    assert.equal(created.status, 200, JSON.stringify(created.body))
    assert.match(created.body.qrCopyPaste, /^000201/)
    assert.equal(await fakeDeposits(), before + 1)
  } finally {
    service.sandbox!.fake.setAsyncReplies('off')
  }
})

test('the fake answers in the reference\'s shapes', async () => {
  let database: OpenedDatabase | undefined
  let fake: FakeEulen | undefined
  try {
    database = await openMigratedPglite()
    fake = await startFakeEulen({ db: database.db, clock: createAdjustableClock(new Date('2026-11-22T12:00:00Z')), token: 'jwt', partnerId: 'EU999999999999999', enforceRateLimits: true })
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${fake!.url}${path}`, { method, headers: { authorization: 'Bearer jwt', ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) })
      return { status: response.status, body: (await response.json()) as any }
    }
    const ping = await call('GET', '/ping')
    assert.equal(ping.body.response.msg, 'Pong!')
    assert.equal(ping.body.response.claims.sub, 'EU999999999999999')
    assert.equal((await call('GET', '/ping')).status, 429, '/ping is 1 a minute')

    const payer = generateCpf()
    const deposit = await call('POST', '/deposit', { amountInCents: 1000, merchantId: 'EU000000000000001', endUserTaxNumber: payer, endUserFullName: 'Ana', delayDepixInHours: 2 })
    assert.equal(deposit.body.async, false)
    const { id, qrImageUrl, expiration, delayInHours } = deposit.body.response
    assert.match(id, /^[0-9a-f]{32}$/)
    assert.equal(delayInHours, 2)
    assert.equal(expiration, '2026-11-22T12:20:00.000+00:00')
    const image = await fetch(qrImageUrl, { headers: { authorization: 'Bearer jwt' } })
    assert.equal(image.headers.get('content-type'), 'image/png')

    let posted: any[] = []
    const receiver = await import('node:http').then(({ createServer }) => createServer((request, response) => {
      let text = ''
      request.on('data', (chunk) => (text += chunk))
      request.on('end', () => {
        posted.push(JSON.parse(text))
        response.end('{}')
      })
    }))
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    fake.setWebhookTarget(`http://127.0.0.1:${(receiver.address() as { port: number }).port}`, 'secret')
    await fake.settle(id, { payerName: 'Ana', payerTaxNumber: payer, outcome: 'depix_sent' })
    assert.equal(posted[0].webhookType, 'deposit')
    assert.equal(posted[0].status, 'delayed')
    assert.equal(posted[0].delayUntil, '2026-11-22T14:00:00.000+00:00')
    assert.match(posted[0].bankTxId, /^PIX_E[0-9a-f]{32}$/)
    assert.equal(typeof posted[0].customerMessage, 'string')
    const status = await call('GET', `/deposit-status?id=${id}`)
    assert.equal(status.body.response.status, 'delayed')
    await fake.med(id)
    assert.equal(posted[1].webhookType, 'med')
    assert.equal(posted[1].partnerId, 'EU999999999999999')
    posted = []
    receiver.close()
  } finally {
    await fake?.close()
    await database?.close()
  }
})

test('Eulen\'s 429 on /deposit is 503 provider_unavailable with its Retry-After, never a refusal, and nothing is made', async () => {
  const behaviour = await service.request({ method: 'PUT', url: '/sandbox/provider', body: { deposit_rate_limited: true } })
  assert.deepEqual(behaviour.body, { deposit_rate_limited: true, async_replies: 'off' })
  try {
    const before = await service.database.db.selectFrom('charges').select('id').execute()
    const busy = await create({ email: 'busy@example.com', tax_number: generateCpf() })
    assert.equal(busy.status, 503)
    assert.equal(busy.body.code, 'provider_unavailable')
    assert.equal(busy.headers['retry-after'], '30')
    assert.equal((await service.database.db.selectFrom('charges').select('id').execute()).length, before.length)
    assert.equal((await service.ops('GET', '/ops/unknown-deposits')).body.deposits.length, 0, 'a 429 made no deposit to look for')
  } finally {
    await service.request({ method: 'PUT', url: '/sandbox/provider', body: { deposit_rate_limited: false } })
  }
  assert.equal((await create({ email: 'busy@example.com', tax_number: generateCpf() })).status, 200)
})

test('an asynchronous result served without the envelope is read, with one deposit, never taken as "unavailable"', async () => {
  assert.equal((await service.request({ method: 'PUT', url: '/sandbox/provider', body: { async_replies: 'bare' } })).status, 200)
  try {
    const before = await fakeDeposits()
    const created = await create({ email: 'bare@example.com', tax_number: generateCpf() })
    assert.equal(created.status, 200, JSON.stringify(created.body))
    assert.match(created.body.qrCopyPaste, /^000201/)
    assert.equal(await fakeDeposits(), before + 1)
  } finally {
    await service.request({ method: 'PUT', url: '/sandbox/provider', body: { async_replies: 'off' } })
  }
})

// A deposit for a tax number the fake has seen is stored by the statement that reads it; any
// other takes the long way. Both must keep Eulen's rules, on the database under test.
test('the fake\'s payer rules hold on both of its ways to store a deposit', async () => {
  const database = await openTestDatabase()
  const fake = await startFakeEulen({ db: database.db, clock: createAdjustableClock(new Date('2026-11-22T12:00:00Z')), token: 'jwt', requireEndUserName: true })
  try {
    const deposit = async (body: Record<string, unknown>) => {
      const response = await fetch(`${fake.url}/deposit`, { method: 'POST', headers: { authorization: 'Bearer jwt', 'content-type': 'application/json' }, body: JSON.stringify({ merchantId: 'EU000000000000001', ...body }) })
      return { status: response.status, body: (await response.json()) as any }
    }
    const stored = (id: string) => fakeTables(database).selectFrom('fake_eulen_deposits').selectAll().where('id', '=', id).executeTakeFirst()
    const payer = generateCpf()

    assert.equal((await deposit({ amountInCents: 1000, endUserTaxNumber: payer })).status, 400, 'a tax number never seen needs the payer\'s name')
    const over = await deposit({ amountInCents: 50_001, endUserTaxNumber: payer, endUserFullName: 'Ana' })
    assert.deepEqual([over.status, over.body.response.errorMessage], [422, 'Valor acima do limite para um pagador sem histórico.'])
    const overAgain = await deposit({ amountInCents: 50_001, endUserTaxNumber: payer })
    assert.equal(overAgain.status, 422, 'seen but never paid: still the first-payment limit')

    const first = await deposit({ amountInCents: 50_000, endUserTaxNumber: payer })
    assert.equal(first.status, 200, 'seen before: the name is no longer needed, and the limit is inclusive')
    assert.equal(first.body.response.payerEUID, undefined, 'an end user who never paid is not named')
    const row = (await stored(first.body.response.id))!
    assert.deepEqual([Number(row.amount_cents), row.status, row.end_user_tax_number, row.end_user_euid, row.qr_copy_paste], [50_000, 'pending', payer, null, first.body.response.qrCopyPaste])
    assert.equal(new Date(row.expiration).toISOString(), '2026-11-22T12:20:00.000Z')

    await fake.settle(first.body.response.id, { payerName: 'Ana', payerTaxNumber: payer, outcome: 'depix_sent', lost: true })
    const known = await deposit({ amountInCents: 60_000, endUserTaxNumber: payer, endUserFullName: 'Ana' })
    assert.equal(known.status, 200, 'a payer who has paid is past the first-payment limit')
    assert.equal(known.body.response.payerEUID, euidForTaxNumber(payer))
    assert.equal((await stored(known.body.response.id))!.end_user_euid, euidForTaxNumber(payer))

    assert.equal((await deposit({ amountInCents: 1001 })).status, 520, 'over R$ 10,00 nobody is named')
    assert.equal((await deposit({ amountInCents: 1000 })).status, 200)
  } finally {
    await fake.close()
    await database.close()
  }
})
