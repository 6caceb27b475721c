import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import jsQRModule from 'jsqr'
import { PNG } from 'pngjs'
import { isValidPixPayload } from '@brazilian-utils/brazilian-utils'
import { parsePix } from 'pix-utils'
import { sql } from 'kysely'
import { requestHash } from '../../src/request-hash.ts'
import { ok } from '../support/api.ts'
import { T0, startTestService, type TestService } from '../support/harness.ts'

let service: TestService
let token: string
let merchantEuid: string
before(async () => {
  service = await startTestService()
  const merchant = await service.merchant('shop@example.com', '52998224725')
  token = merchant.token
  merchantEuid = merchant.euid
})
after(() => service.close())

const create = (body: unknown, headers: Record<string, string> = {}) => service.api.postUntyped('/api/create-payment', body, { token, headers })
const chargeCount = async () => (await service.database.db.selectFrom('charges').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n
/** An EUID the provider knows: a payer it has seen before. */
const knownEuid = async (taxNumber: string) => (await service.sandbox!.fake.endUser(taxNumber, 'Payer Name')).euid

/** The error body, checked field by field: refusals of bodies the contract does not allow too. */
function assertError(response: { status: number; body: unknown }, status: number, code: string, param?: string) {
  assert.equal(response.status, status, JSON.stringify(response.body))
  const body = response.body as Record<string, unknown>
  assert.equal(body.code, code, JSON.stringify(body))
  if (param !== undefined) assert.equal(body.param, param)
  assert.equal(typeof body.error, 'string')
  assert.equal(typeof body.request_id, 'string')
}

test('a charge is created with the contract result: 32-hex id, valid BR Code, image URL, 10-minute expiry, and its payment page', async () => {
  const response = await create({ value: '10.00', email: 'customer@example.com', tax_number: '11144477735' })
  assert.equal(response.status, 200, JSON.stringify(response.body))
  assert.deepEqual(Object.keys(response.body).sort(), ['expiresAt', 'id', 'payUrl', 'qrCopyPaste', 'qrImageUrl', 'status'])
  assert.match(response.body.id, /^[0-9a-f]{32}$/)
  assert.equal(response.body.status, 'waiting_payment')
  assert.equal(response.body.expiresAt, new Date(T0.getTime() + 600_000).toISOString())
  assert.equal(response.body.qrImageUrl, `http://pix.test/api/qr/${response.body.id}.png`)
  assert.equal(isValidPixPayload(response.body.qrCopyPaste), true)
  assert.equal((parsePix(response.body.qrCopyPaste) as { type: string }).type, 'DYNAMIC')
  assert.match(response.body.qrCopyPaste, /540510\.00/)

  const stored = await service.store.charges.findById(response.body.id)
  assert.equal(stored?.merchant_id, merchantEuid)
  assert.equal(stored?.value_cents, 1000)
  assert.equal(typeof stored?.value_cents, 'number')
  assert.equal(stored?.currency, 'DEPIX')
  assert.match(stored!.provider_deposit_id, /^[0-9a-f]{32}$/)
})

test('a new charge stores each field the merchant sent in its own column, with a key and without', async () => {
  // The charge's statement is built once and takes its values by position: a column given another's
  // value must fail here.
  const withTaxNumber = await create({
    value: '10.00', email: 'Columns@Example.com', tax_number: '11144477735', payer_name: 'Maria da Silva',
    webhook_url: 'http://127.0.0.1:9999/hook', webhook_secret: 'whsec_columns', webhook_events: ['payment.expired'], metadata: { order_id: '1042' },
  })
  const payerEuid = await knownEuid('39053344705')
  const withEuid = await create({ value: '12.34', email: 'columns@example.com', euid: payerEuid }, { 'idempotency-key': 'columns-1' })
  assert.equal(withTaxNumber.status, 200, JSON.stringify(withTaxNumber.body))
  assert.equal(withEuid.status, 200, JSON.stringify(withEuid.body))
  const merchant = await service.store.accounts.findByEmail('shop@example.com')
  const receiving = await service.store.accounts.findByEmail('columns@example.com')
  const stored = await service.store.charges.findById(withTaxNumber.body.id)
  // The sandbox's BR Code carries the deposit's id in its location.
  const depositId = /\/cob\/([0-9a-f]{32})/.exec(withTaxNumber.body.qrCopyPaste)?.[1]
  assert.deepEqual(stored, {
    ...stored,
    id: withTaxNumber.body.id, merchant_account_id: merchant!.id, merchant_id: merchantEuid, account_id: receiving!.id, value_cents: 1000, currency: 'DEPIX',
    informed_euid: null, informed_tax_number: '11144477735', informed_payer_name: 'Maria da Silva',
    webhook_url: 'http://127.0.0.1:9999/hook', webhook_secret: 'whsec_columns', webhook_events: ['payment.expired'], metadata: { order_id: '1042' },
    provider_deposit_id: depositId, payer_euid: null, qr_copy_paste: withTaxNumber.body.qrCopyPaste, status: 'waiting_payment', provider_status: 'pending',
    created_at: T0, expires_at: new Date(withTaxNumber.body.expiresAt), updated_at: T0,
  })
  // Its one job, stored by the same statement, due at expiresAt (it expires the charge, then asks the provider).
  const jobs = await service.database.db.selectFrom('jobs').select(['kind', 'payload', 'run_at', 'created_at']).where(sql`payload->>'chargeId'`, '=', withTaxNumber.body.id).execute()
  assert.deepEqual(jobs, [{ kind: 'reconcile_charge', payload: { chargeId: withTaxNumber.body.id }, run_at: new Date(withTaxNumber.body.expiresAt), created_at: T0 }])
  const byEuid = await service.store.charges.findById(withEuid.body.id)
  assert.equal(byEuid?.informed_euid, payerEuid)
  assert.equal(byEuid?.informed_tax_number, null)
  assert.equal(byEuid?.value_cents, 1234)
  assert.equal(byEuid?.account_id, receiving!.id)
  // The key's answer, stored by the same statement, is the charge's creation result.
  const replayed = await create({ value: '12.34', email: 'columns@example.com', euid: payerEuid }, { 'idempotency-key': 'columns-1' })
  assert.equal(replayed.status, 200, JSON.stringify(replayed.body))
  assert.deepEqual(replayed.body, withEuid.body)
})

test('a charge is stored only for accounts that exist, and accounts are never deleted', async () => {
  const merchant = (await service.store.accounts.findByEmail('shop@example.com'))!
  const customer = await service.store.accounts.create('kept@example.com', T0)
  const db = service.database.db
  const jobCount = async () => (await db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n
  const jobsBefore = await jobCount()
  const chargesBefore = await chargeCount()
  const charge = (id: string, accounts: { merchant: number; receiving: number }) => ({
    id, merchant_account_id: accounts.merchant, merchant_id: merchantEuid, account_id: accounts.receiving, value_cents: 1000, currency: 'DEPIX' as const,
    informed_euid: null, informed_tax_number: '11144477735', informed_payer_name: null, webhook_url: null, webhook_secret: null, webhook_events: [], metadata: null, return_url: null, payment_link_id: null,
    provider_deposit_id: `dep-${id}`, payer_euid: null, qr_copy_paste: '0002', status: 'waiting_payment' as const, provider_status: 'pending' as const,
    created_at: T0, expires_at: T0, updated_at: T0,
  })
  const job = (id: string) => [{ kind: 'reconcile_charge' as const, payload: { chargeId: id }, runAt: T0 }]
  const missing = 2 ** 40
  // Either account missing: the statement stores neither the charge nor its job.
  await assert.rejects(service.store.charges.open(charge('e'.repeat(32), { merchant: missing, receiving: customer.id }), job('e'.repeat(32))), { code: '23502', column: 'merchant_account_id' })
  await assert.rejects(service.store.charges.open(charge('f'.repeat(32), { merchant: merchant.id, receiving: missing }), job('f'.repeat(32))), { code: '23502', column: 'account_id' })
  assert.equal(await chargeCount(), chargesBefore)
  assert.equal(await jobCount(), jobsBefore)
  await service.store.charges.open(charge('a'.repeat(32), { merchant: merchant.id, receiving: customer.id }), job('a'.repeat(32)))
  // What foreign keys would have kept: a charge's accounts stay, whatever is asked of the database.
  for (const statement of [
    sql`delete from accounts where id = ${customer.id}`,
    sql`delete from accounts where email = 'nobody@example.com'`,
    sql`truncate accounts cascade`,
    sql`update accounts set id = default where id = ${customer.id}`,
  ]) await assert.rejects(statement.execute(db), { code: '23001' })
  assert.equal((await service.store.charges.findById('a'.repeat(32)))!.account_id, customer.id)
})

test('the QR image is a public, cacheable PNG that decodes back to qrCopyPaste', async () => {
  const created = ok(await create({ value: '10.00', email: 'customer@example.com', tax_number: '11144477735' }))
  // Untyped: the bytes are read from `raw`.
  const image = await service.request({ method: 'GET', url: `/api/qr/${created.id}.png` })
  assert.equal(image.status, 200)
  assert.equal(image.headers['content-type'], 'image/png')
  assert.match(String(image.headers['cache-control']), /public/)
  const png = PNG.sync.read(image.raw)
  const decoded = jsQRModule.default(new Uint8ClampedArray(png.data), png.width, png.height)
  assert.equal(decoded?.data, created.qrCopyPaste)
  assertError(await service.api.get(`/api/qr/${'0'.repeat(32)}.png`), 404, 'payment_not_found')
  assertError(await service.api.get('/api/qr/../../etc/passwd'), 404, 'not_found')
})

test('value bounds are inclusive per currency; value may be a JSON number', async () => {
  const euid = await knownEuid('12345678909')
  const ok = [
    { value: '10.00' }, { value: 10 }, { value: '10', swap_to: 'USDt' }, { value: '20.00', swap_to: 'BTC' }, { value: '499.00' },
  ]
  for (const extra of ok) {
    const response = await create({ email: 'b@example.com', euid, ...extra })
    assert.equal(response.status, 200, `${JSON.stringify(extra)} ${JSON.stringify(response.body)}`)
  }
  for (const extra of [{ value: '9.99' }, { value: '9.99', swap_to: 'USDt' }, { value: '19.99', swap_to: 'BTC' }, { value: '5000.01' }, { value: '99999999999999999999' }]) {
    assertError(await create({ email: 'b@example.com', euid, ...extra }), 400, 'value_out_of_range', 'value')
  }
  for (const value of ['10,00', '10.001', '-10', 'ten', '', ' 10', '1e3', 10.001, true, null, [], {}]) {
    assertError(await create({ email: 'b@example.com', euid, value }), 400, 'value_invalid', 'value')
  }
})

test('payer identity: euid or tax_number is required; R$ 10,00 without euid; the first tier is R$ 499,00', async () => {
  assertError(await create({ value: '10.00', email: 'p@example.com' }), 400, 'payer_identity_required')
  assertError(await create({ value: '10.01', email: 'p@example.com', tax_number: '11144477735' }), 400, 'euid_required', 'euid')
  assertError(await create({ value: '10.00', email: 'p@example.com', tax_number: '11144477736' }), 400, 'tax_number_invalid', 'tax_number')
  assertError(await create({ value: '10.00', email: 'p@example.com', tax_number: 11144477735 }), 400, 'tax_number_invalid', 'tax_number')
  assertError(await create({ value: '10.00', email: 'p@example.com', euid: 'EU1' }), 400, 'euid_invalid', 'euid')
  assertError(await create({ value: '10.00', email: 'p@example.com', euid: 'EU999999999999999' }), 400, 'euid_unknown', 'euid')
  assert.equal((await create({ value: '10.00', email: 'p@example.com', tax_number: '12ABC34501DE35' })).status, 200)
  const euid = await knownEuid('39053344705')
  assert.equal((await create({ value: '499.00', email: 'p@example.com', euid })).status, 200)
  assertError(await create({ value: '499.01', email: 'p@example.com', euid }), 400, 'payer_limit_exceeded', 'value')
  assertError(await create({ value: '499.01', email: 'p@example.com', euid, tax_number: '39053344705' }), 400, 'payer_limit_exceeded', 'value')
})

test('prior MED blocks the e-mail, the tax number and the EUID: end_user_blocked (403)', async () => {
  const euid = await knownEuid('93541134780')
  await service.store.identities.addBlock({ kind: 'email', value: 'fraud@example.com', reason: 'MED', charge_id: null, created_by: 'test', created_at: T0 })
  await service.store.identities.addBlock({ kind: 'tax_number', value: '28625587887', reason: 'MED', charge_id: null, created_by: 'test', created_at: T0 })
  await service.store.identities.addBlock({ kind: 'euid', value: euid, reason: 'MED', charge_id: null, created_by: 'test', created_at: T0 })
  // An e-mail with an account already (read with the blocks in one statement) and a new one.
  assert.equal((await create({ value: '10.00', email: 'returning@example.com', tax_number: '11144477735' })).status, 200)
  await service.store.identities.addBlock({ kind: 'email', value: 'blocked-returning@example.com', reason: 'MED', charge_id: null, created_by: 'test', created_at: T0 })
  await service.store.accounts.ensure('blocked-returning@example.com', T0)
  const before = await chargeCount()
  assertError(await create({ value: '10.00', email: 'FRAUD@example.com', tax_number: '11144477735' }), 403, 'end_user_blocked')
  assertError(await create({ value: '10.00', email: 'Blocked-Returning@example.com', tax_number: '11144477735' }), 403, 'end_user_blocked')
  for (const email of ['ok@example.com', 'returning@example.com']) {
    assertError(await create({ value: '10.00', email, tax_number: '286.255.878-87' }), 403, 'end_user_blocked')
    assertError(await create({ value: '10.00', email, euid }), 403, 'end_user_blocked')
  }
  assert.equal(await chargeCount(), before)
})

test('an unknown e-mail creates that customer account; the charge is the merchant\'s', async () => {
  const response = await create({ value: '10.00', email: 'Brand.New@Example.com', tax_number: '11144477735' })
  assert.equal(response.status, 200)
  const account = await service.store.accounts.findByEmail('brand.new@example.com')
  assert.ok(account)
  const charge = await service.store.charges.findById(response.body.id)
  assert.equal(charge?.account_id, account.id)
  assert.notEqual(charge?.merchant_account_id, account.id)
})

test('Idempotency-Key: same body replays, another body is reused (409), in flight is in use (409)', async () => {
  const body = { value: '10.00', email: 'idem@example.com', tax_number: '11144477735' }
  const before = await chargeCount()
  const first = await create(body, { 'idempotency-key': 'order-1' })
  const again = await create({ tax_number: '11144477735', email: 'idem@example.com', value: '10.00' }, { 'idempotency-key': 'order-1' })
  assert.equal(first.status, 200)
  assert.deepEqual(again.body, first.body)
  assert.equal(await chargeCount(), before + 1)
  assertError(await create({ ...body, email: 'other@example.com' }, { 'idempotency-key': 'order-1' }), 409, 'idempotency_key_reused')

  const merchant = await service.store.accounts.findByEmail('shop@example.com')
  await service.store.idempotency.claim(merchant!.id, 'order-2', requestHash(body), 'f'.repeat(32), service.clock.now())
  const inUse = await create(body, { 'idempotency-key': 'order-2' })
  assertError(inUse, 409, 'idempotency_key_in_use')
  assert.equal(inUse.headers['retry-after'], '60')
  // The owner of order-2 never finished (it died): once its lease lapses, a retry makes the charge, once.
  service.sandbox!.clock.advance(61)
  const resumed = await create(body, { 'idempotency-key': 'order-2' })
  assert.equal(resumed.status, 200)
  assert.equal(resumed.body.id, 'f'.repeat(32))
  assert.deepEqual((await create(body, { 'idempotency-key': 'order-2' })).body, resumed.body)
  assertError(await create(body, { 'idempotency-key': 'x'.repeat(256) }), 400, 'idempotency_key_invalid')

  // A failed request gives its key back: the corrected retry succeeds under the same key.
  assertError(await create({ ...body, value: '10.01' }, { 'idempotency-key': 'order-3' }), 400, 'euid_required')
  assert.equal((await create(body, { 'idempotency-key': 'order-3' })).status, 200)

  // Keys are kept 24 h, then forgotten.
  service.sandbox!.clock.advance(24 * 3600 + 1)
  const later = await create(body, { 'idempotency-key': 'order-1' })
  assert.equal(later.status, 200)
  assert.notEqual(later.body.id, first.body.id)
})

test('webhook_url: sandbox accepts http and loopback; malformed URLs and secrets are refused', async () => {
  const base = { value: '10.00', email: 'w@example.com', tax_number: '11144477735' }
  assert.equal((await create({ ...base, webhook_url: 'http://127.0.0.1:9999/hook', webhook_secret: 'whsec_abc' })).status, 200)
  assertError(await create({ ...base, webhook_url: 'javascript:alert(1)' }), 400, 'webhook_url_invalid', 'webhook_url')
  assertError(await create({ ...base, webhook_url: 42 }), 400, 'webhook_url_invalid', 'webhook_url')
  assertError(await create({ ...base, webhook_secret: '' }), 400, 'webhook_secret_invalid', 'webhook_secret')
})

test('request shape: unknown fields, wrong types, bad JSON, wrong media type, huge and odd bodies are 4xx with a code', async () => {
  const base = { value: '10.00', email: 'shape@example.com', tax_number: '11144477735' }
  const before = await chargeCount()
  assertError(await create({ ...base, amount: 10 }), 400, 'invalid_request', 'amount')
  assertError(await create({ ...base, email: 'not-an-email' }), 400, 'email_invalid', 'email')
  assertError(await create({ value: '10.00', tax_number: '11144477735' }), 400, 'email_invalid', 'email')
  assertError(await create({ ...base, swap_to: 'ETH' }), 400, 'swap_to_invalid', 'swap_to')
  assertError(await create({ ...base, swap_to: 'btc' }), 400, 'swap_to_invalid', 'swap_to')
  assertError(await create([base]), 400, 'invalid_request')
  assertError(await create('just a string'), 400, 'invalid_request')
  assertError(await service.request({ method: 'POST', url: '/api/create-payment', token, payload: '{"value": "10.00",' }), 400, 'invalid_json')
  // An empty body is no body: create-payment needs one (a body-less POST elsewhere accepts it).
  assertError(await service.request({ method: 'POST', url: '/api/create-payment', token, payload: '' }), 400, 'invalid_request')
  assertError(await service.request({ method: 'POST', url: '/api/create-payment', token, payload: 'value=10', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type')
  assertError(await create({ ...base, payer_name: 'x'.repeat(70_000) }), 413, 'body_too_large')
  assertError(await service.request({ method: 'POST', url: '/api/create-payment', token, payload: '{"value":"10.00","email":"shape@example.com","tax_number":"11144477735","payer_name":"\\ud800"}' }), 400, 'invalid_request', 'payer_name')
  assertError(await create({ ...base, payer_name: 'Ana\u0000' }), 400, 'invalid_request', 'payer_name')
  assertError(await create({ ...base, email: 'josé@exámple.com' }), 400, 'email_invalid', 'email')
  assertError(await create({ ...base, ['__proto__']: { admin: true } }), 400, 'invalid_json')
  assert.equal(await chargeCount(), before)
  // Unicode that is well-formed is kept as sent.
  const named = await create({ ...base, payer_name: 'José Açaí 🌴' })
  assert.equal(named.status, 200)
  assert.equal((await service.store.charges.findById(named.body.id))?.informed_payer_name, 'José Açaí 🌴')
})

test('authentication comes before body validation', async () => {
  const response = await service.request({ method: 'POST', url: '/api/create-payment', payload: '{bad' })
  assertError(response, 401, 'token_missing')
})

test('the payer-limit ladder is configurable', async () => {
  const custom = await startTestService({ PAYER_LIMIT_LADDER: '0:0:20.00' })
  try {
    const merchant = await custom.merchant('ladder@example.com', '52998224725')
    const euid = (await custom.sandbox!.fake.endUser('11144477735', 'Payer')).euid
    const call = (value: string) => custom.api.post('/api/create-payment', { value, email: 'l@example.com', euid }, { token: merchant.token })
    assert.equal((await call('20.00')).status, 200)
    assertError(await call('20.01'), 400, 'payer_limit_exceeded', 'value')
  } finally {
    await custom.close()
  }
})

test('provider down: 503 provider_unavailable with Retry-After, nothing stored, the idempotency key given back', async () => {
  const down = await startTestService()
  try {
    const merchant = await down.merchant('down@example.com', '52998224725')
    await down.sandbox!.fake.close()
    const body = { value: '10.00', email: 'c@example.com', tax_number: '11144477735' }
    const response = await down.api.post('/api/create-payment', body, { token: merchant.token, headers: { 'idempotency-key': 'k1' } })
    assertError(response, 503, 'provider_unavailable')
    // Safe to retry with the same key, after the time it says.
    assert.equal(response.headers['retry-after'], '5')
    const rows = await down.database.db.selectFrom('idempotency_keys').selectAll().execute()
    assert.deepEqual(rows, [])
    assert.deepEqual(await down.database.db.selectFrom('charges').selectAll().execute(), [])
  } finally {
    await down.close().catch(() => {})
  }
})

test('small frictions: a Bearer token gets a hint to use X-API-Token; body-less POSTs accept an empty JSON body; text/plain is 415', async () => {
  const bearer = await service.api.get('/api/get-balance', { headers: { authorization: `Bearer ${token}` } })
  assert.equal(bearer.status, 401)
  assert.equal(bearer.body.code, 'token_missing')
  assert.match(bearer.body.error, /X-API-Token/)
  const pending = await service.request({ method: 'POST', url: '/sandbox/accounts/shop@example.com/tokens', body: { kind: 'pending' } })
  const activated = await service.app.inject({ method: 'POST', url: `/ops/tokens/${pending.body.token_id}/activate`, headers: { authorization: `Bearer ${service.opsToken}`, 'content-type': 'application/json' }, payload: '' })
  assert.equal(activated.statusCode, 200, activated.body)
  const again = await service.request({ method: 'POST', url: '/sandbox/accounts/shop@example.com/tokens', body: { kind: 'pending' } })
  const bare = await service.app.inject({ method: 'POST', url: `/ops/tokens/${again.body.token_id}/activate`, headers: { authorization: `Bearer ${service.opsToken}` } })
  assert.equal(bare.statusCode, 200, bare.body)
  const plain = await service.app.inject({ method: 'POST', url: '/api/create-payment', headers: { 'x-api-token': again.body.token, 'content-type': 'text/plain' }, payload: '{}' })
  assert.equal(plain.statusCode, 415)
  assert.equal(plain.json().code, 'unsupported_media_type')
})
