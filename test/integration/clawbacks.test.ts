// Money the provider takes back, refunds owed and what arrived (docs/rules.md#clawbacks), through the public
// API, the provider's webhooks, the sandbox controls and /ops, with the books checked after each.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import type { CreatePaymentRequest } from '../../sdk/src/types.ts'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'

let service: TestService
let token: string
before(async () => {
  service = await startTestService()
  token = (await service.merchant('clawback-shop@example.com', '52998224725')).token
})
after(() => service.close())

type Created = { id: string; payer: string; depositId: string }
async function create(email: string, body: Partial<CreatePaymentRequest> = {}): Promise<Created> {
  const payer = generateCpf()
  const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email, tax_number: payer, ...body }, { token }))
  return { id: created.id, payer, depositId: (await service.store.charges.findById(created.id))!.provider_deposit_id }
}
/** A BTC charge to the given payer's identity. */
const createBtc = async (value: string, email: string, euid: string) => ok(await service.api.post('/api/create-payment', { value, email, euid, swap_to: 'BTC' }, { token }))
const record = async (id: string) => ok(await service.api.get(`/api/get-payment/${id}`, { token }))
const med = async (id: string, body: Record<string, unknown> = {}) => {
  const answer = await service.request({ method: 'POST', url: `/sandbox/payments/${id}/med`, body })
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  return answer.body
}
const charge = async (id: string) => (await service.store.charges.findById(id))!
const balances = async (email: string, book: 'available' | 'held' = 'available') => service.store.ledger.balances((await service.store.accounts.findByEmail(email))!.id, book)
const review = (id: string, body: Record<string, unknown>) => service.ops('POST', `/ops/payments/${id}/review`, { note: 'checked', ...body })
const hold = async (id: string) => ((await service.ops('GET', '/ops/holds')).body.holds as Array<Record<string, any>>).find((entry) => entry.payment_id === id)!
async function assertBooksBalance() {
  const check = (await service.ops('GET', '/ops/ledger-check')).body
  assert.equal(check.ok, true, JSON.stringify(check))
}

test('a MED on a held charge is recorded, shown to support, and the charge can never be released to the account', async () => {
  const held = await create('held-med@example.com')
  assert.equal((await service.pay(held.id, generateCpf())).body.status, 'security_hold')
  await med(held.id)
  const release = await review(held.id, { decision: 'release' })
  const none = { DEPIX: 0, BTC: 0, USDt: 0 }
  assert.deepEqual([await balances('held-med@example.com'), await balances('held-med@example.com', 'held')], [none, none], 'nothing credited after the MED')
  assert.equal(release.status, 409)
  assert.equal(release.body.code, 'payment_taken_back')
  const shown = await hold(held.id)
  assert.equal(shown.clawback, 'med')
  assert.equal(shown.taken_back_cents, 1000)
  assert.deepEqual(shown.clawbacks.map((report: { kind: string; principal_cents: number }) => [report.kind, report.principal_cents]), [['med', 1000]])
  assert.deepEqual(shown.decisions, ['close'])
  const fresh = await create('held-fresh@example.com')
  await service.pay(fresh.id, generateCpf())
  assert.deepEqual((await hold(fresh.id)).decisions, ['release', 'refund'])
  const closed = await review(held.id, { decision: 'close' })
  assert.equal(closed.body.status, 'refunded')
  assert.deepEqual(await balances('held-med@example.com'), { DEPIX: 0, BTC: 0, USDt: 0 })
  await assertBooksBalance()
})

test('the provider\'s will_refund, then refunded, on a held charge stop any release; it is closed once the provider returned it', async () => {
  const held = await create('held-returned@example.com')
  const stranger = generateCpf()
  assert.equal((await service.pay(held.id, stranger)).body.status, 'security_hold')
  assert.equal((await service.pay(held.id, stranger, 'will_refund')).body.status, 'security_hold')
  assert.equal((await hold(held.id)).clawback, 'will_refund')
  assert.deepEqual((await hold(held.id)).decisions, [], 'nothing to decide until the provider has returned it')
  assert.equal((await review(held.id, { decision: 'release' })).body.code, 'payment_taken_back')
  assert.equal((await review(held.id, { decision: 'refund' })).body.code, 'payment_taken_back', 'the provider returns it: refunding too would pay twice')
  assert.equal((await review(held.id, { decision: 'close' })).body.code, 'payment_not_taken_back')
  assert.equal((await service.pay(held.id, stranger, 'refunded')).body.status, 'security_hold')
  assert.deepEqual((await hold(held.id)).decisions, ['close'])
  assert.equal((await review(held.id, { decision: 'close' })).body.status, 'refunded')
  await assertBooksBalance()
})

