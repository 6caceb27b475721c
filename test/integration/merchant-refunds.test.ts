// Merchant refunds (docs/rules.md#merchant-refunds) through the public API, on a real database:
// what may be refunded, what the account pays, the payout to the payer's own key, and the books.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { checkLedger } from '../../src/app/check-ledger.ts'
import type { CreateRefundRequest, WebhookEvent } from '../../sdk/src/types.ts'
import { ok, refused } from '../support/api.ts'
import { signedInOperator } from '../support/factors.ts'
import { startTestService, testDatabase, twoInstances, type TestService } from '../support/harness.ts'

let service: TestService
before(async () => {
  // A low review threshold, so one test can see a refund wait for support.
  service = await startTestService({ WITHDRAWAL_REVIEW_BRL: '8.00', OPERATORS: 'ana@example.com:support' })
})
after(() => service.close())

/** A merchant whose own payment made it an identity, and `count` payments of R$ 10,00 credited (R$ 9,00 each, after the fixed fee), each by a payer of its own. */
async function shop(email: string, count = 1) {
  const merchant = await service.merchant(email, generateCpf())
  const payments: Array<{ id: string; payer: string }> = []
  for (let i = 0; i < count; i++) {
    const payer = generateCpf()
    const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email, tax_number: payer }, { token: merchant.token }))
    assert.equal((await service.pay(created.id, payer)).body.status, 'depix_sent')
    payments.push({ id: created.id, payer })
  }
  return { ...merchant, payments }
}
const refund = (token: string, paymentId: string, body: CreateRefundRequest, key?: string) =>
  service.api.post(`/api/payments/${paymentId}/refunds`, body, { token, ...(key ? { headers: { 'idempotency-key': key } } : {}) })
const balance = async (token: string) => ok(await service.api.get('/api/get-balance', { token })).balances.DEPIX.available_cents
const payment = async (token: string, id: string) => ok(await service.api.get(`/api/get-payment/${id}`, { token }))
const refundRecord = async (token: string, id: string) => ok(await service.api.get(`/api/refunds/${id}`, { token }))
const balanceLines = async (token: string) => ok(await service.api.get('/api/balance-transactions?limit=5', { token })).balance_transactions
async function assertBooksBalance() {
  const check = (await service.ops('GET', '/ops/ledger-check')).body
  assert.equal(check.ok, true, JSON.stringify(check))
}

