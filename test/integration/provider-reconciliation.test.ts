// Nothing falls between provider webhooks: the deposit sweep (GET /deposits) applies payments
// whose webhook never came, and deposits that match no charge (an unknown qrId, a paid deposit we
// have no charge for, a deposit whose creation reply was lost) are kept and listed for support.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { startTestService, type TestService } from '../support/harness.ts'

let service: TestService
let token: string
before(async () => {
  // Short enough for the lost reply below to be given up on quickly, long enough that no other
  // provider call times out on a loaded machine (one did at 300 ms, and its late deposit was then
  // kept as a second lost reply).
  service = await startTestService({ PROVIDER_TIMEOUT_MS: '1500' })
  token = (await service.merchant('sweep-shop@example.com', '52998224725')).token
})
after(() => service.close())

const create = async (email: string, payer: string) => {
  const created = await service.request({ method: 'POST', url: '/api/create-payment', token, body: { value: '10.00', email, tax_number: payer } })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  return (await service.store.charges.findById(created.body.id))!
}
const unknownDeposits = async () => (await service.ops('GET', '/ops/unknown-deposits')).body.deposits as Array<{ qr_id: string; seen_by: string; status: string; value_in_cents: number }>

test('a payment whose webhook never came is applied by the next sweep, before per-charge reconciliation would look', async () => {
  const payer = generateCpf()
  const charge = await create('sweep-lost@example.com', payer)
  await service.sandbox!.fake.settle(charge.provider_deposit_id, { payerName: 'Payer', payerTaxNumber: payer, outcome: 'depix_sent', lost: true })
  assert.equal((await service.store.charges.findById(charge.id))!.status, 'waiting_payment')
  await service.advance(61)
  assert.equal((await service.store.charges.findById(charge.id))!.status, 'depix_sent')
})

test('a webhook for an unknown qrId is stored and listed for support', async () => {
  const answer = await service.providerWebhook('deposit', { qrId: 'e'.repeat(32), status: 'depix_sent', valueInCents: 5000, payerName: 'Stranger', payerTaxNumber: '***.444.777-**', bankTxId: `PIX_E${'1'.repeat(32)}` })
  assert.equal(answer.status, 200)
  const listed = (await unknownDeposits()).find((deposit) => deposit.qr_id === 'e'.repeat(32))
  assert.ok(listed)
  assert.equal(listed.seen_by, 'webhook')
  assert.equal(listed.value_in_cents, 5000)
})

test('a paid deposit the sweep finds with no charge of ours is kept for support', async () => {
  const payer = generateCpf()
  const charge = await create('sweep-orphan@example.com', payer)
  // The charge is gone from our side (as if its creation was never stored), the deposit is paid.
  await service.database.db.deleteFrom('charges').where('id', '=', charge.id).execute()
  await service.sandbox!.fake.settle(charge.provider_deposit_id, { payerName: 'Payer', payerTaxNumber: payer, outcome: 'depix_sent', lost: true })
  await service.advance(61)
  const listed = (await unknownDeposits()).find((deposit) => deposit.qr_id === charge.provider_deposit_id)
  assert.ok(listed)
  assert.equal(listed.seen_by, 'sweep')
  assert.equal(listed.status, 'depix_sent')
})

test('a lost reply to POST /deposit is looked up before answering, and what is found is kept for support', async () => {
  const gate = service.sandbox!.fake.holdDepositReplies()
  try {
    const refused = await service.request({ method: 'POST', url: '/api/create-payment', token, body: { value: '17.00', email: 'lost-reply@example.com', euid: (await service.sandbox!.fake.endUser(generateCpf(), 'P')).euid } })
    assert.equal(refused.status, 503)
    assert.equal(refused.body.code, 'provider_unavailable')
  } finally {
    gate.release()
  }
  const listed = (await unknownDeposits()).filter((deposit) => deposit.seen_by === 'lost_reply')
  assert.equal(listed.length, 1)
  assert.equal(listed[0]!.value_in_cents, 1700)
})
