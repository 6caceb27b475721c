// Money leaves only as it should (docs/treasury.md, "Payouts"): what an auditor found leaving the
// treasury where it should not, each case through the public routes, /ops and the sandbox's
// controls, in sandbox mode with the fake provider and the fake Elements node over HTTP.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { newLiquidAddress } from '../../src/treasury/liquid-address.ts'
import type { CreateWithdrawalRequest, Currency } from '../../sdk/src/types.ts'
import { ok, refused } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { confirmedDestination, ownerWithBalance, type Owner } from '../support/withdrawals.ts'

let service: TestService
let merchantToken: string
before(async () => {
  service = await startTestService({ WITHDRAWAL_REVIEW_BRL: '1000.00', WITHDRAWAL_LIMIT_BRL: '6000.00' })
  merchantToken = (await service.merchant('payout-safety-shop@example.com', '52998224725')).token
})
after(() => service.close())

const BLINDING_KEY = Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')
const liquidAddress = () => newLiquidAddress('elementsregtest', randomBytes(20), BLINDING_KEY)
const treasury = async () => (await service.request({ method: 'GET', url: '/sandbox/treasury' })).body as { DEPIX: number; BTC: number; USDt: number }
const withdrawal = async (owner: Owner, id: string) => ok(await service.api.get(`/api/withdrawals/${id}`, { token: owner.token }))
const withdraw = (owner: Owner, body: CreateWithdrawalRequest) => service.api.post('/api/withdrawals', body, { token: owner.token })
const balances = async (owner: Owner) => ok(await service.api.get('/api/get-balance', { token: owner.token })).balances
const ledgerCheck = async () => (await service.ops('GET', '/ops/ledger-check')).body
const surcharge = (cents: number) => service.request({ method: 'PUT', url: '/sandbox/provider/payouts', body: { ask_extra_cents: cents } })

async function pixOwner(email: string, reais: string): Promise<{ owner: Owner; destination: string }> {
  const owner = await ownerWithBalance(service, email, reais)
  const destination = await confirmedDestination(service, owner, 'pix', owner.taxNumber)
  await service.advance(24 * 3600 + 1)
  return { owner, destination }
}

test('never more than offered: a Pix-out reply asking for more is never paid, on any run; support rejects it or orders a new provider payout', async () => {
  const { owner, destination } = await pixOwner('mismatch@example.com', '20.00')
  const before = await treasury()
  assert.equal((await surcharge(5_000)).status, 200)
  const made = ok(await withdraw(owner, { currency: 'DEPIX', amount: 1_300, destination_id: destination }))
  await service.jobs.runDue()
  assert.deepEqual([(await withdrawal(owner, made.id)).status, (await withdrawal(owner, made.id)).review_reason], ['in_review', 'payout_mismatch'])
  // Approving cannot make the treasury pay what the provider asked.
  const approved = await service.ops('POST', `/ops/withdrawals/${made.id}/review`, { decision: 'approve', note: 'looks fine' })
  assert.equal(approved.body.code, 'payout_mismatch_unpayable', JSON.stringify(approved.body))
  await service.jobs.runDue()
  assert.equal((await treasury()).DEPIX, before.DEPIX, 'nothing left the treasury')
  const providerPayouts = (await service.sandbox!.fake.payouts()).length
  // A new provider payout (a new nonce), now answered with the amount offered: paid exactly that.
  await surcharge(0)
  const renewed = await service.ops('POST', `/ops/withdrawals/${made.id}/review`, { decision: 'new_payout', note: 'ask the provider again' })
  assert.equal(renewed.body.status, 'confirmed', JSON.stringify(renewed.body))
  await service.jobs.runDue()
  const sent = await withdrawal(owner, made.id)
  assert.equal(sent.status, 'sent', JSON.stringify(sent))
  assert.equal((await service.sandbox!.fake.payouts()).length, providerPayouts + 1)
  assert.equal(before.DEPIX - (await treasury()).DEPIX, sent.net_amount, 'the treasury paid exactly the net amount')
  assert.equal((await ledgerCheck()).ok, true, JSON.stringify(await ledgerCheck()))
})

/** Another payment of the owner's own to the account; answers the charge's id. */
async function credit(owner: Owner, value: string, swapTo: Currency = 'DEPIX'): Promise<string> {
  const created = ok(await service.api.post('/api/create-payment', { value, email: owner.email, euid: owner.euid, swap_to: swapTo }, { token: owner.token }))
  assert.equal((await service.pay(created.id, owner.taxNumber)).body.status, 'depix_sent')
  return created.id
}