test('a MED that comes before the delivery is recorded; the money that arrives afterwards is held and never released', async () => {
  const early = await create('early-med@example.com')
  await service.sandbox!.fake.settle(early.depositId, { payerName: 'Payer Person', payerTaxNumber: early.payer, outcome: 'depix_sent', lost: true })
  await med(early.id)
  assert.equal((await charge(early.id)).clawback, 'med')
  // The delivery's webhook was lost; reconciliation finds it.
  await service.advance(12 * 60)
  assert.equal((await charge(early.id)).status, 'security_hold')
  assert.deepEqual((await hold(early.id)).decisions, ['close'])
  assert.equal((await review(early.id, { decision: 'release' })).body.code, 'payment_taken_back')
  const none = { DEPIX: 0, BTC: 0, USDt: 0 }
  assert.deepEqual([await balances('early-med@example.com'), await balances('early-med@example.com', 'held')], [none, none])
})

test('a partial MED on a hold leaves the rest to refund, never to close; one without an amount, nothing to refund', async () => {
  const partly = await create('hold-partial@example.com')
  await service.pay(partly.id, generateCpf())
  await med(partly.id, { principal_cents: 200 })
  assert.deepEqual((await hold(partly.id)).decisions, ['refund'])
  assert.equal((await review(partly.id, { decision: 'close' })).body.code, 'payment_not_taken_back')
  assert.equal((await review(partly.id, { decision: 'refund' })).body.status, 'will_refund')
  assert.equal((await service.store.refunds.findByCharge(partly.id))!.amount_cents, 800)

  // Nobody stated the amount, and the MED took "everything": support's amount cannot reopen a refund.
  const silent = await create('hold-silent@example.com')
  await service.pay(silent.id, generateCpf(), undefined, { paid_cents: null })
  const deposit = silent.depositId
  assert.equal((await service.providerWebhook('med', { qrId: deposit, creationDateReport: '2026-11-22T13:00:00Z' })).status, 200)
  const refund = await review(silent.id, { decision: 'refund', paid_cents: 1000 })
  assert.equal(refund.body.code, 'payment_taken_back')
  assert.equal(await service.store.refunds.findByCharge(silent.id), undefined)
  assert.equal((await review(silent.id, { decision: 'close' })).body.status, 'refunded')
  await assertBooksBalance()
})

test('a refund owed is a liability in the ledger, listed for support, and the charge is refunded only when paid', async () => {
  const held = await create('refund-owed@example.com', { webhook_url: 'http://127.0.0.1:1/h', webhook_events: ['payment.refunded'] })
  assert.equal((await service.pay(held.id, generateCpf())).body.status, 'security_hold')
  const refund = await review(held.id, { decision: 'refund' })
  assert.equal(refund.body.status, 'will_refund')
  const listed = (await service.ops('GET', '/ops/refunds')).body.refunds.find((entry: { payment_id: string }) => entry.payment_id === held.id)
  assert.equal(listed.status, 'owed')
  assert.equal(listed.amount_cents, 1000)
  assert.equal(listed.payer_name, 'Payer Person')
  assert.match(listed.payer_tax_number, /^\*\*\*\.\d{3}\.\d{3}-\*\*$/)
  const books = (await service.ops('GET', '/ops/ledger-check')).body.books as Array<{ book: string; currency: string; total: number }>
  assert.ok(books.some((row) => row.book === 'refunds_owed' && row.total >= 1000))
  await assertBooksBalance()
  // Still owed after any time: it does not go away by itself.
  await service.advance(30 * 24 * 3600)
  assert.equal((await charge(held.id)).status, 'will_refund')

  const paid = await service.ops('POST', `/ops/refunds/${listed.refund_id}/paid`, { reference: 'E00000000202611231200abcdef012345', note: 'sent by Pix from the operating account' })
  assert.equal(paid.status, 200, JSON.stringify(paid.body))
  assert.deepEqual([paid.body.status, paid.body.owed_cents, paid.body.reference], ['paid', 0, 'E00000000202611231200abcdef012345'])
  assert.equal((await charge(held.id)).status, 'refunded')
  assert.equal((await service.ops('GET', '/ops/refunds')).body.refunds.some((entry: { payment_id: string }) => entry.payment_id === held.id), false)
  assert.equal((await service.ops('POST', `/ops/refunds/${listed.refund_id}/paid`, { reference: 'again', note: 'twice' })).body.code, 'refund_not_owed')
  assert.equal((await service.ops('POST', '/ops/refunds/ref_nope/paid', { reference: 'x', note: 'y' })).body.code, 'refund_not_found')
  const audit = (await service.ops('GET', '/ops/audit')).body.entries.find((entry: { action: string }) => entry.action === 'refund.paid')
  assert.equal(audit.actor, 'ana@support')
  const events = await service.database.db.selectFrom('webhook_events').select('event').where('charge_id', '=', held.id).orderBy('created_at').execute()
  assert.deepEqual(events.map((event) => event.event), ['payment.refunded', 'payment.refunded'])
  await assertBooksBalance()
})

