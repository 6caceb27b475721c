// "Over the quote at the moment" (docs/rules.md#conversions), kept sane (docs/rules.md#quotes): BTC
// and USDt credits use the price the public ticker gives at confirmation, fetched over HTTP; a
// price more than 10 % from the last accepted one, or from the second source, is not used; an
// operator override wins until it expires; a price older than QUOTE_MAX_AGE_SECONDS is never used.
// Whatever is not used leaves the payment in security_hold (quote_unavailable), nothing credited.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { ok } from '../support/api.ts'
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

async function paidCharge(email: string, swapTo: 'BTC' | 'USDt' = 'BTC', value = '100.00') {
  const created = ok(await service.api.post('/api/create-payment', { value, email, euid, swap_to: swapTo }, { token }))
  await service.pay(created.id, payer)
  return (await service.store.charges.findById(created.id))!
}
const prices = (body: Record<string, unknown>) => service.request({ method: 'PUT', url: '/sandbox/quotes', body })
const postings = (id: string) => service.database.db.selectFrom('ledger_postings').select('key').where('charge_id', '=', id).execute()

test('the ticker\'s price at confirmation converts, and is recorded with its source and time', async () => {
  await prices({ BTC: '400000.00' })
  const charge = await paidCharge('buyer@example.com')
  assert.equal(charge.status, 'depix_sent')
  assert.equal(charge.quote_micros, 400_000_000_000)
  assert.equal(charge.quote_source, 'ticker')
  assert.equal(charge.quote_at!.getTime(), service.clock.now().getTime())
  // floor(9900 × 10^8 × 100 / (40 000 000 × 106))
  assert.equal(charge.credited_units, 23349)
})

test('when the ticker stops answering, its last price serves until it is too old; then the payment is held', async () => {
  await prices({ BTC: '350000.00' })
  assert.equal((await paidCharge('buyer@example.com')).quote_micros, 350_000_000_000)
  service.sandbox!.ticker.setDown(true)
  try {
    service.sandbox!.clock.advance(100)
    const recent = await paidCharge('buyer@example.com')
    assert.equal(recent.status, 'depix_sent')
    assert.equal(recent.quote_micros, 350_000_000_000)
    service.sandbox!.clock.advance(30)
    const stale = await paidCharge('buyer@example.com')
    assert.equal(stale.status, 'security_hold')
    assert.equal(stale.hold_reason, 'quote_unavailable')
    assert.deepEqual(await postings(stale.id), [])
    const refused = await service.ops('POST', `/ops/payments/${stale.id}/review`, { decision: 'release', note: 'try' })
    assert.equal(refused.status, 409)
    assert.equal(refused.body.code, 'quote_unavailable')

    // The operator's override converts while it is set, and is recorded as such.
    const set = await service.ops('PUT', '/ops/quotes', { BTC: '340000.00' })
    assert.deepEqual(set.body, { BTC: '340000.00', USDt: null, expires_at: { BTC: new Date(service.clock.now().getTime() + 3_600_000).toISOString(), USDt: null } })
    const released = await service.ops('POST', `/ops/payments/${stale.id}/review`, { decision: 'release', note: 'quoted by hand' })
    assert.equal(released.body.status, 'depix_sent')
    const quoted = (await service.store.charges.findById(stale.id))!
    assert.equal(quoted.quote_micros, 340_000_000_000)
    assert.equal(quoted.quote_source, 'override')
    assert.deepEqual((await service.ops('PUT', '/ops/quotes', { BTC: null })).body.BTC, null)
  } finally {
    service.sandbox!.ticker.setDown(false)
  }
  assert.equal((await paidCharge('buyer@example.com')).quote_source, 'ticker')
})

