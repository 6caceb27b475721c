// Nothing falls between provider webhooks: the deposit sweep (GET /deposits, per status) applies
// payments and refunds whose webhook never came, per-charge reconciliation asks about every charge
// until it is final, and deposits that match no charge (an unknown qrId, a paid deposit we have no
// charge for, a deposit whose creation reply was lost) are kept and listed for support.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { sql } from 'kysely'
import { nextReconcileAt } from '../../src/domain/reconciliation.ts'
import { ok } from '../support/api.ts'
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
  const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email, tax_number: payer }, { token }))
  return (await service.store.charges.findById(created.id))!
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
    const refused = await service.api.post('/api/create-payment', { value: '17.00', email: 'lost-reply@example.com', euid: (await service.sandbox!.fake.endUser(generateCpf(), 'P')).euid }, { token })
    assert.equal(refused.status, 503)
    assert.equal(refused.body.code, 'provider_unavailable')
  } finally {
    gate.release()
  }
  const listed = (await unknownDeposits()).filter((deposit) => deposit.seen_by === 'lost_reply')
  assert.equal(listed.length, 1)
  assert.equal(listed[0]!.value_in_cents, 1700)
})

const reconcileJobs = (chargeId: string) =>
  service.database.db.selectFrom('jobs').select('run_at').where('kind', '=', 'reconcile_charge').where(sql`payload->>'chargeId'`, '=', chargeId).execute()

test('an under_review that lasts ten days, whose delivery webhook is lost, is still asked about and credited', async () => {
  const payer = generateCpf()
  const charge = await create('long-review@example.com', payer)
  assert.equal((await service.pay(charge.id, payer, 'under_review')).body.status, 'under_review')
  for (let day = 0; day < 10; day++) await service.advance(24 * 3600)
  assert.equal((await service.store.charges.findById(charge.id))!.status, 'under_review')
  await service.sandbox!.fake.settle(charge.provider_deposit_id, { payerName: 'Payer', payerTaxNumber: payer, outcome: 'depix_sent', lost: true })
  await service.advance(24 * 3600)
  assert.equal((await service.store.charges.findById(charge.id))!.status, 'depix_sent')
})

test('a credited charge whose "refunded" webhook is lost is found by the sweep of refunded deposits and taken back', async () => {
  const payer = generateCpf()
  const charge = await create('lost-refund@example.com', payer)
  await service.pay(charge.id, payer)
  await service.advance(20 * 24 * 3600)
  await service.sandbox!.fake.settle(charge.provider_deposit_id, { payerName: 'Payer', payerTaxNumber: payer, outcome: 'refunded', lost: true })
  // One /deposits call a minute for this status, each window twice the last while they come back
  // empty: the 90 days are read within a quarter of an hour, long before the next per-charge ask.
  for (let minute = 0; minute < 15 && (await service.store.charges.findById(charge.id))!.status !== 'refunded'; minute++) await service.advance(61)
  const after = (await service.store.charges.findById(charge.id))!
  assert.equal(after.status, 'refunded')
  assert.equal(after.taken_back_cents, 1000)
  assert.equal((await service.store.ledger.balances(after.account_id)).DEPIX, 0)
})

test('an unpaid charge stops being asked about soon after its QR and the provider\'s grace are over; a paid one keeps being asked', async () => {
  const payer = generateCpf()
  const unpaid = await create('unpaid@example.com', payer)
  const credited = await create('credited@example.com', generateCpf())
  // A charge's one job comes due at its expiry: the unpaid one expires then, and is asked about
  // from the schedule's first ask on; the credited one next when its first check after credit is due.
  const runsAfterCreation = async (charge: typeof unpaid) => (await reconcileJobs(charge.id)).map((job) => job.run_at.getTime() - charge.created_at.getTime())
  assert.deepEqual(await runsAfterCreation(unpaid), [10 * 60_000])
  await service.pay(credited.id, credited.informed_tax_number!)
  await service.advance(10 * 60)
  assert.equal((await service.store.charges.findById(unpaid.id))!.status, 'expired')
  assert.deepEqual(await runsAfterCreation(unpaid), [12 * 60_000])
  const creditedNow = (await service.store.charges.findById(credited.id))!
  assert.equal(creditedNow.status, 'depix_sent')
  assert.deepEqual((await reconcileJobs(credited.id)).map((job) => job.run_at), [nextReconcileAt({ status: 'depix_sent', createdAt: creditedNow.created_at, settledAt: creditedNow.confirmed_at }, creditedNow.created_at)])
  await service.advance(31 * 60)
  assert.deepEqual(await reconcileJobs(unpaid.id), [])
  assert.equal((await reconcileJobs(credited.id)).length, 1, 'credited: re-checked for 90 days')
})

test('an expire_charge job an earlier version queued still expires its charge', async () => {
  const charge = await create('earlier-version@example.com', generateCpf())
  await service.database.db.deleteFrom('jobs').where('kind', '=', 'reconcile_charge').where(sql`payload->>'chargeId'`, '=', charge.id).execute()
  await service.store.jobs.enqueue('expire_charge', { chargeId: charge.id }, charge.expires_at, charge.created_at)
  await service.advance(10 * 60)
  assert.equal((await service.store.charges.findById(charge.id))!.status, 'expired')
})