/** A R$ 10,00 charge paid by a stranger, held, refunded by support: owed to that stranger. */
async function refundOwed(email: string): Promise<{ paymentId: string; refundId: string }> {
  const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email, tax_number: generateCpf() }, { token: merchantToken }))
  assert.equal((await service.pay(created.id, generateCpf())).body.status, 'security_hold')
  assert.equal((await service.ops('POST', `/ops/payments/${created.id}/review`, { decision: 'refund', note: 'stranger' })).body.status, 'will_refund')
  return { paymentId: created.id, refundId: (await service.store.refunds.findByCharge(created.id))!.id }
}

test('never more than offered, for a refund payout: retry is refused while the reply asks for more; a new provider payout pays it', async () => {
  const owed = await refundOwed('refund-mismatch@example.com')
  const before = await treasury()
  await surcharge(5_000)
  const ordered = (await service.ops('POST', `/ops/refunds/${owed.refundId}/payout`, { note: 'pay' })).body
  await service.jobs.runDue()
  const held = (await service.ops('GET', '/ops/refund-payouts')).body.refund_payouts.find((row: { refund_payout_id: string }) => row.refund_payout_id === ordered.refund_payout_id)
  assert.equal(held?.review_reason, 'payout_mismatch')
  assert.equal((await service.ops('POST', `/ops/refund-payouts/${ordered.refund_payout_id}/review`, { decision: 'retry', note: 'go' })).body.code, 'payout_mismatch_unpayable')
  await service.jobs.runDue()
  assert.equal((await treasury()).DEPIX, before.DEPIX)
  await surcharge(0)
  const renewed = await service.ops('POST', `/ops/refund-payouts/${ordered.refund_payout_id}/review`, { decision: 'new_payout', note: 'ask again' })
  assert.equal(renewed.body.status, 'queued', JSON.stringify(renewed.body))
  await service.jobs.runDue()
  const paid = before.DEPIX - (await treasury()).DEPIX
  assert.ok(paid >= 1_000 && paid <= 1_102, `the treasury paid ${paid}`)
})

test('a refund is paid once: a MED that settles it while its payout waits in review fails the payout, and a retry sends nothing', async () => {
  const owed = await refundOwed('refund-med@example.com')
  const before = await treasury()
  await service.request({ method: 'PUT', url: '/sandbox/treasury', body: { DEPIX: 100 } })
  const ordered = (await service.ops('POST', `/ops/refunds/${owed.refundId}/payout`, { note: 'pay' })).body
  await service.jobs.runDue()
  assert.equal((await service.store.payouts.findById(ordered.refund_payout_id))!.review_reason, 'treasury_insufficient')
  // The provider takes the money back from us: the payer has it again; nothing is owed any more.
  assert.equal((await service.request({ method: 'POST', url: `/sandbox/payments/${owed.paymentId}/med`, body: {} })).status, 200)
  assert.equal((await service.store.refunds.findById(owed.refundId))!.owed_cents, 0)
  await service.request({ method: 'PUT', url: '/sandbox/treasury', body: { DEPIX: before.DEPIX } })
  const payoutsBefore = (await service.sandbox!.fake.payouts()).length
  const retried = await service.ops('POST', `/ops/refund-payouts/${ordered.refund_payout_id}/review`, { decision: 'retry', note: 'topped up' })
  assert.equal(retried.body.code, 'refund_not_owed', JSON.stringify(retried.body))
  await service.jobs.runDue()
  assert.equal((await service.sandbox!.fake.payouts()).length, payoutsBefore, 'no Pix-out was asked for')
  assert.equal((await treasury()).DEPIX, before.DEPIX, 'nothing left the treasury')
})