test('a refund the provider returns itself settles what is owed, never twice', async () => {
  const held = await create('refund-provider@example.com')
  const stranger = generateCpf()
  await service.pay(held.id, stranger)
  await review(held.id, { decision: 'refund' })
  assert.equal((await service.pay(held.id, stranger, 'refunded')).body.status, 'refunded')
  const refund = (await service.store.refunds.findByCharge(held.id))!
  assert.deepEqual([refund.status, refund.owed_cents, refund.paid_by_us_cents], ['taken_back', 0, 0])
  await assertBooksBalance()
})

test('a partial MED debits only its part; refunded only when everything is taken back', async () => {
  const paid = await create('partial-med@example.com')
  await service.pay(paid.id, paid.payer)
  assert.equal((await balances('partial-med@example.com')).DEPIX, 900)
  const first = await med(paid.id, { principal_cents: 200 })
  assert.equal(first.status, 'depix_sent')
  assert.equal((await balances('partial-med@example.com')).DEPIX, 700)
  // The same report delivered again takes nothing more.
  const deposit = await service.sandbox!.fake.endUser(paid.payer, 'Payer Person')
  const replayed = { qrId: paid.depositId, principalValueInCents: 300, creationDateReport: '2026-11-22T12:00:00Z', bankTxId: 'PIX_E1', euid: deposit.euid, taxNumber: paid.payer }
  for (let i = 0; i < 3; i++) assert.equal((await service.providerWebhook('med', replayed)).status, 200)
  assert.equal((await balances('partial-med@example.com')).DEPIX, 400)
  // Another MED of the same amount, reported on another day, is another claw-back.
  assert.equal((await service.providerWebhook('med', { ...replayed, principalValueInCents: 100, creationDateReport: '2026-11-23T12:00:00Z' })).status, 200)
  assert.equal((await service.providerWebhook('med', { ...replayed, principalValueInCents: 100, creationDateReport: '2026-11-24T12:00:00Z' })).status, 200)
  assert.equal((await balances('partial-med@example.com')).DEPIX, 200)
  assert.equal((await charge(paid.id)).status, 'depix_sent')
  // The rest (R$ 3,00): the account gives back what is left of its R$ 9,00; the R$ 1,00 fee is the service's loss.
  const last = await med(paid.id, { principal_cents: 300 })
  assert.equal(last.status, 'refunded')
  assert.equal((await balances('partial-med@example.com')).DEPIX, 0)
  const stored = await charge(paid.id)
  assert.deepEqual([stored.taken_back_cents, stored.taken_back_units], [1000, 900])
  await assertBooksBalance()
})

test('a partial MED on a BTC credit is converted at the charge\'s own quote, and taken from where the credit sits', async () => {
  const payer = generateCpf()
  const euid = (await service.sandbox!.fake.endUser(payer, 'Payer')).euid
  const created = await createBtc('100.00', 'btc-med@example.com', euid)
  await service.request({ method: 'PUT', url: '/sandbox/quotes', body: { BTC: '350000.00' } })
  await service.pay(created.id, generateCpf())
  assert.equal((await charge(created.id)).status, 'after7d')
  const credited = (await charge(created.id)).credited_units!
  assert.equal(credited, 26684)
  // A different price now changes nothing: the charge's own quote converts.
  await service.request({ method: 'PUT', url: '/sandbox/quotes', body: { BTC: '330000.00' } })
  await med(created.id, { principal_cents: 2000 })
  // floor(2000 × 10^8 × 100 / (35 000 000 × 106)) = 5390 sats, from the held credit.
  assert.equal((await balances('btc-med@example.com', 'held')).BTC, credited - 5390)
  await service.advance(7 * 24 * 3600)
  assert.equal((await charge(created.id)).status, 'depix_sent')
  assert.equal((await balances('btc-med@example.com')).BTC, credited - 5390, 'the release releases only what is left')
  await med(created.id)
  assert.equal((await charge(created.id)).status, 'refunded')
  assert.equal((await balances('btc-med@example.com')).BTC, 0)
  await assertBooksBalance()
})