test('a ticker that jumps more than 10 % from the last accepted price is not used; the payment waits, nothing credited', async () => {
  await prices({ BTC: '350000.00' })
  assert.equal((await paidCharge('buyer@example.com')).status, 'depix_sent')
  // R$ 0,01: today this credited 1,792 BTC for R$ 20.
  await prices({ BTC: '0.01', jump: true })
  const wild = await paidCharge('buyer@example.com', 'BTC', '20.00')
  assert.equal(wild.status, 'security_hold')
  assert.equal(wild.hold_reason, 'quote_unavailable')
  assert.equal(wild.credited_units, null)
  assert.deepEqual(await postings(wild.id), [])
  // Within the band of the last accepted price: used, and it becomes the last accepted one.
  await prices({ BTC: '340000.00', jump: true })
  const moved = await paidCharge('buyer@example.com')
  assert.equal(moved.status, 'depix_sent')
  assert.equal(moved.quote_micros, 340_000_000_000)
  const accepted = (await service.ops('GET', '/ops/quotes')).body.accepted.find((row: { currency: string }) => row.currency === 'BTC')
  assert.deepEqual([accepted.price, accepted.source], ['340000.00', 'ticker'])
})

test('within the band, a price that would credit more than what arrived at the last accepted price plus 1 % waits too', async () => {
  await prices({ BTC: '350000.00' })
  // 8 % below the last accepted price: inside the 10 % band, but R$ 100,00 would credit 28 993
  // sats against a cap of 28 857 (R$ 100,00 at R$ 350.000,00, plus 1 %).
  await prices({ BTC: '322000.00', jump: true })
  const lower = await paidCharge('buyer@example.com')
  assert.equal(lower.status, 'security_hold')
  assert.equal(lower.hold_reason, 'quote_unavailable')
  // That price is now the last accepted one: the next charge converts at it.
  assert.equal((await paidCharge('buyer@example.com')).status, 'depix_sent')
  await prices({ BTC: '350000.00' })
})

test('a price the second public source disagrees with by more than 10 % is not used', async () => {
  await prices({ USDt: '5.40' })
  await prices({ USDt: '6.10', source: 'check' })
  const disputed = await paidCharge('buyer@example.com', 'USDt')
  assert.equal(disputed.status, 'security_hold')
  assert.equal(disputed.hold_reason, 'quote_unavailable')
  await prices({ USDt: '5.40', source: 'check' })
  assert.equal((await paidCharge('buyer@example.com', 'USDt')).status, 'depix_sent')
})

test('USDt prices keep four decimals and more', async () => {
  await prices({ USDt: '5.4321' })
  const charge = await paidCharge('buyer@example.com', 'USDt')
  assert.equal(charge.quote_micros, 5_432_100)
  // floor(9900 × 10^6 × 100 / (543.21 × 102)): at R$ 5,43 it would be 17874553.
  assert.equal(charge.credited_units, 17867642)
  assert.deepEqual((await service.ops('PUT', '/ops/quotes', { USDt: '5.4322' })).body.USDt, '5.4322')
  await service.ops('PUT', '/ops/quotes', { USDt: null })
})

test('an override expires (1 h by default, a day at most) and may not stray from the market unless forced', async () => {
  await prices({ BTC: '350000.00' })
  const far = await service.ops('PUT', '/ops/quotes', { BTC: '100000.00' })
  assert.equal(far.status, 409)
  assert.equal(far.body.code, 'quote_out_of_band')
  assert.equal((await service.ops('PUT', '/ops/quotes', { BTC: '340000.00', expires_in_seconds: 86_401 })).body.code, 'invalid_request')
  assert.equal((await service.ops('PUT', '/ops/quotes', { BTC: '340000.00', expires_in_seconds: 600 })).status, 200)
  assert.equal((await paidCharge('buyer@example.com')).quote_source, 'override')
  service.sandbox!.clock.advance(601)
  const after = await paidCharge('buyer@example.com')
  assert.equal(after.quote_source, 'ticker', 'the override expired: the ticker counts again')
  assert.deepEqual((await service.ops('GET', '/ops/quotes')).body.overrides, { BTC: null, USDt: null, expires_at: { BTC: null, USDt: null } })
  // Forced: the operator's word on a market that really moved, audited.
  const forced = await service.ops('PUT', '/ops/quotes', { BTC: '100000.00', force: true })
  assert.equal(forced.status, 200)
  const audit = (await service.ops('GET', '/ops/audit')).body.entries.filter((entry: { action: string }) => entry.action === 'quotes.set')
  assert.equal(audit[0].details.force, true)
  await service.ops('PUT', '/ops/quotes', { BTC: null })
  await prices({ BTC: '350000.00' })
})
