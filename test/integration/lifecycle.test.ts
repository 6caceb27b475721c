// Every path of docs/rules.md#charge-statuses and #arrival-checks, scripted through the sandbox
// and read back through the public API.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import type { CreatePaymentRequest } from '../../sdk/src/types.ts'
import { ok, refused } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'

let service: TestService
let token: string
before(async () => {
  service = await startTestService()
  token = (await service.merchant('shop@example.com', '52998224725')).token
})
after(() => service.close())

const create = async (body: CreatePaymentRequest) => ok(await service.api.post('/api/create-payment', body, { token })).id
const record = async (id: string) => ok(await service.api.get(`/api/get-payment/${id}`, { token }))
/** A customer account with its own (verified) owner CPF and token, to read its balance. */
async function customer(email: string) {
  const account = await service.request({ method: 'POST', url: '/sandbox/accounts', body: { email, tax_number: generateCpf() } })
  assert.equal(account.status, 200, JSON.stringify(account.body))
  const issued = await service.request({ method: 'POST', url: `/sandbox/accounts/${email}/tokens`, body: {} })
  const customerToken = issued.body.token as string
  return {
    balances: async () => ok(await service.api.get('/api/get-balance', { token: customerToken })).balances,
    held: async () => service.store.ledger.balances((await service.store.accounts.findByEmail(email))!.id, 'held'),
  }
}
const euidOf = async (taxNumber: string) => (await service.sandbox!.fake.endUser(taxNumber, 'Payer Person')).euid

test('matching payer → depix_sent: value less R$ 1,00 credited as DEPIX, payer shown masked with EUID', async () => {
  const ana = await customer('ana@example.com')
  const id = await create({ value: '10.00', email: 'ana@example.com', tax_number: '11144477735' })
  const paid = await service.pay(id, '111.444.777-35')
  assert.equal(paid.status, 200, JSON.stringify(paid.body))
  assert.equal(paid.body.status, 'depix_sent')
  assert.equal(paid.body.payerTaxNumber, '***.444.777-**')
  assert.equal(paid.body.payerName, 'Payer Person')
  assert.equal(paid.body.payerEuid, await euidOf('11144477735'))
  assert.deepEqual(await record(id), paid.body)
  assert.deepEqual((await ana.balances()).DEPIX, { available_cents: 900, available_brl: 'R$ 9,00' })
})

test('the first purchase paid with the owner\'s own CPF gives the account its EUID and the right to a token', async () => {
  await service.request({ method: 'POST', url: '/sandbox/accounts', body: { email: 'newbie@example.com', tax_number: '12345678909', purchase: 'none' } })
  const before = await service.request({ method: 'POST', url: '/sandbox/accounts/newbie@example.com/tokens', body: {} })
  assert.equal(before.body.code, 'kyc_purchase_required')
  const id = await create({ value: '10.00', email: 'newbie@example.com', tax_number: '12345678909' })
  await service.pay(id, '12345678909')
  const issued = await service.request({ method: 'POST', url: '/sandbox/accounts/newbie@example.com/tokens', body: {} })
  assert.equal(issued.status, 200, JSON.stringify(issued.body))
  assert.equal(issued.body.merchant_id, await euidOf('12345678909'))
})