test('a claw-back is posted in DEPIX against clearing, through conversion; the check finds the old way of posting', async () => {
  const payer = generateCpf()
  const euid = (await service.sandbox!.fake.endUser(payer, 'Payer')).euid
  const created = await createBtc('20.00', 'books@example.com', euid)
  await service.pay(created.id, payer)
  await med(created.id)
  const entries = await service.database.db
    .selectFrom('ledger_entries as e').innerJoin('ledger_postings as p', 'p.id', 'e.posting_id')
    .select(['e.book', 'e.currency', 'e.amount']).where('p.charge_id', '=', created.id).execute()
  const sum = (book: string, currency: string) => entries.filter((entry) => entry.book === book && entry.currency === currency).reduce((total, entry) => total + entry.amount, 0)
  assert.equal(sum('provider_clearing', 'BTC'), 0, 'the provider never held BTC')
  assert.equal(sum('provider_clearing', 'DEPIX'), 0, 'what the provider delivered, it took back')
  assert.equal(sum('conversion', 'DEPIX'), 0)
  assert.equal(sum('conversion', 'BTC'), 0)
  assert.equal(sum('med_losses', 'DEPIX'), -100, 'the fixed fee is what the MED cost the service')
  await assertBooksBalance()

  // The MED as it used to be posted: BTC into clearing, nothing for the DePix taken.
  const otherPayer = generateCpf()
  const otherEuid = (await service.sandbox!.fake.endUser(otherPayer, 'Payer')).euid
  const other = await createBtc('20.00', 'books-old@example.com', otherEuid)
  await service.pay(other.id, otherPayer)
  const account = (await service.store.accounts.findByEmail('books-old@example.com'))!
  const units = (await charge(other.id)).credited_units!
  await service.store.ledger.post({ key: `med:${other.id}`, kind: 'clawback', entries: [
    { book: 'available', accountId: account.id, currency: 'BTC', amount: -units },
    { book: 'provider_clearing', accountId: null, currency: 'BTC', amount: units },
  ] }, other.id, new Date())
  const check = (await service.ops('GET', '/ops/ledger-check')).body
  assert.equal(check.ok, false)
  assert.deepEqual(check.foreign_currency, [{ book: 'provider_clearing', currency: 'BTC', total: units }])
  assert.ok(check.charges.some((row: { charge_id: string; book: string }) => row.charge_id === other.id && row.book === 'provider_clearing'))
  // Take the injected posting out again, so the suite's later checks see healthy books.
  const injected = await service.database.db.selectFrom('ledger_postings').select('id').where('key', '=', `med:${other.id}`).executeTakeFirstOrThrow()
  await service.database.db.deleteFrom('ledger_entries').where('posting_id', '=', injected.id).execute()
  await service.database.db.deleteFrom('ledger_postings').where('id', '=', injected.id).execute()
  await service.database.db.updateTable('account_balances').set((eb) => ({ amount: eb('amount', '+', units) })).where('account_id', '=', account.id).where('book', '=', 'available').where('currency', '=', 'BTC').execute()
  await assertBooksBalance()
})

test('what arrived is in get-payment (paidAmount) and in the webhook body (paid_in_cents)', async () => {
  const paid = await create('paid-amount@example.com', { webhook_url: 'http://127.0.0.1:1/h' })
  assert.equal((await record(paid.id)).paidAmount, null)
  await service.pay(paid.id, paid.payer, undefined, { paid_cents: 1040 })
  const arrived = await record(paid.id)
  assert.deepEqual([arrived.amount, arrived.paidAmount], [1000, 1040])
  const event = await service.database.db.selectFrom('webhook_events').select('body').where('charge_id', '=', paid.id).executeTakeFirstOrThrow()
  assert.match(event.body, /"value_in_cents":1000,"paid_in_cents":1040,"payer_euid"/)
})