test('partial refunds by Pix to the payer\'s own key: the fee added and shown, the account debited, never more than paid, refunded in full becomes refunded', async () => {
  const { token, payments: [paid, other] } = await shop('refund-partial@example.com', 3)
  const before = await balance(token)
  assert.equal(before, 3 * 900)
  const first = await refund(token, paid!.id, { amount: '4.00', reason: 'returned item' }, 'r-1')
  assert.equal(first.status, 200, JSON.stringify(first.body))
  assert.deepEqual([first.body.status, first.body.amount, first.body.amount_cents, first.body.currency, first.body.reason], ['pending', '4.00', 400, 'DEPIX', 'returned item'])
  // The provider's fee is on what the payer receives (1 %, at least R$ 1,00): the account pays both.
  assert.equal(first.body.fee_cents, 100)
  assert.equal(first.body.debit_amount, 500)
  assert.equal(await balance(token), before - 500)
  assert.equal((await payment(token, paid!.id)).refundedAmount, 400)
  // The same key and body answer the same refund; another body with it is refused.
  assert.equal(ok(await refund(token, paid!.id, { amount: '4.00', reason: 'returned item' }, 'r-1')).id, first.body.id)
  assert.equal(refused(await refund(token, paid!.id, { amount: '4.01' }, 'r-1')).code, 'idempotency_key_reused')
  // More than is left is refused, whatever is in the balance.
  const over = await refund(token, paid!.id, { amount: '6.01' })
  assert.deepEqual([over.status, refused(over).code], [409, 'refund_exceeds_paid'])

  await service.jobs.runDue()
  const payout = (await service.store.payouts.latestOf({ merchantRefundId: first.body.id }))!
  assert.equal(payout.status, 'sent')
  const asked = (await service.sandbox!.fake.payout(payout.provider_withdrawal_id!))!
  assert.deepEqual([asked.pix_key, asked.tax_number], [paid!.payer, paid!.payer], 'paid only to the payer\'s own CPF')
  assert.ok(asked.payout_cents >= 400)
  assert.equal((await refundRecord(token, first.body.id)).status, 'sent')
  assert.equal(await service.sandbox!.fake.finishPayout(payout.provider_withdrawal_id!, 'sent'), 200)
  assert.equal((await refundRecord(token, first.body.id)).status, 'completed')
  assert.equal((await payment(token, paid!.id)).status, 'depix_sent', 'a partial refund keeps the status')
  await assertBooksBalance()

  // All that is left, by default: the charge is refunded once it reached the payer.
  const rest = await refund(token, paid!.id, {})
  assert.equal(rest.status, 200, JSON.stringify(rest.body))
  assert.equal(rest.body.amount_cents, 600)
  await service.jobs.runDue()
  const restPayout = (await service.store.payouts.latestOf({ merchantRefundId: rest.body.id }))!
  assert.equal(await service.sandbox!.fake.finishPayout(restPayout.provider_withdrawal_id!, 'sent'), 200)
  const done = await payment(token, paid!.id)
  assert.deepEqual([done.status, done.refundedAmount, done.paidAmount], ['refunded', 1000, 1000])
  const listed = ok(await service.api.get(`/api/payments/${paid!.id}/refunds`, { token })).refunds
  // Made at the same instant of the test clock: oldest first, then by id.
  assert.deepEqual(listed.map((row) => `${row.id}:${row.status}`).sort(), [`${first.body.id}:completed`, `${rest.body.id}:completed`].sort())
  assert.equal(refused(await refund(token, paid!.id, { amount: '1.00' })).code, 'payment_not_refundable')
  const listedItem = ok(await service.api.get('/api/payments', { token })).payments.find((row) => row.qrId === paid!.id)
  assert.equal(listedItem?.refundedAmount, 1000)
  assert.equal((await payment(token, other!.id)).refundedAmount, 0)
  await assertBooksBalance()
})

test('what cannot be refunded: an unpaid charge, another account\'s, one paid more than 90 days ago, more than the balance covers', async () => {
  const { token, payments: [paid] } = await shop('refund-rules@example.com')
  const stranger = await shop('refund-stranger@example.com')
  const unpaid = ok(await service.api.post('/api/create-payment', { value: '10.00', email: 'refund-rules@example.com', tax_number: generateCpf() }, { token }))
  assert.equal(refused(await refund(token, unpaid.id, {})).code, 'payment_not_refundable')
  assert.equal(refused(await refund(stranger.token, paid!.id, {})).code, 'payment_not_found')
  assert.equal(refused(await service.api.get(`/api/payments/${paid!.id}/refunds`, { token: stranger.token })).code, 'payment_not_found')
  // R$ 9,00 were credited (the fixed fee): refunding all R$ 10,00 and the provider's fee is more than that.
  const short = await refund(token, paid!.id, {})
  assert.deepEqual([short.status, refused(short).code], [409, 'insufficient_funds'])
  assert.equal((await payment(token, paid!.id)).refundedAmount, 0, 'nothing reserved, nothing queued')
  for (const amount of ['0', '0.00', 'ten', '1.234']) assert.equal((await refund(token, paid!.id, { amount })).status, 400, amount)
  // The provider's Pix-out takes at least R$ 2,00 with its fee.
  assert.equal(refused(await refund(token, paid!.id, { amount: '0.99' })).code, 'amount_below_minimum')
  const theirs = ok(await refund(stranger.token, stranger.payments[0]!.id, { amount: '2.00' }))
  assert.equal(refused(await service.api.get(`/api/refunds/${theirs.id}`, { token })).code, 'refund_not_found')
  await service.advance(91 * 24 * 3600)
  assert.equal(refused(await refund(token, paid!.id, { amount: '2.00' })).code, 'refund_window_closed')
})

