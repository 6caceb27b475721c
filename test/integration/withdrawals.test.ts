// An owner takes the balance out, as Pix or on Liquid, exactly once (docs/rules.md#withdrawals).
// Through the Wallet's pages and the public API, in sandbox mode, with the fake provider and the
// fake Elements treasury reached over HTTP by the production adapters.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { newLiquidAddress, parseLiquidAddress } from '../../src/treasury/liquid-address.ts'
import { ok, refused } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { newestCode, signedInClient, walletClient } from '../support/wallet-client.ts'
import { confirmedDestination, ownerWithBalance } from '../support/withdrawals.ts'

let service: TestService
before(async () => {
  service = await startTestService({ WITHDRAWAL_REVIEW_BRL: '1000.00', WITHDRAWAL_LIMIT_BRL: '2000.00' })
})
after(() => service.close())

const BLINDING_KEY = Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')
const liquidAddress = () => newLiquidAddress('elementsregtest', randomBytes(20), BLINDING_KEY)

const balance = async (token: string) => ok(await service.api.get('/api/get-balance', { token })).balances
/** The subjects of the withdrawal e-mails queued for `email`, oldest first. */
const withdrawalMails = async (email: string) => {
  await service.jobs.runDue()
  const mails = (await service.request({ method: 'GET', url: `/sandbox/outbox?email=${email}` })).body.mails as Array<{ subject: string }>
  return mails.map((mail) => mail.subject).filter((subject) => subject.startsWith('Seu saque')).reverse()
}
const withdrawal = async (token: string, id: string) => ok(await service.api.get(`/api/withdrawals/${id}`, { token }))

test('a Liquid withdrawal through the API: destination confirmed in the Wallet, cool-down, one transaction, completed after 2 blocks, books balanced', async () => {
  const owner = await ownerWithBalance(service, 'liquid-out@example.com', '300.00')
  const address = liquidAddress()
  const destination = await confirmedDestination(service, owner, 'liquid', address)
  const listed = ok(await service.api.get('/api/withdrawal-destinations', { token: owner.token }))
  assert.equal(listed.destinations[0]!.state, 'cooling_down')

  const ask = (key: string, amount = 10_000) => service.api.post('/api/withdrawals', { currency: 'DEPIX', amount, destination_id: destination }, { token: owner.token, headers: { 'idempotency-key': key } })
  assert.equal(refused(await ask('early')).code, 'destination_cooling_down')
  await service.advance(24 * 3600 + 1)

  const made = await ask('order-1')
  assert.equal(made.status, 200, JSON.stringify(made.body))
  assert.deepEqual([made.body.status, made.body.amount, made.body.fee, made.body.net_amount], ['confirmed', 10_000, 200, 9_800])
  assert.equal(ok(await ask('order-1')).id, made.body.id, 'the same key answers the same withdrawal')
  assert.equal((await balance(owner.token)).DEPIX.available_cents, 29_900 - 10_000)

  await service.jobs.runDue()
  const sent = await withdrawal(owner.token, made.body.id)
  assert.equal(sent.status, 'sent')
  assert.match(String(sent.txid), /^[0-9a-f]{64}$/)
  const paid = service.sandbox!.elements.transactions().filter((tx) => tx.outputs.some((output) => output.scriptHex === parseLiquidAddress(address, 'elementsregtest')!.scriptHex))
  assert.equal(paid.length, 1)
  assert.deepEqual(paid[0]!.outputs.map((output) => [output.currency, output.units]), [['DEPIX', 9_800n * 1_000_000n]])

  await service.request({ method: 'POST', url: '/sandbox/treasury/mine', body: { blocks: 1 } })
  assert.equal((await withdrawal(owner.token, made.body.id)).status, 'sent')
  await service.request({ method: 'POST', url: '/sandbox/treasury/mine', body: { blocks: 1 } })
  assert.equal((await withdrawal(owner.token, made.body.id)).status, 'completed')
  assert.equal(service.sandbox!.elements.transactions().filter((tx) => tx.outputs.some((output) => output.address === address || output.scriptHex === parseLiquidAddress(address, 'elementsregtest')!.scriptHex)).length, 1)

  const books = (await service.ops('GET', '/ops/ledger-check')).body
  assert.equal(books.ok, true, JSON.stringify(books))
  const total = (book: string) => books.books.find((row: { book: string; currency: string }) => row.book === book && row.currency === 'DEPIX')?.total ?? 0
  assert.deepEqual([total('withdrawing'), total('withdrawals_sent')], [0, 9_800])
  const listedWithdrawals = ok(await service.api.get('/api/withdrawals?status=completed', { token: owner.token }))
  assert.deepEqual(listedWithdrawals.withdrawals.map((row) => row.id), [made.body.id])
  // The owner is e-mailed as it is confirmed and as it ends, not as it is sent.
  assert.deepEqual(await withdrawalMails(owner.email), ['Seu saque de R$ 100,00: Confirmado, na fila', 'Seu saque de R$ 100,00: Concluído'])
})