test('conversions: BTC and USDt at the recorded quote, with their exact figures and strings', async () => {
  const quotes = await service.request({ method: 'PUT', url: '/sandbox/quotes', body: { BTC: '350000.00', USDt: '5.40' } })
  assert.deepEqual(quotes.body, { BTC: '350000.00', USDt: '5.40' })
  const conv = await customer('conv@example.com')
  const payer = generateCpf()
  const euid = await euidOf(payer)
  const btc = await create({ value: '100.00', email: 'conv@example.com', euid, swap_to: 'BTC' })
  const usdt = await create({ value: '100.00', email: 'conv@example.com', euid, swap_to: 'USDt' })
  // The quote that counts is the one at confirmation, not at creation.
  await service.request({ method: 'PUT', url: '/sandbox/quotes', body: { USDt: '9.99' } })
  assert.equal((await service.pay(btc, payer)).body.status, 'depix_sent')
  await service.request({ method: 'PUT', url: '/sandbox/quotes', body: { USDt: '5.40' } })
  assert.equal((await service.pay(usdt, payer)).body.status, 'depix_sent')
  const charge = await service.store.charges.findById(btc)
  assert.equal(charge?.quote_micros, 350_000_000_000)
  assert.equal(charge?.credited_units, 26684)
  assert.equal((await service.store.charges.findById(usdt))?.credited_units, 17973856)
  const balance = await conv.balances()
  assert.deepEqual(balance.BTC, { available_sats: 26684, available_btc: '0.00026684' })
  assert.deepEqual(balance.USDt, { available_cents_USDt: 17973856, available_USDt: '17.973856' })
  assert.deepEqual(balance.DEPIX, { available_cents: 0, available_brl: 'R$ 0,00' })
})

test('third-party payer on an established customer → after7d: held, not available, released after 7 × 24 h', async () => {
  const held = await customer('held@example.com')
  const euid = await euidOf(generateCpf())
  const id = await create({ value: '50.00', email: 'held@example.com', euid, webhook_url: 'http://127.0.0.1:1/h' })
  const paid = await service.pay(id, generateCpf())
  assert.equal(paid.body.status, 'after7d')
  assert.equal((await held.balances()).DEPIX.available_cents, 0)
  assert.equal((await held.held()).DEPIX, 4900)
  await service.advance(7 * 24 * 3600 - 1)
  assert.equal((await record(id)).status, 'after7d')
  await service.advance(1)
  assert.equal((await record(id)).status, 'depix_sent')
  assert.equal((await held.balances()).DEPIX.available_cents, 4900)
  assert.equal((await held.held()).DEPIX, 0)
  const events = await service.database.db.selectFrom('webhook_events').select(['event']).where('charge_id', '=', id).orderBy('created_at').execute()
  assert.deepEqual(events.map((event) => event.event), ['payment.confirmed', 'balance.released'])
})

test('a different payer on a first, tax-number-only charge → security_hold, nothing credited', async () => {
  const id = await create({ value: '10.00', email: 'first@example.com', tax_number: generateCpf() })
  const stranger = generateCpf()
  const paid = await service.pay(id, stranger)
  assert.equal(paid.body.status, 'security_hold')
  const holds = await service.ops('GET', '/ops/holds')
  const hold = holds.body.holds.find((entry: { payment_id: string }) => entry.payment_id === id)
  assert.equal(hold.reason, 'payer_mismatch')
  assert.equal(hold.payer_tax_number, `***.${stranger.slice(3, 6)}.${stranger.slice(6, 9)}-**`)
  const credits = await service.database.db.selectFrom('ledger_postings').select('key').where('charge_id', '=', id).execute()
  assert.deepEqual(credits, [])
})

test('a prior MED on the e-mail, tax number or EUID → security_hold even through the API', async () => {
  const payer = generateCpf()
  const id = await create({ value: '10.00', email: 'later-blocked@example.com', tax_number: payer })
  const blocked = await service.ops('POST', '/ops/blocks', { email: 'later-blocked@example.com', reason: 'MED reported by phone' })
  assert.equal(blocked.status, 200, JSON.stringify(blocked.body))
  assert.equal((await service.pay(id, payer)).body.status, 'security_hold')
  assert.equal((await service.ops('GET', '/ops/holds')).body.holds.find((entry: { payment_id: string }) => entry.payment_id === id).reason, 'prior_med')
})

test('an identity bound to another account → security_hold', async () => {
  const payer = generateCpf()
  const seed = await create({ value: '10.00', email: 'owner1@example.com', tax_number: payer })
  assert.equal((await service.pay(seed, payer)).body.status, 'depix_sent')
  const id = await create({ value: '10.00', email: 'owner2@example.com', tax_number: payer })
  assert.equal((await service.pay(id, payer)).body.status, 'security_hold')
  assert.equal((await service.ops('GET', '/ops/holds')).body.holds.find((entry: { payment_id: string }) => entry.payment_id === id).reason, 'identity_bound_elsewhere')
})