test('a key the provider refuses fails the refund with payer_key_not_found, and the amount returns to the balance', async () => {
  const { token, payments: [paid] } = await shop('refund-refused@example.com')
  const before = await balance(token)
  await service.request({ method: 'PUT', url: '/sandbox/provider/payouts', body: { refuse_keys: true } })
  try {
    const made = await refund(token, paid!.id, { amount: '5.00' })
    assert.equal(made.status, 200, JSON.stringify(made.body))
    assert.equal(await balance(token), before - 600)
    await service.jobs.runDue()
    const failed = await refundRecord(token, made.body.id)
    assert.deepEqual([failed.status, failed.failure_code], ['failed', 'payer_key_not_found'])
    assert.equal(await balance(token), before)
    assert.equal((await payment(token, paid!.id)).refundedAmount, 0)
    // The statement: set aside (the balance unchanged, available down), then set aside no more.
    const lines = (await balanceLines(token)).filter((line) => line.payment_id === paid!.id).map((line) => [line.type, line.amount, line.available_amount])
    assert.deepEqual(lines.slice(0, 2), [['refund_canceled', 0, 600], ['refund_reserved', 0, -600]])
  } finally {
    await service.request({ method: 'PUT', url: '/sandbox/provider/payouts', body: { refuse_keys: false } })
  }
  await assertBooksBalance()
})

test('a refund above the review threshold waits for support, listed with the refund payouts in review, and goes once support sends it', async () => {
  const { token, payments: [paid] } = await shop('refund-review@example.com', 2)
  // R$ 9,00 and the provider's R$ 1,00 are above the R$ 8,00 threshold.
  const made = await refund(token, paid!.id, { amount: '9.00' })
  assert.equal(made.status, 200, JSON.stringify(made.body))
  assert.deepEqual([made.body.status, made.body.review_reason], ['pending', 'over_threshold'])
  await service.jobs.runDue()
  const held = (await service.store.payouts.latestOf({ merchantRefundId: made.body.id }))!
  assert.equal(held.status, 'in_review')
  // Support sees it with the refund payouts in review, and sends it.
  const queue = (await service.ops('GET', '/ops/refund-payouts')).body.refund_payouts
  assert.ok(queue.some((row: { refund_payout_id: string; merchant_refund_id: string }) => row.refund_payout_id === held.id && row.merchant_refund_id === made.body.id), JSON.stringify(queue))
  assert.equal((await service.ops('POST', `/ops/refund-payouts/${held.id}/review`, { decision: 'retry', note: 'known customer' })).body.status, 'queued')
  await service.jobs.runDue()
  const sent = await refundRecord(token, made.body.id)
  assert.deepEqual([sent.status, sent.review_reason], ['sent', null])
  await assertBooksBalance()

  // What is left (R$ 1,00) and its fee are below the threshold: it goes on its own.
  const before = await balance(token)
  const other = await refund(token, paid!.id, {})
  assert.equal(other.status, 200, JSON.stringify(other.body))
  assert.deepEqual([other.body.amount_cents, other.body.review_reason], [100, null])
  assert.equal(await balance(token), before - 200)
  await assertBooksBalance()
})

test('support rejects a refund waiting in review: it fails and its amount returns', async () => {
  const { token, payments: [paid] } = await shop('refund-reject@example.com', 2)
  const before = await balance(token)
  const made = ok(await refund(token, paid!.id, { amount: '9.00' }))
  assert.equal(made.review_reason, 'over_threshold')
  assert.equal(await balance(token), before - 1000)
  const payout = (await service.store.payouts.latestOf({ merchantRefundId: made.id }))!
  assert.equal((await service.ops('POST', `/ops/refund-payouts/${payout.id}/review`, { decision: 'abandon', note: 'not the payer' })).body.status, 'failed')
  const failed = await refundRecord(token, made.id)
  assert.deepEqual([failed.status, failed.failure_code], ['failed', 'abandoned_by_support'])
  assert.equal(await balance(token), before)
  assert.equal((await payment(token, paid!.id)).refundedAmount, 0)
  await assertBooksBalance()
})