test('a Pix withdrawal in the Wallet: the fees and what arrives shown, a code bound to it, the provider paid once, completed on its word', async () => {
  const owner = await ownerWithBalance(service, 'pix-out@example.com', '300.00')
  const destination = await confirmedDestination(service, owner, 'pix', owner.taxNumber)
  await service.advance(24 * 3600 + 1)
  // A day later the session has ended: the owner signs in again.
  owner.wallet = await signedInClient(service, owner.email)
  await owner.wallet.get('/wallet/withdrawals')
  const asked = await owner.wallet.post('/wallet/withdrawals', { destination_id: destination, currency: 'DEPIX', amount: '100,00' })
  assert.equal(asked.status, 303, asked.html)
  const page = await owner.wallet.get(asked.location!)
  // R$ 100,00: our 2 % (R$ 2,00), then the provider's 1 % of R$ 98,00, at least R$ 1,00: R$ 97,00 arrive.
  assert.match(page.html, /R\$ 2,00/)
  assert.match(page.html, /data-arrives>R\$ 97,00</)
  const id = /wd_[0-9a-f]{24}/.exec(asked.location!)![0]
  assert.equal((await owner.wallet.post(`/wallet/withdrawals/${id}/confirm`, { code: '000000' })).headers['x-error-code'], 'action_code_invalid')
  await owner.wallet.get(asked.location!)
  const confirmed = await owner.wallet.post(`/wallet/withdrawals/${id}/confirm`, { code: await newestCode(service, owner.email) })
  assert.equal(confirmed.status, 303, confirmed.html)
  await service.jobs.runDue()
  const withdrawal = (await service.store.withdrawals.findById(id))!
  assert.equal(withdrawal.status, 'sent')
  assert.equal(await service.sandbox!.fake.payoutCount(), 1)
  assert.equal((await service.sandbox!.fake.payout((await service.store.payouts.latestOf({ withdrawalId: id }))!.provider_withdrawal_id!))!.status, 'sending')
  const finished = await service.request({ method: 'POST', url: `/sandbox/withdrawals/${id}/payout`, body: { outcome: 'sent' } })
  assert.equal(finished.body.status, 'completed', JSON.stringify(finished.body))
  assert.match((await owner.wallet.get(`/wallet/withdrawals/${id}`)).html, /data-status="completed"/)
  assert.equal((await service.ops('GET', '/ops/ledger-check')).body.ok, true)
})