test('an EUID bound to another account → security_hold, though the tax number is new', async () => {
  const euid = (await service.sandbox!.fake.endUser(generateCpf(), 'Payer With EUID')).euid
  const confirm = async (email: string) => {
    const payer = generateCpf()
    const id = await create({ value: '10.00', email, tax_number: payer })
    const qrId = (await service.store.charges.findById(id))!.provider_deposit_id
    const answer = await service.providerWebhook('deposit', { qrId, status: 'depix_sent', valueInCents: 1000, payerName: 'Payer', payerTaxNumber: payer, payerEUID: euid })
    assert.equal(answer.status, 200)
    return (await service.store.charges.findById(id))!
  }
  assert.equal((await confirm('euid-owner1@example.com')).status, 'depix_sent')
  const held = await confirm('euid-owner2@example.com')
  assert.equal(held.status, 'security_hold')
  assert.equal(held.hold_reason, 'identity_bound_elsewhere')
})

test('the merchant sees why a charge is held: holdReason in get-payment and the list, hold_reason in payment.held; null once it moves on', async () => {
  const payer = generateCpf()
  assert.equal((await service.pay(await create({ value: '10.00', email: 'seller-a@example.com', tax_number: payer }), payer)).body.status, 'depix_sent')
  const id = await create({ value: '10.00', email: 'seller-b@example.com', tax_number: payer, webhook_url: 'http://127.0.0.1:1/h', webhook_events: ['payment.held'] })
  assert.equal((await record(id)).holdReason, null)
  const held = await service.pay(id, payer)
  assert.equal(held.body.status, 'security_hold')
  assert.equal(held.body.holdReason, 'identity_bound_elsewhere')
  const listed = ok(await service.api.get('/api/payments?status=security_hold', { token }))
  assert.equal(listed.payments.find((payment) => payment.qrId === id)!.holdReason, 'identity_bound_elsewhere')
  const event = await service.database.db.selectFrom('webhook_events').select('body').where('charge_id', '=', id).where('event', '=', 'payment.held').executeTakeFirstOrThrow()
  assert.equal(JSON.parse(event.body).hold_reason, 'identity_bound_elsewhere')
  assert.equal((await service.ops('POST', `/ops/payments/${id}/review`, { decision: 'refund', note: 'paid the wrong seller' })).body.status, 'will_refund')
  assert.equal((await record(id)).holdReason, null)
})

test('cancel: a waiting charge becomes canceled (twice is the same answer); a paid one is 409; another merchant\'s is 404; a late payment is still credited', async () => {
  const payer = generateCpf()
  const id = await create({ value: '10.00', email: 'cancel@example.com', tax_number: payer })
  const cancel = (paymentId: string, as = token) => service.api.post(`/api/payments/${paymentId}/cancel`, undefined, { token: as })
  const canceled = await cancel(id)
  assert.equal(canceled.status, 200, JSON.stringify(canceled.body))
  assert.equal(canceled.body.status, 'canceled')
  assert.deepEqual((await cancel(id)).body, canceled.body)
  assert.deepEqual(await record(id), canceled.body)

  const other = (await service.merchant('other-shop@example.com', generateCpf())).token
  const foreign = await cancel(id, other)
  assert.equal(foreign.status, 404)
  assert.equal(foreign.body.code, 'payment_not_found')
  const unknown = await cancel('not-a-payment-id')
  assert.equal(unknown.status, 404)
  assert.equal(unknown.body.code, 'payment_not_found')

  // The provider cannot void the QR: the payer's bank paid it anyway, and that money is credited.
  const late = await service.pay(id, payer)
  assert.equal(late.body.status, 'depix_sent')
  const refused = await cancel(id)
  assert.equal(refused.status, 409)
  assert.equal(refused.body.code, 'payment_not_cancelable')
  assert.equal((await record(id)).status, 'depix_sent')
})

