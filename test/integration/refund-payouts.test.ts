// Support pays a refund owed (docs/rules.md#refunds-owed) by a Pix-out from the treasury, to the
// payer's own CPF/CNPJ key, through the withdrawals' payout machinery (the provider's nonce before
// POST /withdraw, the signed transaction before broadcast). The payer receives all that was owed;
// the provider's fee is the service's; the charge is refunded when the provider says the Pix left.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'

let service: TestService
let token: string
before(async () => {
  service = await startTestService()
  token = (await service.merchant('refund-payout-shop@example.com', '52998224725')).token
})
after(() => service.close())

/** A R$ 10,00 charge paid by a stranger, held, and refunded by support: R$ 10,00 owed to that stranger. */
async function refundOwed(email: string): Promise<{ paymentId: string; refundId: string; payer: string }> {
  const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email, tax_number: generateCpf() }, { token }))
  const payer = generateCpf()
  assert.equal((await service.pay(created.id, payer)).body.status, 'security_hold')
  assert.equal((await service.ops('POST', `/ops/payments/${created.id}/review`, { decision: 'refund', note: 'paid by a stranger' })).body.status, 'will_refund')
  return { paymentId: created.id, refundId: (await service.store.refunds.findByCharge(created.id))!.id, payer }
}
const payout = async (id: string) => (await service.store.payouts.findById(id))!
async function assertBooksBalance() {
  const check = (await service.ops('GET', '/ops/ledger-check')).body
  assert.equal(check.ok, true, JSON.stringify(check))
}

test('a refund owed paid by Pix-out: one provider payout to the payer\'s own key for all that is owed, its fee ours, the charge refunded on the provider\'s word', async () => {
  const owed = await refundOwed('refund-pix@example.com')
  const treasuryBefore = (await service.request({ method: 'GET', url: '/sandbox/treasury' })).body.DEPIX as number
  const ordered = await service.ops('POST', `/ops/refunds/${owed.refundId}/payout`, { note: 'payer asked by phone' })
  assert.equal(ordered.status, 200, JSON.stringify(ordered.body))
  assert.deepEqual([ordered.body.status, ordered.body.amount_cents], ['queued', 1000])
  assert.match(ordered.body.pix_key, /^\*\*\*\.\d{3}\.\d{3}-\*\*$/)
  // A second order, or an outside payment recorded meanwhile, would pay the payer twice.
  assert.equal((await service.ops('POST', `/ops/refunds/${owed.refundId}/payout`, { note: 'again' })).body.code, 'refund_payout_in_progress')
  assert.equal((await service.ops('POST', `/ops/refunds/${owed.refundId}/paid`, { reference: 'E1', note: 'also by bank' })).body.code, 'refund_payout_in_progress')

  await service.jobs.runDue()
  const sent = await payout(ordered.body.refund_payout_id)
  assert.equal(sent.status, 'sent')
  const asked = (await service.sandbox!.fake.payout(sent.provider_withdrawal_id!))!
  // The payer's own CPF is the key and the tax number; the payer receives everything owed.
  assert.deepEqual([asked.pix_key, asked.tax_number], [owed.payer, owed.payer])
  assert.ok(asked.payout_cents >= 1000, `the key receives ${asked.payout_cents}`)
  assert.equal(sent.provider_deposit_cents, asked.deposit_cents)
  const treasuryAfter = (await service.request({ method: 'GET', url: '/sandbox/treasury' })).body.DEPIX as number
  assert.equal(treasuryBefore - treasuryAfter, asked.deposit_cents, 'the treasury sent exactly what the provider asked, once')
  assert.equal((await service.store.charges.findById(owed.paymentId))!.status, 'will_refund', 'not refunded before the Pix left')

  assert.equal(await service.sandbox!.fake.finishPayout(sent.provider_withdrawal_id!, 'sent'), 200)
  const done = await payout(sent.id)
  assert.equal(done.status, 'completed')
  const refund = (await service.store.refunds.findById(owed.refundId))!
  assert.deepEqual([refund.status, refund.owed_cents, refund.paid_by_us_cents, refund.payout_fee_cents], ['paid', 0, 1000, asked.deposit_cents - 1000])
  assert.match(refund.reference!, /^pix-out /)
  assert.equal((await service.store.charges.findById(owed.paymentId))!.status, 'refunded')
  const books = (await service.ops('GET', '/ops/ledger-check')).body.books as Array<{ book: string; currency: string; total: number }>
  assert.ok(books.some((row) => row.book === 'payout_fees' && row.total >= asked.deposit_cents - 1000), JSON.stringify(books))
  await assertBooksBalance()
  const actions = (await service.ops('GET', '/ops/audit')).body.entries.filter((entry: { subject: string }) => entry.subject === `refund:${owed.refundId}`).map((entry: { action: string; actor: string }) => `${entry.action}:${entry.actor}`)
  assert.deepEqual(actions.sort(), ['refund.paid:ana@support', 'refund.payout_ordered:ana@support'])
  // The provider's word again changes nothing.
  assert.equal(await service.sandbox!.fake.finishPayout(sent.provider_withdrawal_id!, 'sent'), 200)
  assert.equal((await service.store.refunds.findById(owed.refundId))!.payout_fee_cents, refund.payout_fee_cents)
  await assertBooksBalance()
  assert.equal((await service.ops('POST', `/ops/refunds/${owed.refundId}/payout`, { note: 'once more' })).body.code, 'refund_not_owed')
})