test('the sandbox walk-through of /docs and the README: R$ 5,00 of a R$ 20,00 payment back, the clock sends it, the provider\'s word completes it', async () => {
  const taxNumber = generateCpf()
  const owner = await service.merchant('refund-walk@example.com', taxNumber)
  const created = ok(await service.api.post('/api/create-payment', { value: '20.00', email: owner.email, euid: owner.euid }, { token: owner.token }))
  assert.equal((await service.pay(created.id, taxNumber)).body.status, 'depix_sent')
  const before = await balance(owner.token)
  const made = ok(await refund(owner.token, created.id, { amount: '5.00', reason: 'returned item' }, 'return-1'))
  assert.deepEqual([made.status, made.amount, made.fee_cents, made.debit_amount], ['pending', '5.00', 100, 600])
  assert.equal(await balance(owner.token), before - 600)
  await service.advance(1)
  assert.equal((await refundRecord(owner.token, made.id)).status, 'sent')
  const finished = await service.request({ method: 'POST', url: `/sandbox/refunds/${made.id}/payout`, body: {} })
  assert.deepEqual(finished.body, { id: made.id, status: 'completed' })
  assert.equal((await payment(owner.token, created.id)).refundedAmount, 500)
  const lines = (await balanceLines(owner.token)).filter((line) => line.payment_id === created.id).map((line) => [line.type, line.amount])
  assert.deepEqual(lines.slice(0, 2), [['refund', -600], ['refund_reserved', 0]], 'the refund paid, after its set-aside')
  assert.equal((await service.request({ method: 'POST', url: '/sandbox/refunds/rf_000000000000000000000000/payout', body: {} })).body.code, 'refund_not_found')
  await assertBooksBalance()
})