test('metadata: up to 20 keys of 1–40 characters with values up to 500 come back in get-payment, the list and the webhook; beyond is metadata_invalid', async () => {
  const metadata = Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`${'k'.repeat(38)}${String(index).padStart(2, '0')}`, 'ç'.repeat(500)]))
  // A maximum metadata of two-byte characters (about 20 kB) fits the default body limit.
  const payer = generateCpf()
  const id = await create({ value: '10.00', email: 'labels@example.com', tax_number: payer, metadata, webhook_url: 'http://127.0.0.1:1/h' })
  assert.deepEqual((await record(id)).metadata, metadata)
  // The clock stands still here: every charge has one created_at, so a page holds them by id.
  const listed = ok(await service.api.get('/api/payments?limit=100', { token }))
  assert.deepEqual(listed.payments.find((payment) => payment.qrId === id)!.metadata, metadata)
  await service.pay(id, payer)
  const event = await service.database.db.selectFrom('webhook_events').select('body').where('charge_id', '=', id).executeTakeFirstOrThrow()
  assert.deepEqual(JSON.parse(event.body).metadata, metadata)
  assert.deepEqual((await record(await create({ value: '10.00', email: 'labels@example.com', tax_number: payer }))).metadata, {})

  for (const [bad, why] of [
    [{ ...metadata, one_more: 'x' }, '21 keys'],
    [{ ['k'.repeat(41)]: 'x' }, 'a 41-character key'],
    [{ '': 'x' }, 'an empty key'],
    [{ order: 'ç'.repeat(501) }, 'a 501-character value'],
    [{ order: 1042 }, 'a number'],
    [{ order: { nested: 'x' } }, 'an object'],
    [['order', '1042'], 'a list'],
  ] as const) {
    const response = await service.api.postUntyped('/api/create-payment', { value: '10.00', email: 'labels@example.com', tax_number: payer, metadata: bad }, { token })
    assert.equal(response.status, 400, why)
    assert.equal(response.body.code, 'metadata_invalid', `${why}: ${JSON.stringify(response.body)}`)
  }
})

test('support review: release credits and sends the webhook; refund goes will_refund then refunded', async () => {
  const released = await create({ value: '10.00', email: 'review@example.com', tax_number: generateCpf(), webhook_url: 'http://127.0.0.1:1/h' })
  await service.pay(released, generateCpf())
  const review = await service.ops('POST', `/ops/payments/${released}/review`, { decision: 'release', note: 'payer confirmed by phone' })
  assert.equal(review.status, 200, JSON.stringify(review.body))
  assert.equal(review.body.status, 'after7d')
  assert.equal((await service.ops('POST', `/ops/payments/${released}/review`, { decision: 'release', note: 'again' })).body.code, 'payment_not_held')

  const refunded = await create({ value: '10.00', email: 'review@example.com', tax_number: generateCpf() })
  const stranger = generateCpf()
  await service.pay(refunded, stranger)
  assert.equal((await service.ops('POST', `/ops/payments/${refunded}/review`, { decision: 'refund', note: 'fraud' })).body.status, 'will_refund')
  assert.equal((await service.pay(refunded, stranger, 'refunded')).body.status, 'refunded')

  const audit = (await service.ops('GET', '/ops/audit')).body.entries
  const actions = audit.filter((entry: { subject: string }) => entry.subject === `payment:${released}` || entry.subject === `payment:${refunded}`)
  assert.deepEqual(actions.map((entry: { actor: string; action: string }) => [entry.actor, entry.action]).sort(), [['ana@support', 'review.refund'], ['ana@support', 'review.release']])
  assert.equal((await service.request({ method: 'GET', url: '/ops/holds' })).body.code, 'ops_token_missing')
  assert.equal((await service.request({ method: 'GET', url: '/ops/holds', headers: { authorization: 'Bearer nope' } })).body.code, 'ops_token_invalid')
})

test('expiry at 10 minutes; a payment arriving after expiry is still processed', async () => {
  const payer = generateCpf()
  const id = await create({ value: '10.00', email: 'late@example.com', tax_number: payer })
  await service.advance(599)
  assert.equal((await record(id)).status, 'waiting_payment')
  await service.advance(1)
  assert.equal((await record(id)).status, 'expired')
  assert.equal((await service.pay(id, payer)).body.status, 'depix_sent')
})