test('releasing a hold with no reported amount asks the provider first, then needs support\'s amount; never the charge value', async () => {
  // The provider's webhook said nothing about the amount; its deposit-status does.
  const asked = await create('amount-asked@example.com')
  await service.sandbox!.fake.settle(asked.depositId, { payerName: 'Payer Person', payerTaxNumber: asked.payer, outcome: 'depix_sent', lost: true, paidCents: 990 })
  const euid = (await service.sandbox!.fake.endUser(asked.payer, 'Payer Person')).euid
  await service.providerWebhook('deposit', { qrId: asked.depositId, status: 'depix_sent', payerName: 'Payer Person', payerTaxNumber: asked.payer, payerEUID: euid })
  assert.equal((await charge(asked.id)).hold_reason, 'amount_mismatch')
  assert.equal((await review(asked.id, { decision: 'release' })).body.status, 'depix_sent')
  assert.equal((await balances('amount-asked@example.com')).DEPIX, 890, 'what arrived, not the charge value, is credited')
  assert.deepEqual([(await charge(asked.id)).paid_cents, (await charge(asked.id)).paid_source], [990, 'provider'])

  // Nobody says: support must enter it.
  const silent = await create('amount-silent@example.com')
  assert.equal((await service.pay(silent.id, silent.payer, undefined, { paid_cents: null })).body.status, 'security_hold')
  const refused = await review(silent.id, { decision: 'release' })
  assert.deepEqual(await balances('amount-silent@example.com'), { DEPIX: 0, BTC: 0, USDt: 0 }, 'never the charge value, silently')
  assert.equal(refused.status, 409)
  assert.equal(refused.body.code, 'paid_amount_required')
  assert.equal((await hold(silent.id)).needs_paid_amount, true)
  // Within 5 % of the value it is taken as typed (beyond, a second operator confirms it: typed-amounts.test.ts).
  assert.equal((await review(silent.id, { decision: 'release', paid_cents: 960 })).body.status, 'depix_sent')
  assert.deepEqual([(await charge(silent.id)).paid_cents, (await charge(silent.id)).paid_source], [960, 'support'])
  assert.equal((await balances('amount-silent@example.com')).DEPIX, 860)
  const audit = (await service.ops('GET', '/ops/audit')).body.entries.find((entry: { subject: string }) => entry.subject === `payment:${silent.id}`)
  assert.deepEqual([audit.details.paid_cents, audit.details.paid_source], [960, 'support'])
  // When the provider did say, support cannot say otherwise.
  const stated = await create('amount-stated@example.com')
  await service.pay(stated.id, stated.payer, undefined, { paid_cents: 1500 })
  assert.equal((await review(stated.id, { decision: 'release', paid_cents: 1000 })).body.code, 'invalid_request')
  await assertBooksBalance()
})

test('the provider\'s refunded after a partial MED takes nothing more: recorded, and raised for support', async () => {
  const paid = await create('refunded-after-partial@example.com')
  await service.pay(paid.id, paid.payer)
  await med(paid.id, { principal_cents: 200 })
  assert.equal((await service.pay(paid.id, paid.payer, 'refunded')).body.status, 'depix_sent')
  assert.equal((await balances('refunded-after-partial@example.com')).DEPIX, 700)
  const alert = (await service.ops('GET', '/ops/alerts')).body.alerts.find((entry: { payment_id: string }) => entry.payment_id === paid.id)
  assert.deepEqual([alert.kind, alert.taken_back_cents], ['refunded_after_partial_clawback', 200])
  await assertBooksBalance()
})

test('a MED after we paid the refund takes money that left us: the books record the loss', async () => {
  const held = await create('refund-then-med@example.com')
  await service.pay(held.id, generateCpf())
  await review(held.id, { decision: 'refund' })
  const refund = (await service.store.refunds.findByCharge(held.id))!
  await service.ops('POST', `/ops/refunds/${refund.id}/paid`, { reference: 'E2E-paid', note: 'paid' })
  await med(held.id)
  assert.equal((await service.store.refunds.findByCharge(held.id))!.loss_cents, 1000)
  const books = (await service.ops('GET', '/ops/ledger-check')).body.books as Array<{ book: string; currency: string; total: number }>
  assert.ok(books.some((row) => row.book === 'med_losses' && row.total <= -1000))
  await assertBooksBalance()
})

test('the provider\'s will_refund after credit is recorded and raised for support; nothing moves until the money goes', async () => {
  const paid = await create('announced@example.com')
  await service.pay(paid.id, paid.payer)
  assert.equal((await service.pay(paid.id, paid.payer, 'will_refund')).body.status, 'depix_sent')
  const alerts = (await service.ops('GET', '/ops/alerts')).body.alerts
  assert.deepEqual(alerts.filter((alert: { payment_id: string }) => alert.payment_id === paid.id).map((alert: { kind: string }) => alert.kind), ['will_refund_after_credit'])
  assert.equal((await balances('announced@example.com')).DEPIX, 900)
  const metrics = await service.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${service.opsToken}` } })
  assert.match(metrics.body, /pix_clawbacks_to_review [1-9]/)
  assert.equal((await service.pay(paid.id, paid.payer, 'refunded')).body.status, 'refunded')
  assert.equal((await balances('announced@example.com')).DEPIX, 0)
  assert.equal((await service.ops('GET', '/ops/alerts')).body.alerts.some((alert: { payment_id: string }) => alert.payment_id === paid.id), false)
  await assertBooksBalance()
})
