import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { T0, startTestService, type TestService } from '../support/harness.ts'

let service: TestService
let alice: { token: string }
let bob: { token: string }
before(async () => {
  service = await startTestService()
  alice = await service.merchant('alice@example.com', '52998224725')
  bob = await service.merchant('bob@example.com', '11144477735')
})
after(() => service.close())

test('get-payment answers the contract record of the merchant\'s own charge', async () => {
  const created = await service.api.post('/api/create-payment', { value: '10.00', email: 'c@example.com', tax_number: '12345678909' }, { token: alice.token })
  assert.equal(created.status, 200)
  const record = await service.api.get(`/api/get-payment/${created.body.id}`, { token: alice.token })
  assert.equal(record.status, 200)
  assert.deepEqual(record.body, {
    qrId: created.body.id,
    status: 'waiting_payment',
    payerName: null,
    payerTaxNumber: null,
    payerEuid: null,
    amount: 1000,
    paidAmount: null,
    updatedAt: T0.toISOString(),
    holdReason: null,
    metadata: {},
    refundedAmount: 0,
  })
})

test('another account\'s charge, an unknown id and a malformed id are all payment_not_found (404)', async () => {
  const created = await service.api.post('/api/create-payment', { value: '10.00', email: 'c@example.com', tax_number: '12345678909' }, { token: alice.token })
  assert.equal(created.status, 200)
  for (const [token, id] of [[bob.token, created.body.id], [alice.token, 'f'.repeat(32)], [alice.token, 'not-an-id'], [alice.token, "1' or '1'='1"]]) {
    const response = await service.api.get(`/api/get-payment/${encodeURIComponent(id!)}`, { token: token! })
    assert.equal(response.status, 404)
    assert.equal(response.body.code, 'payment_not_found')
  }
})

test('get-balance answers the token\'s own account in every currency with the spec formats', async () => {
  const response = await service.api.get('/api/get-balance', { token: bob.token })
  assert.equal(response.status, 200)
  assert.deepEqual(response.body, {
    email: 'bob@example.com',
    balances: {
      DEPIX: { available_cents: 0, available_brl: 'R$ 0,00' },
      BTC: { available_sats: 0, available_btc: '0.00000000' },
      USDt: { available_cents_USDt: 0, available_USDt: '0.000000' },
    },
  })
})

test('unknown routes answer the error body with not_found', async () => {
  const response = await service.request({ method: 'GET', url: '/api/nothing-here', token: bob.token })
  assert.equal(response.status, 404)
  assert.equal(response.body.code, 'not_found')
  assert.match(String(response.headers['x-request-id']), /^req_[0-9a-f]{24}$/)
  assert.equal(response.body.request_id, response.headers['x-request-id'])
})

test('request ids are random and never repeat, also past a refill of their random pool', async () => {
  const ids = new Set<string>()
  for (let i = 0; i < 300; i++) {
    const response = await service.api.get('/healthz')
    ids.add(String(response.headers['x-request-id']))
  }
  assert.equal(ids.size, 300)
  // Random, not counted: consecutive ids share no long common prefix.
  const sorted = [...ids]
  const shared = sorted.slice(1).filter((id, i) => id.slice(0, 12) === sorted[i]!.slice(0, 12)).length
  assert.ok(shared < 3, `${shared} consecutive ids share their first 8 hex digits`)
})