test('provider statuses map to ours', async () => {
  const cases: Array<[string, string]> = [['under_review', 'under_review'], ['pending', 'pending'], ['approved', 'pending'], ['error', 'error'], ['will_refund', 'will_refund'], ['canceled', 'canceled']]
  for (const [outcome, expected] of cases) {
    const payer = generateCpf()
    const id = await create({ value: '10.00', email: 'map@example.com', tax_number: payer })
    assert.equal((await service.pay(id, payer, outcome)).body.status, expected, outcome)
  }
})

test('duplicated webhooks credit once; a stale status never moves a charge backwards', async () => {
  const payer = generateCpf()
  const id = await create({ value: '20.00', email: 'dup@example.com', euid: await euidOf(payer) })
  assert.equal((await service.pay(id, payer, 'depix_sent', { duplicates: 3 })).body.status, 'depix_sent')
  assert.equal((await service.pay(id, payer, 'pending')).body.status, 'depix_sent')
  const postings = await service.database.db.selectFrom('ledger_postings').select('key').where('charge_id', '=', id).execute()
  assert.deepEqual(postings.map((posting) => posting.key), [`credit:${id}`])
})

test('a MED after credit debits what the payment credited and blocks its e-mail, tax number and EUID', async () => {
  const med = await customer('med@example.com')
  const id = await create({ value: '10.00', email: 'med@example.com', tax_number: '67635938134' })
  await service.pay(id, '67635938134')
  assert.equal((await med.balances()).DEPIX.available_cents, 900)
  const medded = await service.request({ method: 'POST', url: `/sandbox/payments/${id}/med`, body: {} })
  assert.equal(medded.body.status, 'refunded')
  assert.deepEqual((await med.balances()).DEPIX, { available_cents: 0, available_brl: 'R$ 0,00' })
  const again = await service.api.post('/api/create-payment', { value: '10.00', email: 'med@example.com', tax_number: generateCpf() }, { token })
  assert.equal(again.status, 403)
  assert.equal(again.body.code, 'end_user_blocked')
  const byCpf = await service.api.post('/api/create-payment', { value: '10.00', email: 'other@example.com', tax_number: '67635938134' }, { token })
  assert.equal(byCpf.status, 403)
  assert.equal(byCpf.body.code, 'end_user_blocked')
})

test('a MED after the balance was spent leaves it negative: -R$ 1,00 style strings', async () => {
  const neg = await customer('neg@example.com')
  const payer = generateCpf()
  const id = await create({ value: '10.00', email: 'neg@example.com', tax_number: payer })
  await service.pay(id, payer)
  const account = await service.store.accounts.findByEmail('neg@example.com')
  // A withdrawal is outside this service's API; post one to model the balance having been spent.
  await service.store.ledger.post({ key: 'test-withdrawal', kind: 'credit', entries: [
    { book: 'available', accountId: account!.id, currency: 'DEPIX', amount: -900 },
    { book: 'provider_clearing', accountId: null, currency: 'DEPIX', amount: 900 },
  ] }, null, new Date())
  await service.request({ method: 'POST', url: `/sandbox/payments/${id}/med`, body: {} })
  assert.deepEqual((await neg.balances()).DEPIX, { available_cents: -900, available_brl: '-R$ 9,00' })
})

test('a lost provider webhook is recovered by reconciliation', async () => {
  const payer = generateCpf()
  const id = await create({ value: '10.00', email: 'lost@example.com', tax_number: payer })
  const charge = await service.store.charges.findById(id)
  await service.sandbox!.fake.settle(charge!.provider_deposit_id, { payerName: 'Payer', payerTaxNumber: payer, outcome: 'depix_sent', lost: true })
  assert.equal((await record(id)).status, 'waiting_payment')
  await service.advance(300)
  assert.equal((await record(id)).status, 'depix_sent')
})