test('a charge that opted into the refund events gets refund.created and refund.completed, or refund.failed, with the refund in the body; the owner is e-mailed at each change', async () => {
  const bodies: WebhookEvent[] = []
  const hooks = createServer((request, response) => {
    let raw = ''
    request.on('data', (chunk) => (raw += chunk))
    request.on('end', () => {
      bodies.push(JSON.parse(raw))
      response.writeHead(204).end()
    })
  })
  hooks.listen(0, '127.0.0.1')
  await new Promise((resolve) => hooks.once('listening', resolve))
  try {
    const email = 'refund-hooks@example.com'
    const { token } = await shop(email, 2)
    const payer = generateCpf()
    const created = ok(await service.api.post('/api/create-payment', {
      value: '10.00', email, tax_number: payer, webhook_url: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`, webhook_events: ['refund.created', 'refund.completed', 'refund.failed'],
    }, { token }))
    await service.pay(created.id, payer)
    const made = ok(await refund(token, created.id, { amount: '2.00' }))
    await service.jobs.runDue()
    const payout = (await service.store.payouts.latestOf({ merchantRefundId: made.id }))!
    assert.equal(await service.sandbox!.fake.finishPayout(payout.provider_withdrawal_id!, 'sent'), 200)
    await service.request({ method: 'PUT', url: '/sandbox/provider/payouts', body: { refuse_keys: true } })
    const keyRefused = ok(await refund(token, created.id, { amount: '3.00' }))
    await service.jobs.runDue()
    await service.request({ method: 'PUT', url: '/sandbox/provider/payouts', body: { refuse_keys: false } })
    await service.jobs.runDue()
    const refundEvents = bodies.filter((body) => body.event.startsWith('refund.')).map((body) => `${body.event}:${body.refund?.id}:${body.refund?.status}`)
    assert.deepEqual(refundEvents.sort(), [`refund.created:${made.id}:pending`, `refund.completed:${made.id}:completed`, `refund.created:${keyRefused.id}:pending`, `refund.failed:${keyRefused.id}:failed`].sort())
    const failed = bodies.find((body) => body.event === 'refund.failed')
    assert.deepEqual([failed?.payment_id, failed?.refund?.failure_code, failed?.refund?.amount_cents], [created.id, 'payer_key_not_found', 300])
    assert.ok(bodies.filter((body) => !body.event.startsWith('refund.')).every((body) => !('refund' in body)), 'other events carry no refund')
    // The owner hears of every change: made, sent, completed; made, failed.
    const mails = (await service.request({ method: 'GET', url: `/sandbox/outbox?email=${encodeURIComponent(email)}` })).body.mails.filter((mail: { subject: string }) => mail.subject.startsWith('Sua devolução'))
    assert.equal(mails.length, 5, JSON.stringify(mails.map((mail: { subject: string }) => mail.subject)))
    assert.ok(mails.some((mail: { text: string }) => mail.text.includes(keyRefused.id) && mail.text.includes('não encontrou chave Pix')))
  } finally {
    await new Promise<void>((resolve) => { hooks.closeAllConnections(); hooks.close(() => resolve()) })
  }
})

test('a MED after the merchant refunded a payment is recorded and shown to support as refunded, then disputed (console and /ops)', async () => {
  const { token, payments: [paid] } = await shop('refund-med@example.com', 3)
  const made = ok(await refund(token, paid!.id, {}))
  // R$ 10,00 and the fee are above this suite's threshold: support sends it.
  const held = (await service.store.payouts.latestOf({ merchantRefundId: made.id }))!
  assert.equal((await service.ops('POST', `/ops/refund-payouts/${held.id}/review`, { decision: 'retry', note: 'ok' })).body.status, 'queued')
  await service.jobs.runDue()
  const payout = (await service.store.payouts.latestOf({ merchantRefundId: made.id }))!
  assert.equal(await service.sandbox!.fake.finishPayout(payout.provider_withdrawal_id!, 'sent'), 200)
  assert.equal((await payment(token, paid!.id)).status, 'refunded')
  const alertsBefore = (await service.ops('GET', '/ops/alerts')).body.alerts
  assert.ok(!alertsBefore.some((alert: { payment_id?: string }) => alert.payment_id === paid!.id))
  assert.equal((await service.request({ method: 'POST', url: `/sandbox/payments/${paid!.id}/med`, body: {} })).status, 200)
  const alert = (await service.ops('GET', '/ops/alerts')).body.alerts.find((row: { payment_id?: string }) => row.payment_id === paid!.id)
  assert.deepEqual([alert?.kind, alert?.refunded_cents, alert?.status], ['refunded_then_disputed', 1000, 'refunded'])
  const operator = await signedInOperator(service, 'ana@example.com')
  const page = await operator.get(`/console/charges/${paid!.id}`)
  assert.equal(page.status, 200)
  assert.match(page.html, /data-refunded-then-disputed/)
  assert.match(page.html, new RegExp(`data-merchant-refund="${made.id}"`))
  await assertBooksBalance()
})

test('a BTC payment held 7 days: the refund is priced at the accepted quote of the moment, rounded up against the account, taken from its own hold first; the release releases the rest', async () => {
  const email = 'refund-btc@example.com'
  const { token } = await shop(email)
  const payer = generateCpf()
  const euid = (await service.sandbox!.fake.endUser(payer, 'Payer')).euid
  await service.request({ method: 'PUT', url: '/sandbox/quotes', body: { BTC: '350000.00' } })
  const created = ok(await service.api.post('/api/create-payment', { value: '100.00', email, euid, swap_to: 'BTC' }, { token }))
  await service.pay(created.id, generateCpf())
  const charge = (await service.store.charges.findById(created.id))!
  assert.deepEqual([charge.status, charge.credited_units], ['after7d', 26684])
  const held = async () => (await service.store.ledger.balances(charge.account_id, 'held')).BTC
  const available = async () => (await service.store.ledger.balances(charge.account_id, 'available')).BTC
  assert.equal(await available(), 0)
  const made = await refund(token, created.id, { amount: '50.00' })
  assert.equal(made.status, 200, JSON.stringify(made.body))
  // R$ 50,00 and the provider's R$ 1,00: 5100 centavos at R$ 350.000,00 per BTC is 14571.43 sats, rounded up.
  assert.deepEqual([made.body.currency, made.body.fee_cents, made.body.debit_amount, made.body.held_amount], ['BTC', 100, 14572, 14572])
  assert.ok(made.body.quote !== null)
  assert.equal(await held(), 26684 - 14572)
  // Above this suite's review threshold: support sends it.
  const waiting = (await service.store.payouts.latestOf({ merchantRefundId: made.body.id }))!
  assert.equal((await service.ops('POST', `/ops/refund-payouts/${waiting.id}/review`, { decision: 'retry', note: 'ok' })).body.status, 'queued')
  await service.jobs.runDue()
  const payout = (await service.store.payouts.latestOf({ merchantRefundId: made.body.id }))!
  assert.equal(await service.sandbox!.fake.finishPayout(payout.provider_withdrawal_id!, 'sent'), 200)
  await assertBooksBalance()
  // What is left of the hold is all the account has: the rest of the payment cannot be refunded now.
  assert.equal(refused(await refund(token, created.id, {})).code, 'insufficient_funds')
  await service.advance(7 * 24 * 3600)
  assert.equal((await service.store.charges.findById(created.id))!.status, 'depix_sent')
  assert.deepEqual([await held(), await available()], [0, 26684 - 14572], 'the release releases only what the refund did not take')
  await assertBooksBalance()
})

test('a refund whose Pix the provider fails after our DePix left stays sent, an alert for support in /ops and the console\'s queue, linked to its charge', async () => {
  const { token, payments: [paid] } = await shop('refund-pix-failed@example.com', 2)
  const made = ok(await refund(token, paid!.id, { amount: '3.00' }))
  await service.jobs.runDue()
  const payout = (await service.store.payouts.latestOf({ merchantRefundId: made.id }))!
  assert.equal(payout.status, 'sent')
  assert.equal(await service.sandbox!.fake.finishPayout(payout.provider_withdrawal_id!, 'error'), 200)
  assert.equal((await refundRecord(token, made.id)).status, 'sent')
  const alert = (await service.ops('GET', '/ops/alerts')).body.alerts.find((row: { merchant_refund_id?: string }) => row.merchant_refund_id === made.id)
  assert.deepEqual([alert?.kind, alert?.refund_payout_id, alert?.provider_status], ['merchant_refund_payout_failed_after_sending', payout.id, 'error'])
  const operator = await signedInOperator(service, 'ana@example.com')
  const queue = await operator.get('/console/queues/provider_refusals')
  assert.equal(queue.status, 200)
  assert.ok(queue.html.includes(`/console/charges/${paid!.id}`), 'the row opens the refund\'s charge')
  await assertBooksBalance()
})

test('refunds count against the withdrawal limits: refused above the per-withdrawal limit, waiting for support once the day\'s refunds pass the daily limit', async () => {
  const limited = await startTestService({ WITHDRAWAL_LIMIT_BRL: '8.00', WITHDRAWAL_DAILY_LIMIT_BRL: '12.00' })
  try {
    const merchant = await limited.merchant('refund-limits@example.com', generateCpf())
    const charges: string[] = []
    for (let i = 0; i < 3; i++) {
      const payer = generateCpf()
      const created = ok(await limited.api.post('/api/create-payment', { value: '10.00', email: merchant.email, tax_number: payer }, { token: merchant.token }))
      await limited.pay(created.id, payer)
      charges.push(created.id)
    }
    const ask = (chargeId: string, amount: string) => limited.api.post(`/api/payments/${chargeId}/refunds`, { amount }, { token: merchant.token })
    // R$ 8,00 and the provider's R$ 1,00 are more than one withdrawal may be.
    assert.equal(refused(await ask(charges[0]!, '8.00')).code, 'withdrawal_limit_exceeded')
    // R$ 5,00 + R$ 5,00 fit the day's R$ 12,00; the third (R$ 4,00) does not: it waits for support.
    const first = ok(await ask(charges[0]!, '4.00'))
    const second = ok(await ask(charges[1]!, '4.00'))
    const third = ok(await ask(charges[2]!, '3.00'))
    assert.deepEqual([first.review_reason, second.review_reason, third.review_reason], [null, null, 'daily_limit'])
    // A day later the window has room again.
    await limited.advance(24 * 3600 + 1)
    assert.equal(ok(await ask(charges[2]!, '2.00')).review_reason, null)
  } finally {
    await limited.close()
  }
})

test('twenty refunds of one charge at once, through two instances on one PostgreSQL: never more in all than was paid', { skip: testDatabase !== 'postgres' }, async () => {
  const { first, second, close } = await twoInstances()
  try {
    await first.app.listen({ host: '127.0.0.1', port: 0 })
    const post = (app: typeof first.app, url: string, body: unknown, headers: Record<string, string> = {}) => app.inject({ method: 'POST', url, payload: body as object, headers })
    const taxNumber = generateCpf()
    const account = (await post(first.app, '/sandbox/accounts', { email: 'race-refund@example.com', tax_number: taxNumber, name: 'Race Owner' })).json()
    const token = (await post(first.app, '/sandbox/accounts/race-refund@example.com/tokens', {})).json().token
    // Two R$ 300,00 payments: the balance (R$ 598,00) covers more than one charge's refunds may give back.
    const charges: string[] = []
    for (let i = 0; i < 2; i++) {
      const charge = ok(await first.api.post('/api/create-payment', { value: '300.00', email: 'race-refund@example.com', euid: account.euid }, { token }))
      assert.equal((await post(first.app, `/sandbox/payments/${charge.id}/pay`, { payer_name: 'Race Owner', payer_tax_number: taxNumber })).json().status, 'depix_sent')
      charges.push(charge.id)
    }
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      (i % 2 ? second : first).api.post(`/api/payments/${charges[0]}/refunds`, { amount: '20.00' }, { token })))
    const codes = answers.map((answer) => (answer.status === 200 ? answer.body.status : answer.body.code))
    assert.equal(codes.filter((code) => code === 'pending').length, 15, JSON.stringify(codes))
    assert.equal(codes.filter((code) => code === 'refund_exceeds_paid').length, 5, JSON.stringify(codes))
    assert.equal(ok(await second.api.get(`/api/get-payment/${charges[0]}`, { token })).refundedAmount, 30_000)
    const owner = (await first.store.accounts.findByEmail('race-refund@example.com'))!
    assert.equal((await second.store.ledger.balances(owner.id, 'withdrawing')).DEPIX, 15 * 2_100)
    assert.equal((await checkLedger({ store: first.store, treasury: first.treasury })).ok, true)
  } finally {
    await close()
  }
})

test('a refund is a payout: an account with an open MED is refused when it asks, and a refund waiting in review whose account meets a MED waits again instead of leaving', async () => {
  const { token, payments: [first, second, third] } = await shop('refund-blocked@example.com', 3)
  // Waiting for support (above the threshold) when the MED comes.
  const waiting = ok(await refund(token, first!.id, { amount: '9.00' }))
  assert.equal(waiting.review_reason, 'over_threshold')
  assert.equal((await service.request({ method: 'POST', url: `/sandbox/payments/${second!.id}/med`, body: {} })).status, 200)

  const blocked = await refund(token, third!.id, { amount: '2.00' })
  assert.deepEqual([blocked.status, refused(blocked).code], [403, 'withdrawal_not_allowed'])

  const held = (await service.store.payouts.latestOf({ merchantRefundId: waiting.id }))!
  assert.equal((await service.ops('POST', `/ops/refund-payouts/${held.id}/review`, { decision: 'retry', note: 'known customer' })).body.status, 'queued')
  await service.jobs.runDue()
  const again = (await service.store.payouts.latestOf({ merchantRefundId: waiting.id }))!
  assert.deepEqual([again.status, again.review_reason, again.provider_withdrawal_id], ['in_review', 'account_not_allowed', null], 'nothing asked of the provider')
  await assertBooksBalance()
})
