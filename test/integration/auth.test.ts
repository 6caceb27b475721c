import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { hashToken } from '../../src/secrets/token-hash.ts'
import { refused } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'

let service: TestService
before(async () => {
  service = await startTestService()
})
after(() => service.close())

const balance = (token?: string) => service.api.get('/api/get-balance', { token })
const create = (token: string) => service.api.post('/api/create-payment', { value: '10.00', email: 'c@example.com', tax_number: '11144477735' }, { token })

/** The error body, checked field by field: the API's answers and the sandbox's alike. */
function assertError(response: { status: number; body: unknown }, status: number, code: string) {
  assert.equal(response.status, status, JSON.stringify(response.body))
  const body = response.body as Record<string, unknown>
  assert.equal(body.code, code)
  for (const field of ['error', 'docs_url', 'support_email', 'request_id']) assert.equal(typeof body[field], 'string', field)
  assert.equal(body.docs_url, `http://pix.test/docs#${code}`)
}

test('a missing or empty X-API-Token is token_missing (401)', async () => {
  assertError(await balance(), 401, 'token_missing')
  assertError(await balance(''), 401, 'token_missing')
})

test('an unknown token is token_not_found (401)', async () => {
  assertError(await balance('pxt_nope'), 401, 'token_not_found')
})

test('issuing a token activates it with the account EUID as merchantId and revokes the previous one', async () => {
  const first = await service.merchant('m1@example.com', '52998224725')
  assert.match(first.token, /^pxt_[A-Za-z0-9_-]{43}$/)
  assert.equal((await balance(first.token)).status, 200)
  const second = await service.request({ method: 'POST', url: '/sandbox/accounts/m1@example.com/tokens', body: {} })
  assert.equal(second.status, 200)
  assert.equal(second.body.merchant_id, first.euid)
  assert.notEqual(second.body.token, first.token)
  assertError(await balance(first.token), 403, 'token_inactive')
  assert.equal((await balance(second.body.token)).status, 200)
})

test('tokens are stored hashed, never in plain text', async () => {
  const merchant = await service.merchant('m2@example.com', '12345678909')
  const rows = await service.database.db.selectFrom('api_tokens').selectAll().execute()
  assert.ok(rows.every((row) => !Object.values(row).includes(merchant.token)))
  assert.ok(rows.some((row) => row.token_hash === hashToken(merchant.token)))
  // SHA-256 in hex, as every token already stored was hashed (the FIPS 180-2 vector for "abc").
  assert.equal(hashToken('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
})

test('an expired token is token_inactive (403)', async () => {
  await service.merchant('m3@example.com', '11222333000181')
  const issued = await service.request({
    method: 'POST', url: '/sandbox/accounts/m3@example.com/tokens', body: { expires_at: '2026-11-22T12:05:00Z' },
  })
  assert.equal((await balance(issued.body.token)).status, 200)
  service.sandbox!.clock.advance(300)
  assertError(await balance(issued.body.token), 403, 'token_inactive')
})

test('an earlier-revision pending token is token_pending (403) until support activates it', async () => {
  await service.merchant('m4@example.com', '00000000000191')
  const issued = await service.request({ method: 'POST', url: '/sandbox/accounts/m4@example.com/tokens', body: { kind: 'pending' } })
  assert.equal(issued.body.merchant_id, null)
  assertError(await balance(issued.body.token), 403, 'token_pending')
  assertError(await create(issued.body.token), 403, 'token_pending')
})

test('an earlier-revision token without merchantId reads, but charging is merchant_id_missing (403)', async () => {
  await service.merchant('m5@example.com', '12ABC34501DE35')
  const issued = await service.request({ method: 'POST', url: '/sandbox/accounts/m5@example.com/tokens', body: { kind: 'no_merchant_id' } })
  assert.equal((await balance(issued.body.token)).status, 200)
  assertError(await create(issued.body.token), 403, 'merchant_id_missing')
})

test('issuing needs a confirmed own purchase (kyc_purchase_required) with an EUID (kyc_identity_unidentified)', async () => {
  const none = await service.request({ method: 'POST', url: '/sandbox/accounts', body: { email: 'k1@example.com', tax_number: 'AA345678000A29', purchase: 'none' } })
  assert.deepEqual(none.body, { email: 'k1@example.com', euid: null })
  assertError(await service.request({ method: 'POST', url: '/sandbox/accounts/k1@example.com/tokens', body: {} }), 403, 'kyc_purchase_required')
  const unidentified = await service.request({ method: 'POST', url: '/sandbox/accounts', body: { email: 'k2@example.com', tax_number: '11.444.777/0001-61', purchase: 'unidentified' } })
  assert.deepEqual(unidentified.body, { email: 'k2@example.com', euid: null })
  assertError(await service.request({ method: 'POST', url: '/sandbox/accounts/k2@example.com/tokens', body: {} }), 403, 'kyc_identity_unidentified')
  assertError(await service.request({ method: 'POST', url: '/sandbox/accounts/nobody@example.com/tokens', body: {} }), 404, 'account_not_found')
})

test('one CPF belongs to one account', async () => {
  await service.merchant('owner-a@example.com', '71428793860')
  const taken = await service.request({ method: 'POST', url: '/sandbox/accounts', body: { email: 'owner-b@example.com', tax_number: '714.287.938-60' } })
  assertError(taken, 409, 'identity_taken')
})

test('a token never appears in any response but the issuing one', async () => {
  const merchant = await service.merchant('m6@example.com', '39053344705')
  const responses = [await balance(merchant.token), await create(merchant.token)]
  for (const response of responses) assert.ok(!JSON.stringify(response.body).includes(merchant.token))
})

test('a token revoked by another instance stops working within TOKEN_CACHE_MS (0 here: at once)', async () => {
  const strict = await startTestService({ TOKEN_CACHE_MS: '0' })
  try {
    const merchant = await strict.merchant('cache@example.com', '52998224725')
    const read = () => strict.api.get('/api/get-balance', { token: merchant.token })
    assert.equal((await read()).status, 200)
    // Another instance revokes: straight in the database, not through this instance's cache.
    await strict.database.db.updateTable('api_tokens').set({ status: 'revoked' }).where('id', '=', merchant.tokenId).execute()
    assert.equal(refused(await read()).code, 'token_inactive')
  } finally {
    await strict.close()
  }
})
