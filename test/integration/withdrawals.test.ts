// Issue 23: an owner takes the balance out, as Pix or on Liquid, exactly once (decisions 15).
// Through the Wallet's pages and the public API, in sandbox mode, with the fake provider and the
// fake Elements treasury reached over HTTP by the production adapters.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { newLiquidAddress, parseLiquidAddress } from '../../src/treasury/liquid-address.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { newestCode, signedInClient } from '../support/wallet-client.ts'
import { confirmedDestination, ownerWithBalance } from '../support/withdrawals.ts'

let service: TestService
before(async () => {
  service = await startTestService({ WITHDRAWAL_REVIEW_BRL: '1000.00', WITHDRAWAL_LIMIT_BRL: '2000.00' })
})
after(() => service.close())

const BLINDING_KEY = Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')
const liquidAddress = () => newLiquidAddress('elementsregtest', randomBytes(20), BLINDING_KEY)

const balance = async (token: string) => (await service.request({ method: 'GET', url: '/api/get-balance', token })).body.balances

test('a Liquid withdrawal through the API: destination confirmed in the Wallet, cool-down, one transaction, completed after 2 blocks, books balanced', async () => {
  const owner = await ownerWithBalance(service, 'liquid-out@example.com', '300.00')
  const address = liquidAddress()
  const destination = await confirmedDestination(service, owner, 'liquid', address)
  const listed = await service.request({ method: 'GET', url: '/api/withdrawal-destinations', token: owner.token })
  assert.equal(listed.body.destinations[0].state, 'cooling_down')

  const ask = (key: string, amount = 10_000) => service.request({ method: 'POST', url: '/api/withdrawals', token: owner.token, headers: { 'idempotency-key': key }, body: { currency: 'DEPIX', amount, destination_id: destination } })
  assert.equal((await ask('early')).body.code, 'destination_cooling_down')
  await service.advance(24 * 3600 + 1)

  const made = await ask('order-1')
  assert.equal(made.status, 200, JSON.stringify(made.body))
  assert.deepEqual([made.body.status, made.body.amount, made.body.fee, made.body.net_amount], ['confirmed', 10_000, 200, 9_800])
  assert.equal((await ask('order-1')).body.id, made.body.id, 'the same key answers the same withdrawal')
  assert.equal((await balance(owner.token)).DEPIX.available_cents, 29_900 - 10_000)

  await service.jobs.runDue()
  const sent = (await service.request({ method: 'GET', url: `/api/withdrawals/${made.body.id}`, token: owner.token })).body
  assert.equal(sent.status, 'sent')
  assert.match(sent.txid, /^[0-9a-f]{64}$/)
  const paid = service.sandbox!.elements.transactions().filter((tx) => tx.outputs.some((output) => output.scriptHex === parseLiquidAddress(address, 'elementsregtest')!.scriptHex))
  assert.equal(paid.length, 1)
  assert.deepEqual(paid[0]!.outputs.map((output) => [output.currency, output.units]), [['DEPIX', 9_800n * 1_000_000n]])

  await service.request({ method: 'POST', url: '/sandbox/treasury/mine', body: { blocks: 1 } })
  assert.equal((await service.request({ method: 'GET', url: `/api/withdrawals/${made.body.id}`, token: owner.token })).body.status, 'sent')
  await service.request({ method: 'POST', url: '/sandbox/treasury/mine', body: { blocks: 1 } })
  assert.equal((await service.request({ method: 'GET', url: `/api/withdrawals/${made.body.id}`, token: owner.token })).body.status, 'completed')
  assert.equal(service.sandbox!.elements.transactions().filter((tx) => tx.outputs.some((output) => output.address === address || output.scriptHex === parseLiquidAddress(address, 'elementsregtest')!.scriptHex)).length, 1)

  const books = (await service.ops('GET', '/ops/ledger-check')).body
  assert.equal(books.ok, true, JSON.stringify(books))
  const total = (book: string) => books.books.find((row: { book: string; currency: string }) => row.book === book && row.currency === 'DEPIX')?.total ?? 0
  assert.deepEqual([total('withdrawing'), total('withdrawals_sent')], [0, 9_800])
  const listedWithdrawals = await service.request({ method: 'GET', url: '/api/withdrawals?status=completed', token: owner.token })
  assert.deepEqual(listedWithdrawals.body.withdrawals.map((row: { id: string }) => row.id), [made.body.id])
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
  assert.equal((await service.sandbox!.fake.payout(withdrawal.provider_withdrawal_id!))!.status, 'sending')
  const finished = await service.request({ method: 'POST', url: `/sandbox/withdrawals/${id}/payout`, body: { outcome: 'sent' } })
  assert.equal(finished.body.status, 'completed', JSON.stringify(finished.body))
  assert.match((await owner.wallet.get(`/wallet/withdrawals/${id}`)).html, /data-status="completed"/)
  assert.equal((await service.ops('GET', '/ops/ledger-check')).body.ok, true)
})