test('the rules of a withdrawal: only available money, the minimums and maximums, the limits, the review threshold, the right currency', async () => {
  const owner = await ownerWithBalance(service, 'rules-out@example.com', '499.00')
  const pix = await confirmedDestination(service, owner, 'pix', owner.taxNumber)
  const liquid = await confirmedDestination(service, owner, 'liquid', liquidAddress())
  await service.advance(24 * 3600 + 1)
  const code = async (body: Record<string, unknown>) => refused(await service.api.postUntyped('/api/withdrawals', body, { token: owner.token })).code
  assert.equal(await code({ currency: 'BTC', amount: 5_000, destination_id: pix }), 'destination_currency_invalid')
  assert.equal(await code({ currency: 'DEPIX', amount: 199, destination_id: pix }), 'amount_below_minimum')
  // The Pix-out bounds are on what the provider is sent, after our 2 %: R$ 2,04 sends R$ 1,99.
  assert.equal(await code({ currency: 'DEPIX', amount: 204, destination_id: pix }), 'amount_below_minimum')
  assert.equal(await code({ currency: 'DEPIX', amount: 99, destination_id: liquid }), 'amount_below_minimum')
  assert.equal(await code({ currency: 'DEPIX', amount: 612_246, destination_id: pix }), 'amount_above_maximum')
  assert.equal(await code({ currency: 'DEPIX', amount: 49_801, destination_id: liquid }), 'insufficient_funds', 'R$ 498,00 available')
  assert.equal(await code({ currency: 'BTC', amount: 1_000, destination_id: liquid }), 'insufficient_funds', 'no L-BTC credited')
  assert.equal(await code({ currency: 'DEPIX', amount: 1_000, destination_id: 'dst_000000000000000000000000' }), 'destination_not_found')
  assert.equal(await code({ currency: 'DOGE', amount: 1_000, destination_id: liquid }), 'currency_invalid')
  assert.equal(await code({ currency: 'DEPIX', amount: 10.5, destination_id: liquid }), 'amount_invalid', 'not an integer: no minimum can be judged')
  assert.equal(await code({ currency: 'DEPIX', amount: 1_000, destination_id: liquid, extra: true }), 'invalid_request')

  // Above WITHDRAWAL_REVIEW_BRL (R$ 1.000,00 here) it waits for support, reserved; support rejects and the amount comes back.
  const rich = await ownerWithBalance(service, 'review-out@example.com', '499.00')
  for (let i = 0; i < 4; i++) {
    const more = ok(await service.api.post('/api/create-payment', { value: '499.00', email: rich.email, euid: rich.euid }, { token: rich.token }))
    await service.pay(more.id, rich.taxNumber)
  }
  const richLiquid = await confirmedDestination(service, rich, 'liquid', liquidAddress())
  await service.advance(24 * 3600 + 1)
  const available = (await balance(rich.token)).DEPIX.available_cents
  assert.equal(refused(await service.api.post('/api/withdrawals', { currency: 'DEPIX', amount: 200_001, destination_id: richLiquid }, { token: rich.token })).code, 'withdrawal_limit_exceeded')
  const transactionsBefore = service.sandbox!.elements.transactions().length
  const big = ok(await service.api.post('/api/withdrawals', { currency: 'DEPIX', amount: 150_000, destination_id: richLiquid }, { token: rich.token }))
  assert.deepEqual([big.status, big.review_reason], ['in_review', 'over_threshold'])
  assert.equal((await balance(rich.token)).DEPIX.available_cents, available - 150_000)
  await service.jobs.runDue()
  assert.equal(service.sandbox!.elements.transactions().length, transactionsBefore, 'nothing sent while in review')
  const queue = await service.ops('GET', '/ops/withdrawals')
  assert.deepEqual(queue.body.withdrawals.map((row: { id: string }) => row.id), [big.id])
  const rejected = await service.ops('POST', `/ops/withdrawals/${big.id}/review`, { decision: 'reject', note: 'not the owner\'s usual pattern' })
  assert.deepEqual([rejected.body.status, rejected.body.failure_code], ['canceled', 'rejected_by_support'])
  assert.equal((await balance(rich.token)).DEPIX.available_cents, available)
  assert.equal((await service.ops('POST', `/ops/withdrawals/${big.id}/review`, { decision: 'approve', note: 'x' })).body.code, 'withdrawal_not_in_review')
  const audit = (await service.ops('GET', '/ops/audit')).body.entries as Array<{ action: string; subject: string; actor: string }>
  assert.ok(audit.some((entry) => entry.action === 'withdrawal.reject' && entry.subject === big.id && entry.actor === 'ana@support'))
  assert.equal((await service.ops('GET', '/ops/ledger-check')).body.ok, true)
})

test('solvency: a withdrawal the treasury cannot cover waits in review, /ops/treasury and /metrics show the shortfall, and support sends it once it is covered', async () => {
  const owner = await ownerWithBalance(service, 'solvency@example.com', '300.00')
  const destination = await confirmedDestination(service, owner, 'liquid', liquidAddress())
  await service.advance(24 * 3600 + 1)
  const before = await service.request({ method: 'GET', url: '/sandbox/treasury' })
  await service.request({ method: 'PUT', url: '/sandbox/treasury', body: { DEPIX: 5_000 } })
  const made = ok(await service.api.post('/api/withdrawals', { currency: 'DEPIX', amount: 10_000, destination_id: destination }, { token: owner.token }))
  await service.jobs.runDue()
  const held = await withdrawal(owner.token, made.id)
  assert.deepEqual([held.status, held.review_reason, held.txid], ['in_review', 'treasury_insufficient', null])
  const solvency = (await service.ops('GET', '/ops/treasury')).body.treasury as Array<{ currency: string; owed: number; treasury: number; shortfall: number }>
  const depix = solvency.find((row) => row.currency === 'DEPIX')!
  assert.equal(depix.treasury, 5_000)
  assert.ok(depix.shortfall > 0 && depix.shortfall === depix.owed - 5_000, JSON.stringify(depix))
  assert.match(String((await service.ops('GET', '/metrics')).body), new RegExp(`pix_treasury_shortfall\\{currency="DEPIX"\\} ${depix.shortfall}`))

  await service.request({ method: 'PUT', url: '/sandbox/treasury', body: { DEPIX: before.body.DEPIX } })
  const approved = await service.ops('POST', `/ops/withdrawals/${made.id}/review`, { decision: 'approve', note: 'treasury topped up' })
  assert.equal(approved.body.status, 'confirmed')
  await service.jobs.runDue()
  assert.equal((await withdrawal(owner.token, made.id)).status, 'sent')
  assert.equal((await service.ops('GET', '/ops/treasury')).body.treasury.find((row: { currency: string }) => row.currency === 'DEPIX').shortfall, 0)
  // Held, approved and sent are steps: the owner heard only of the confirmation so far.
  assert.deepEqual(await withdrawalMails(owner.email), ['Seu saque de R$ 100,00: Confirmado, na fila'])
})