test('approve knows what confirm knows: a withdrawal in review after a MED took the account below zero is refused, and the queue shows why', async () => {
  const owner = await ownerWithBalance(service, 'approve-med@example.com', '450.00')
  const more = [await credit(owner, '450.00'), await credit(owner, '450.00')]
  const destination = await confirmedDestination(service, owner, 'liquid', liquidAddress())
  await service.advance(24 * 3600 + 1)
  const made = ok(await withdraw(owner, { currency: 'DEPIX', amount: 110_000, destination_id: destination }))
  assert.deepEqual([made.status, made.review_reason], ['in_review', 'over_threshold'], JSON.stringify(made))
  for (const id of more) assert.equal((await service.request({ method: 'POST', url: `/sandbox/payments/${id}/med`, body: {} })).status, 200)
  const queue = (await service.ops('GET', '/ops/withdrawals')).body.withdrawals.find((row: { id: string }) => row.id === made.id)
  assert.ok(queue.balances.DEPIX < 0, JSON.stringify(queue))
  assert.ok(queue.blockers.includes('open_med') || queue.blockers.includes('balance_below_zero'), JSON.stringify(queue.blockers))
  const before = await treasury()
  const approved = await service.ops('POST', `/ops/withdrawals/${made.id}/review`, { decision: 'approve', note: 'ok' })
  assert.equal(approved.body.code, 'withdrawal_not_allowed', JSON.stringify(approved.body))
  await service.jobs.runDue()
  assert.equal((await treasury()).DEPIX, before.DEPIX)
})

test('no currency below zero, no withdrawal: BTC stays put while DEPIX is negative, even 91 days after the MED', async () => {
  const owner = await ownerWithBalance(service, 'negative@example.com', '10.00')
  const depixCharge = await credit(owner, '100.00')
  await service.request({ method: 'PUT', url: '/sandbox/quotes', body: { BTC: '350000.00', USDt: '5.40' } })
  await credit(owner, '100.00', 'BTC')
  const destination = await confirmedDestination(service, owner, 'liquid', liquidAddress())
  await service.advance(24 * 3600 + 1)
  const out = ok(await withdraw(owner, { currency: 'DEPIX', amount: 9_000, destination_id: destination }))
  assert.equal(out.status, 'confirmed', JSON.stringify(out))
  await service.jobs.runDue()
  assert.equal((await service.request({ method: 'POST', url: `/sandbox/payments/${depixCharge}/med`, body: {} })).status, 200)
  await service.advance(91 * 24 * 3600)
  const left = await balances(owner)
  assert.ok(left.DEPIX.available_cents < 0 && left.BTC.available_sats > 0, JSON.stringify(left))
  const refusal = refused(await withdraw(owner, { currency: 'BTC', amount: 10_000, destination_id: destination }))
  assert.equal(refusal.code, 'withdrawal_not_allowed', JSON.stringify(refusal))
})

test('after it left: a Pix-out the provider refunds after completing raises an alert, and support records it returned once', async () => {
  const { owner, destination } = await pixOwner('returned@example.com', '50.00')
  const made = ok(await withdraw(owner, { currency: 'DEPIX', amount: 2_000, destination_id: destination }))
  await service.jobs.runDue()
  assert.equal((await service.request({ method: 'POST', url: `/sandbox/withdrawals/${made.id}/payout`, body: { outcome: 'sent' } })).body.status, 'completed')
  const available = (await balances(owner)).DEPIX.available_cents
  assert.equal((await service.request({ method: 'POST', url: `/sandbox/withdrawals/${made.id}/payout`, body: { outcome: 'refunded' } })).status, 200)
  const alerts = (await service.ops('GET', '/ops/alerts')).body.alerts
  assert.ok(alerts.some((alert: { withdrawal_id?: string }) => alert.withdrawal_id === made.id), JSON.stringify(alerts))
  const returned = await service.ops('POST', `/ops/withdrawals/${made.id}/review`, { decision: 'returned', note: 'came back' })
  assert.deepEqual([returned.body.status, returned.body.failure_code], ['failed', 'payout_returned'], JSON.stringify(returned.body))
  assert.equal((await balances(owner)).DEPIX.available_cents, available + 2_000)
  assert.equal((await service.ops('POST', `/ops/withdrawals/${made.id}/review`, { decision: 'returned', note: 'twice' })).status, 409)
  assert.ok(!(await service.ops('GET', '/ops/alerts')).body.alerts.some((alert: { withdrawal_id?: string }) => alert.withdrawal_id === made.id))
  assert.equal((await ledgerCheck()).ok, true)
})

