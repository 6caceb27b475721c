// Decisions 13: the provider's valueInCents decides the credit. Equal: as always; within 5 %:
// what arrived is credited and both figures kept; beyond, or unstated: security_hold
// (amount_mismatch) with nothing credited until support reviews it.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'

let service: TestService
let token: string
before(async () => {
  service = await startTestService()
  token = (await service.merchant('amounts@example.com', '52998224725')).token
})
after(() => service.close())

async function charge(email: string) {
  const payer = generateCpf()
  const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email, tax_number: payer }, { token }))
  return { id: created.id, payer }
}
const available = async (email: string) => (await service.store.ledger.balances((await service.store.accounts.findByEmail(email))!.id)).DEPIX

test('the amount that arrived is credited when within 5 %, and both figures are kept', async () => {
  const exact = await charge('exact@example.com')
  assert.equal((await service.pay(exact.id, exact.payer)).body.status, 'depix_sent')
  assert.equal(await available('exact@example.com'), 900)

  const more = await charge('more@example.com')
  const paid = await service.pay(more.id, more.payer, undefined, { paid_cents: 1050 })
  assert.equal(paid.body.status, 'depix_sent')
  assert.equal(paid.body.amount, 1000, 'get-payment amount stays the charge value')
  assert.equal(await available('more@example.com'), 950)
  const stored = (await service.store.charges.findById(more.id))!
  assert.equal(stored.value_cents, 1000)
  assert.equal(stored.paid_cents, 1050)
  assert.match(stored.bank_tx_id!, /^PIX_E/)
  assert.match(stored.blockchain_tx_id!, /^[0-9a-f]{64}$/)

  const less = await charge('less@example.com')
  assert.equal((await service.pay(less.id, less.payer, undefined, { paid_cents: 951 })).body.status, 'depix_sent')
  assert.equal(await available('less@example.com'), 851)
})

test('beyond 5 %, or no amount on depix_sent, is held as amount_mismatch with nothing credited, and support sees both figures', async () => {
  const far = await charge('far@example.com')
  assert.equal((await service.pay(far.id, far.payer, undefined, { paid_cents: 1100 })).body.status, 'security_hold')
  assert.equal(await available('far@example.com'), 0)
  const hold = (await service.ops('GET', '/ops/holds')).body.holds.find((entry: { payment_id: string }) => entry.payment_id === far.id)
  assert.equal(hold.reason, 'amount_mismatch')
  assert.equal(hold.value_in_cents, 1000)
  assert.equal(hold.paid_in_cents, 1100)
  assert.match(hold.bank_tx_id, /^PIX_E/)
  assert.deepEqual(await service.database.db.selectFrom('ledger_postings').select('key').where('charge_id', '=', far.id).execute(), [])
  // Released by support: what arrived is credited.
  const review = await service.ops('POST', `/ops/payments/${far.id}/review`, { decision: 'release', note: 'payer sent R$ 11,00 on purpose' })
  assert.equal(review.body.status, 'depix_sent')
  assert.equal(await available('far@example.com'), 1000)

  const silent = await charge('silent@example.com')
  const deposit = (await service.store.charges.findById(silent.id))!.provider_deposit_id
  const euid = (await service.sandbox!.fake.endUser(silent.payer, 'Payer')).euid
  const answer = await service.providerWebhook('deposit', { qrId: deposit, status: 'depix_sent', payerName: 'Payer', payerTaxNumber: silent.payer, payerEUID: euid })
  assert.equal(answer.status, 200)
  const held = (await service.store.charges.findById(silent.id))!
  assert.equal(held.status, 'security_hold')
  assert.equal(held.hold_reason, 'amount_mismatch')
})

test('every report is kept on the charge\'s timeline in arrival order, the status it caused after it; a repeated one moves nothing, and what it adds is kept', async () => {
  const paid = await charge('timeline@example.com')
  const deposit = (await service.store.charges.findById(paid.id))!.provider_deposit_id
  const report = { qrId: deposit, status: 'depix_sent', valueInCents: 1000, payerName: 'Payer', payerTaxNumber: paid.payer }
  assert.equal((await service.providerWebhook('deposit', report)).status, 200)
  assert.equal((await service.providerWebhook('deposit', report)).status, 200)
  assert.equal((await service.providerWebhook('deposit', { ...report, bankTxId: 'E00000000202611270000000000000001' })).status, 200)

  const events = await service.store.console.chargeEvents(paid.id)
  assert.deepEqual(events.map((event) => [event.kind, event.source, event.from_status, event.to_status]), [
    ['report', 'webhook', null, null],
    ['status', 'money_arrived', 'waiting_payment', 'depix_sent'],
    ['report', 'webhook', null, null],
    ['report', 'webhook', null, null],
  ])
  assert.equal((events[3]!.body as { bankTxId: string }).bankTxId, 'E00000000202611270000000000000001', 'the report as the provider said it')
  const stored = (await service.store.charges.findById(paid.id))!
  assert.equal(stored.status, 'depix_sent')
  assert.equal(stored.payer_name, 'Payer')
  assert.equal(stored.bank_tx_id, 'E00000000202611270000000000000001', 'kept by a report that moved nothing')
  assert.equal(await available('timeline@example.com'), 900, 'credited once')
})