test('an owner cancels before anything left, the amount comes back; a leaked token cannot add a destination', async () => {
  const owner = await ownerWithBalance(service, 'cancel-out@example.com', '100.00')
  const address = liquidAddress()
  const destination = await confirmedDestination(service, owner, 'liquid', address)
  assert.equal((await service.request({ method: 'POST', url: '/api/withdrawal-destinations', token: owner.token, body: { type: 'liquid', value: liquidAddress() } })).status, 404)
  await service.advance(24 * 3600 + 1)
  owner.wallet = await signedInClient(service, owner.email)
  await owner.wallet.get('/wallet/withdrawals')
  const asked = await owner.wallet.post('/wallet/withdrawals', { destination_id: destination, currency: 'DEPIX', amount: '50,00' })
  const id = /wd_[0-9a-f]{24}/.exec(asked.location!)![0]
  await owner.wallet.get(asked.location!)
  await owner.wallet.post(`/wallet/withdrawals/${id}/confirm`, { code: await newestCode(service, owner.email) })
  assert.equal((await balance(owner.token)).DEPIX.available_cents, 9_900 - 5_000)
  await owner.wallet.get(`/wallet/withdrawals/${id}`)
  await owner.wallet.post(`/wallet/withdrawals/${id}/cancel`)
  const canceled = (await service.store.withdrawals.findById(id))!
  assert.deepEqual([canceled.status, canceled.failure_code], ['canceled', 'canceled_by_owner'])
  assert.equal((await balance(owner.token)).DEPIX.available_cents, 9_900)
  await service.jobs.runDue()
  assert.equal(service.sandbox!.elements.transactions().filter((tx) => tx.outputs.some((output) => output.address === address)).length, 0)
  // Every change reached the owner by e-mail.
  const mails = (await service.request({ method: 'GET', url: `/sandbox/outbox?email=${owner.email}` })).body.mails as Array<{ subject: string }>
  assert.ok(mails.some((mail) => /Seu saque de R\$ 50,00: Cancelado/.test(mail.subject)), JSON.stringify(mails.map((mail) => mail.subject)))
})

test("a Wallet withdrawal whose destination the e-mail's link canceled after it was asked for can no longer be confirmed: nothing reserved, nothing sent", async () => {
  const owner = await ownerWithBalance(service, 'canceled-destination@example.com', '100.00')
  const destination = await confirmedDestination(service, owner, 'pix', owner.taxNumber)
  const outbox = async () => (await service.request({ method: 'GET', url: `/sandbox/outbox?email=${owner.email}` })).body.mails as Array<{ text: string; code: string | null }>
  const cancelPath = new URL(/https?:\/\/\S+\/wallet\/destinations\/cancel\/[\w-]+/.exec((await outbox()).map((mail) => mail.text).join('\n'))![0]).pathname
  await service.advance(24 * 3600 + 1)
  owner.wallet = await signedInClient(service, owner.email)
  await owner.wallet.get('/wallet/withdrawals')
  const asked = await owner.wallet.post('/wallet/withdrawals', { destination_id: destination, currency: 'DEPIX', amount: '50,00' })
  assert.equal(asked.status, 303, asked.html)
  const id = /wd_[0-9a-f]{24}/.exec(asked.location!)![0]
  const code = await newestCode(service, owner.email)
  // Someone else follows the destination e-mail's link, signed out, on another device.
  const elsewhere = walletClient(service, '203.0.113.9')
  assert.equal((await elsewhere.get(cancelPath)).status, 200)
  assert.equal((await elsewhere.post(cancelPath)).status, 200)
  assert.equal(ok(await service.api.get('/api/withdrawal-destinations', { token: owner.token })).destinations.length, 0)

  await owner.wallet.get(asked.location!)
  const confirmed = await owner.wallet.post(`/wallet/withdrawals/${id}/confirm`, { code })
  assert.deepEqual([confirmed.status, confirmed.headers['x-error-code']], [409, 'destination_canceled'])
  assert.equal((await service.store.withdrawals.findById(id))!.status, 'requested')
  assert.equal((await balance(owner.token)).DEPIX.available_cents, 9_900)
  const payouts = await service.sandbox!.fake.payoutCount()
  await service.jobs.runDue()
  assert.equal(await service.sandbox!.fake.payoutCount(), payouts)
  assert.equal((await service.ops('GET', '/ops/ledger-check')).body.ok, true)
})
