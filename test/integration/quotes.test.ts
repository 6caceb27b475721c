// "Over the quote at the moment" (spec section 1): BTC and USDt credits use the price the public
// ticker gives at confirmation, fetched over HTTP; the operator's override wins while set; a
// price older than QUOTE_MAX_AGE_SECONDS is never used: the payment is held (quote_unavailable).
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { startTestService, type TestService } from '../support/harness.ts'

let service: TestService
let token: string
let euid: string
let payer: string
before(async () => {
  service = await startTestService({ QUOTE_MAX_AGE_SECONDS: '120' })
  token = (await service.merchant('quotes@example.com', '52998224725')).token
  payer = generateCpf()
  euid = (await service.sandbox!.fake.endUser(payer, 'Payer')).euid
})
after(() => service.close())

async function paidBtcCharge(email: string) {
  const created = await service.request({ method: 'POST', url: '/api/create-payment', token, body: { value: '100.00', email, euid, swap_to: 'BTC' } })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  await service.pay(created.body.id, payer)
  return (await service.store.charges.findById(created.body.id))!
}

test('the ticker\'s price at confirmation converts, and is recorded with its source and time', async () => {
  await service.request({ method: 'PUT', url: '/sandbox/quotes', body: { BTC: '400000.00' } })
  const charge = await paidBtcCharge('buyer@example.com')
  assert.equal(charge.status, 'depix_sent')
  assert.equal(charge.quote_cents, 40_000_000)
  assert.equal(charge.quote_source, 'ticker')
  assert.equal(charge.quote_at!.getTime(), service.clock.now().getTime())
  // floor(9900 × 10^8 × 100 / (40 000 000 × 106))
  assert.equal(charge.credited_units, 23349)
})

test('when the ticker stops answering, its last price serves until it is too old; then the payment is held', async () => {
  await service.request({ method: 'PUT', url: '/sandbox/quotes', body: { BTC: '350000.00' } })
  assert.equal((await paidBtcCharge('buyer@example.com')).quote_cents, 35_000_000)
  service.sandbox!.ticker.setDown(true)
  try {
    service.sandbox!.clock.advance(100)
    const recent = await paidBtcCharge('buyer@example.com')
    assert.equal(recent.status, 'depix_sent')
    assert.equal(recent.quote_cents, 35_000_000)
    service.sandbox!.clock.advance(30)
    const stale = await paidBtcCharge('buyer@example.com')
    assert.equal(stale.status, 'security_hold')
    assert.equal(stale.hold_reason, 'quote_unavailable')
    assert.deepEqual(await service.database.db.selectFrom('ledger_postings').select('key').where('charge_id', '=', stale.id).execute(), [])
    const refused = await service.ops('POST', `/ops/payments/${stale.id}/review`, { decision: 'release', note: 'try' })
    assert.equal(refused.status, 409)
    assert.equal(refused.body.code, 'quote_unavailable')

    // The operator's override converts while it is set, and is recorded as such.
    assert.deepEqual((await service.ops('PUT', '/ops/quotes', { BTC: '300000.00' })).body, { BTC: '300000.00', USDt: null })
    const released = await service.ops('POST', `/ops/payments/${stale.id}/review`, { decision: 'release', note: 'quoted by hand' })
    assert.equal(released.body.status, 'depix_sent')
    const quoted = (await service.store.charges.findById(stale.id))!
    assert.equal(quoted.quote_cents, 30_000_000)
    assert.equal(quoted.quote_source, 'override')
    assert.deepEqual((await service.ops('PUT', '/ops/quotes', { BTC: null })).body, { BTC: null, USDt: null })
  } finally {
    service.sandbox!.ticker.setDown(false)
  }
  assert.equal((await paidBtcCharge('buyer@example.com')).quote_source, 'ticker')
})