test('after it left, a refund: a refund payout whose Pix failed after our DePix left is recorded returned and the refund is owed again', async () => {
  const owed = await refundOwed('refund-returned@example.com')
  const ordered = (await service.ops('POST', `/ops/refunds/${owed.refundId}/payout`, { note: 'pay' })).body
  await service.jobs.runDue()
  assert.equal((await service.request({ method: 'POST', url: `/sandbox/refund-payouts/${ordered.refund_payout_id}/payout`, body: { outcome: 'error' } })).status, 200)
  const alerts = (await service.ops('GET', '/ops/alerts')).body.alerts
  assert.ok(alerts.some((alert: { refund_payout_id?: string }) => alert.refund_payout_id === ordered.refund_payout_id), JSON.stringify(alerts))
  const returned = await service.ops('POST', `/ops/refund-payouts/${ordered.refund_payout_id}/review`, { decision: 'returned', note: 'DePix came back' })
  assert.deepEqual([returned.body.status, returned.body.failure_code], ['returned', 'payout_returned'], JSON.stringify(returned.body))
  const again = await service.ops('POST', `/ops/refunds/${owed.refundId}/payout`, { note: 'pay again' })
  assert.equal(again.body.status, 'queued', JSON.stringify(again.body))
})
test('the books meet the treasury: network fees are posted from the transaction sent, ledger-check compares each payout with the node, and solvency shows debts apart', async () => {
  const owner = await ownerWithBalance(service, 'books@example.com', '100.00')
  const destination = await confirmedDestination(service, owner, 'liquid', liquidAddress())
  await service.advance(24 * 3600 + 1)
  const before = await treasury()
  const made = ok(await withdraw(owner, { currency: 'DEPIX', amount: 5_000, destination_id: destination }))
  await service.jobs.runDue()
  assert.equal((await withdrawal(owner, made.id)).status, 'sent')
  const check = await ledgerCheck()
  assert.equal(check.ok, true, JSON.stringify(check))
  const feeBook = check.books.find((row: { book: string; currency: string }) => row.book === 'network_fees' && row.currency === 'BTC')
  const spentSats = before.BTC - (await treasury()).BTC
  assert.ok(spentSats > 0)
  assert.ok(feeBook && feeBook.total >= spentSats, JSON.stringify(check.books))
  // Solvency: after a MED took more than was left, the debt shows apart, never netted against what others are owed.
  const paid = await credit(owner, '50.00')
  const owedBefore = (await service.ops('GET', '/ops/treasury')).body.treasury.find((row: { currency: string }) => row.currency === 'DEPIX')
  ok(await withdraw(owner, { currency: 'DEPIX', amount: 9_000, destination_id: destination }))
  await service.jobs.runDue()
  assert.equal((await service.request({ method: 'POST', url: `/sandbox/payments/${paid}/med`, body: {} })).status, 200)
  const available = (await balances(owner)).DEPIX.available_cents
  assert.ok(available < 0, String(available))
  const solvency = (await service.ops('GET', '/ops/treasury')).body.treasury.find((row: { currency: string }) => row.currency === 'DEPIX')
  assert.equal(solvency.receivable - owedBefore.receivable, -available, JSON.stringify(solvency))
  // What the provider was sent, made to disagree with what the books say left: ledger-check fails on it.
  await service.database.db.updateTable('withdrawals').set({ net_amount: 4_800 }).where('id', '=', made.id).execute()
  const broken = await ledgerCheck()
  assert.equal(broken.ok, false)
  assert.ok(broken.payouts.some((row: { withdrawal_id: string; field: string }) => row.withdrawal_id === made.id && row.field === 'sent'), JSON.stringify(broken.payouts))
  // Put back as it was: the tests after this one read the same books.
  await service.database.db.updateTable('withdrawals').set({ net_amount: 4_900 }).where('id', '=', made.id).execute()
  assert.equal((await ledgerCheck()).ok, true)
})