test('provider webhooks need the registered Basic secret', async () => {
  const response = await service.providerWebhook('deposit', { qrId: 'a'.repeat(32), status: 'depix_sent' }, 'Basic wrong')
  assert.equal(response.status, 401)
  assert.equal(response.body.code, 'provider_webhook_unauthorized')
  assert.equal((await service.providerWebhook('deposit', { qrId: 'a'.repeat(32), status: 'depix_sent' }, undefined)).status, 200)
  assert.equal((await service.providerWebhook('deposit', { nothing: true })).status, 400)
  assert.equal((await service.providerWebhook('med', { qrId: 'a'.repeat(32) })).status, 200)
})

test('the payer ladder climbs with confirmed history: 5 payments and 7 days → R$ 1.000', async () => {
  const payer = generateCpf()
  const euid = await euidOf(payer)
  const charge = (value: string) => service.api.post('/api/create-payment', { value, email: 'ladder@example.com', euid }, { token })
  const refused = async (value: string) => {
    const answer = await charge(value)
    assert.equal(answer.status, 400)
    return answer.body.code
  }
  assert.equal(await refused('500.00'), 'payer_limit_exceeded')
  for (let i = 0; i < 5; i++) {
    const created = ok(await charge('10.00'))
    assert.equal((await service.pay(created.id, payer)).body.status, 'depix_sent')
  }
  assert.equal(await refused('500.00'), 'payer_limit_exceeded')
  await service.advance(7 * 24 * 3600)
  assert.equal((await charge('1000.00')).status, 200)
  assert.equal(await refused('1000.01'), 'payer_limit_exceeded')
})

test('support: a pending token is activated, an unidentified account released', async () => {
  await service.request({ method: 'POST', url: '/sandbox/accounts', body: { email: 'old@example.com', tax_number: generateCpf() } })
  const pending = await service.request({ method: 'POST', url: '/sandbox/accounts/old@example.com/tokens', body: { kind: 'pending' } })
  const read = () => service.api.get('/api/get-balance', { token: pending.body.token })
  assert.equal(refused(await read()).code, 'token_pending')
  const activated = await service.ops('POST', `/ops/tokens/${pending.body.token_id}/activate`, { note: 'verified' })
  assert.equal(activated.status, 200, JSON.stringify(activated.body))
  assert.equal((await read()).status, 200)

  await service.request({ method: 'POST', url: '/sandbox/accounts', body: { email: 'stuck@example.com', tax_number: generateCpf(), purchase: 'unidentified' } })
  const released = await service.ops('POST', '/ops/accounts/stuck@example.com/identity', { euid: 'EU123451234512345', note: 'checked documents' })
  assert.deepEqual(released.body, { email: 'stuck@example.com', euid: 'EU123451234512345', kyc: 'verified' })
  assert.equal((await service.request({ method: 'POST', url: '/sandbox/accounts/stuck@example.com/tokens', body: {} })).status, 200)
})

test('a MED during the 7-day hold takes the held credit back, and the release then releases nothing', async () => {
  const held = await customer('held-med@example.com')
  const euid = await euidOf(generateCpf())
  const id = await create({ value: '30.00', email: 'held-med@example.com', euid, webhook_url: 'http://127.0.0.1:1/h' })
  assert.equal((await service.pay(id, generateCpf())).body.status, 'after7d')
  assert.equal((await held.held()).DEPIX, 2900)
  assert.equal((await service.request({ method: 'POST', url: `/sandbox/payments/${id}/med`, body: {} })).body.status, 'refunded')
  assert.equal((await held.held()).DEPIX, 0)
  await service.advance(7 * 24 * 3600)
  assert.equal((await record(id)).status, 'refunded')
  assert.equal((await held.balances()).DEPIX.available_cents, 0)
  const keys = await service.database.db.selectFrom('ledger_postings').select('key').where('charge_id', '=', id).orderBy('id').execute()
  assert.deepEqual(keys.map((posting) => posting.key), [`credit:${id}`, `clawback:${id}:3000`])
  const events = await service.database.db.selectFrom('webhook_events').select('event').where('charge_id', '=', id).execute()
  assert.deepEqual(events.map((event) => event.event), ['payment.confirmed'])
})