test('a refund payout the treasury cannot cover waits in review; support sends it again once covered, or abandons it and the refund stays owed', async () => {
  const first = await refundOwed('refund-short@example.com')
  const second = await refundOwed('refund-abandon@example.com')
  const before = (await service.request({ method: 'GET', url: '/sandbox/treasury' })).body.DEPIX as number
  await service.request({ method: 'PUT', url: '/sandbox/treasury', body: { DEPIX: 500 } })
  const a = (await service.ops('POST', `/ops/refunds/${first.refundId}/payout`, { note: 'pay' })).body
  const b = (await service.ops('POST', `/ops/refunds/${second.refundId}/payout`, { note: 'pay' })).body
  await service.jobs.runDue()
  const waiting = (await service.ops('GET', '/ops/refund-payouts')).body.refund_payouts as Array<{ refund_payout_id: string; review_reason: string }>
  assert.deepEqual(waiting.filter((row) => [a.refund_payout_id, b.refund_payout_id].includes(row.refund_payout_id)).map((row) => row.review_reason), ['treasury_insufficient', 'treasury_insufficient'])
  assert.equal((await payout(a.refund_payout_id)).provider_nonce, null, 'nothing was asked of the provider')

  await service.request({ method: 'PUT', url: '/sandbox/treasury', body: { DEPIX: before } })
  const retried = await service.ops('POST', `/ops/refund-payouts/${a.refund_payout_id}/review`, { decision: 'retry', note: 'treasury topped up' })
  assert.equal(retried.body.status, 'queued', JSON.stringify(retried.body))
  await service.jobs.runDue()
  assert.equal((await payout(a.refund_payout_id)).status, 'sent')

  const abandoned = await service.ops('POST', `/ops/refund-payouts/${b.refund_payout_id}/review`, { decision: 'abandon', note: 'payer prefers a bank transfer' })
  assert.deepEqual([abandoned.body.status, abandoned.body.failure_code], ['failed', 'abandoned_by_support'])
  assert.equal((await service.ops('POST', `/ops/refund-payouts/${b.refund_payout_id}/review`, { decision: 'retry', note: 'no' })).body.code, 'refund_payout_not_in_review')
  assert.equal((await service.ops('POST', '/ops/refund-payouts/rpo_nope/review', { decision: 'retry', note: 'no' })).body.code, 'refund_payout_not_found')
  const owedStill = (await service.ops('GET', '/ops/refunds')).body.refunds.find((row: { refund_id: string }) => row.refund_id === second.refundId)
  assert.deepEqual([owedStill.status, owedStill.payouts.map((row: { status: string }) => row.status)], ['owed', ['failed']])
  // Nothing left for it, so it can be paid another way (or by Pix again).
  const outside = await service.ops('POST', `/ops/refunds/${second.refundId}/paid`, { reference: 'E2', note: 'bank transfer' })
  assert.equal(outside.body.status, 'paid', JSON.stringify(outside.body))
  await assertBooksBalance()
})