test('a payout the node refuses waits for support, never retried for ever; a broadcast the network rejects too', async () => {
  const owner = await ownerWithBalance(service, 'node-refuses@example.com', '100.00')
  const destination = await confirmedDestination(service, owner, 'liquid', liquidAddress())
  await service.advance(24 * 3600 + 1)
  assert.deepEqual((await service.request({ method: 'PUT', url: '/sandbox/treasury/refusals', body: { fund: true } })).body, { fund: true, broadcast: false })
  const fundRefused = ok(await withdraw(owner, { currency: 'DEPIX', amount: 2_000, destination_id: destination }))
  await service.jobs.runDue()
  const held = await withdrawal(owner, fundRefused.id)
  assert.deepEqual([held.status, held.review_reason, held.txid], ['in_review', 'treasury_refused', null])
  // Time passes: the payout is not tried again (no funding asked of the node).
  const fundings = () => service.sandbox!.elements.calls().walletcreatefundedpsbt ?? 0
  const asked = fundings()
  await service.advance(3_600)
  assert.equal(fundings(), asked, 'no funding asked again')
  await service.request({ method: 'PUT', url: '/sandbox/treasury/refusals', body: { fund: false, broadcast: true } })
  const rejected = ok(await withdraw(owner, { currency: 'DEPIX', amount: 2_000, destination_id: destination }))
  await service.jobs.runDue()
  assert.deepEqual([(await withdrawal(owner, rejected.id)).status, (await withdrawal(owner, rejected.id)).review_reason], ['in_review', 'broadcast_rejected'])
  await service.request({ method: 'PUT', url: '/sandbox/treasury/refusals', body: { broadcast: false } })
  // Support sends both again once the node pays: the stored transaction is broadcast, and the refused one funded anew.
  assert.equal((await service.ops('POST', `/ops/withdrawals/${rejected.id}/review`, { decision: 'approve', note: 'network fine' })).body.status, 'confirmed')
  await service.jobs.runDue()
  assert.equal((await withdrawal(owner, rejected.id)).status, 'sent')
  assert.equal((await service.ops('POST', `/ops/withdrawals/${fundRefused.id}/review`, { decision: 'approve', note: 'node fixed' })).body.status, 'confirmed')
  await service.jobs.runDue()
  assert.equal((await withdrawal(owner, fundRefused.id)).status, 'sent')
})

test('a send that the provider turned away reads its owner again at its next run: a refund settled meanwhile is never paid', async () => {
  const owed = await refundOwed('refund-between-runs@example.com')
  const ordered = (await service.ops('POST', `/ops/refunds/${owed.refundId}/payout`, { note: 'pay' })).body
  // As a first run leaves it when the provider says "not now": started, nothing asked yet.
  await service.database.db.updateTable('payouts').set({ status: 'sending' }).where('id', '=', ordered.refund_payout_id).execute()
  assert.equal((await service.request({ method: 'POST', url: `/sandbox/payments/${owed.paymentId}/med`, body: {} })).status, 200)
  const before = await treasury()
  const payoutsBefore = (await service.sandbox!.fake.payouts()).length
  await service.jobs.runDue()
  const payout = (await service.store.payouts.findById(ordered.refund_payout_id))!
  assert.deepEqual([payout.status, payout.failure_code], ['failed', 'owner_withdrew'])
  assert.equal((await service.sandbox!.fake.payouts()).length, payoutsBefore, 'nothing asked of the provider')
  assert.equal((await treasury()).DEPIX, before.DEPIX, 'nothing left the treasury')
})

test('support\'s reject never sends what it means to stop: a signed transaction is judged without broadcasting it, and one that can still pay is sent only on approval', async () => {
  const owner = await ownerWithBalance(service, 'reject-signed@example.com', '100.00')
  const destination = await confirmedDestination(service, owner, 'liquid', liquidAddress())
  await service.advance(24 * 3600 + 1)
  await service.request({ method: 'PUT', url: '/sandbox/treasury/refusals', body: { broadcast: true } })
  const made = ok(await withdraw(owner, { currency: 'DEPIX', amount: 3_000, destination_id: destination }))
  await service.jobs.runDue()
  assert.deepEqual([(await withdrawal(owner, made.id)).status, (await withdrawal(owner, made.id)).review_reason], ['in_review', 'broadcast_rejected'])
  await service.request({ method: 'PUT', url: '/sandbox/treasury/refusals', body: { broadcast: false } })
  const broadcasts = () => service.sandbox!.elements.calls().sendrawtransaction ?? 0
  const before = { broadcasts: broadcasts(), treasury: await treasury() }
  const rejected = await service.ops('POST', `/ops/withdrawals/${made.id}/review`, { decision: 'reject', note: 'stop it' })
  assert.equal(rejected.body.code, 'withdrawal_not_cancelable', JSON.stringify(rejected.body))
  assert.equal(broadcasts(), before.broadcasts, 'the reject broadcast nothing')
  assert.equal((await treasury()).DEPIX, before.treasury.DEPIX)
  assert.equal((await service.ops('POST', `/ops/withdrawals/${made.id}/review`, { decision: 'approve', note: 'it can still pay: send it' })).body.status, 'confirmed')
  await service.jobs.runDue()
  assert.equal((await withdrawal(owner, made.id)).status, 'sent')
  const check = await ledgerCheck()
  assert.equal(check.ok, true, JSON.stringify({ ...check, books: undefined }))
})
