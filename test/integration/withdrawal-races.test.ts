// Integration runner: postgres only (every test here skips on PGlite).
// Withdrawals (docs/rules.md#withdrawal-lifecycle) race on one account across two instances sharing
// one PostgreSQL database; the account lock makes each confirmation see what the others reserved, so
// the available balance never goes below zero through a withdrawal.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { checkLedger } from '../../src/app/check-ledger.ts'
import { newLiquidAddress, parseLiquidAddress } from '../../src/treasury/liquid-address.ts'
import { ok } from '../support/api.ts'
import { T0, testDatabase, twoInstances } from '../support/harness.ts'

test('twenty withdrawals at once on one account, through two instances: only what the balance covers is reserved', { skip: testDatabase !== 'postgres' }, async () => {
  const { first, second, close } = await twoInstances()
  try {
    // Listening, so the sandbox's provider can deliver its webhook for the payment that funds the account.
    await first.app.listen({ host: '127.0.0.1', port: 0 })
    const post = (app: typeof first.app, url: string, body: unknown, headers: Record<string, string> = {}) => app.inject({ method: 'POST', url, payload: body as object, headers })
    const taxNumber = generateCpf()
    const account = (await post(first.app, '/sandbox/accounts', { email: 'race-out@example.com', tax_number: taxNumber, name: 'Race Owner' })).json()
    const token = (await post(first.app, '/sandbox/accounts/race-out@example.com/tokens', {})).json().token
    const charge = ok(await first.api.post('/api/create-payment', { value: '300.00', email: 'race-out@example.com', euid: account.euid }, { token }))
    assert.equal((await post(first.app, `/sandbox/payments/${charge.id}/pay`, { payer_name: 'Race Owner', payer_tax_number: taxNumber })).json().status, 'depix_sent')
    // A destination confirmed and past its cool-down (the Wallet's part has its own tests).
    const owner = (await first.store.accounts.findByEmail('race-out@example.com'))!
    const address = newLiquidAddress('elementsregtest', randomBytes(20), Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex'))
    const destination = (await first.store.withdrawals.insertDestination({
      id: `dst_${randomBytes(12).toString('hex')}`, account_id: owner.id, type: 'liquid', value: address, script_hex: parseLiquidAddress(address, 'elementsregtest')!.scriptHex, label: null,
      state: 'confirmed', created_at: T0, confirmed_at: T0, usable_at: T0, canceled_at: null, cancel_token_hash: createHash('sha256').update(randomBytes(8)).digest('hex'),
    }))!

    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      (i % 2 ? second : first).api.post('/api/withdrawals', { currency: 'DEPIX', amount: 3_000, destination_id: destination.id }, { token })))
    const codes = answers.map((answer) => (answer.status === 200 ? answer.body.status : answer.body.code))
    // R$ 299,00 available: nine R$ 30,00 withdrawals fit, the tenth does not.
    assert.equal(codes.filter((code) => code === 'confirmed').length, 9, JSON.stringify(codes))
    assert.equal(codes.filter((code) => code === 'insufficient_funds').length, 11, JSON.stringify(codes))
    assert.equal((await second.store.ledger.balances(owner.id, 'available')).DEPIX, 29_900 - 9 * 3_000)
    assert.equal((await second.store.ledger.balances(owner.id, 'withdrawing')).DEPIX, 9 * 3_000)
    assert.equal((await checkLedger({ store: first.store, treasury: first.treasury })).ok, true)
  } finally {
    await close()
  }
})

test('support orders the Pix-out of one refund from two instances at once (and records it paid by bank meanwhile): one payout, the refund paid once', { skip: testDatabase !== 'postgres' }, async () => {
  const opsToken = 'a-long-operator-token-for-the-race-test'
  const { first, second, close } = await twoInstances({ OPS_TOKEN: opsToken })
  try {
    await first.app.listen({ host: '127.0.0.1', port: 0 })
    const post = (app: typeof first.app, url: string, body: unknown, headers: Record<string, string> = {}) => app.inject({ method: 'POST', url, payload: body as object, headers })
    const operator = { authorization: `Bearer ${opsToken}`, 'x-operator': 'ana@support' }
    const merchantTax = generateCpf()
    await post(first.app, '/sandbox/accounts', { email: 'race-refund@example.com', tax_number: merchantTax, name: 'Race Shop' })
    const token = (await post(first.app, '/sandbox/accounts/race-refund@example.com/tokens', {})).json().token
    const charge = ok(await first.api.post('/api/create-payment', { value: '10.00', email: 'race-refund@example.com', tax_number: generateCpf() }, { token }))
    // Paid by a stranger: held, and refunded by support, so R$ 10,00 is owed to that stranger.
    assert.equal((await post(first.app, `/sandbox/payments/${charge.id}/pay`, { payer_name: 'Stranger Payer', payer_tax_number: generateCpf() })).json().status, 'security_hold')
    assert.equal((await post(first.app, `/ops/payments/${charge.id}/review`, { decision: 'refund', note: 'paid by a stranger' }, operator)).json().status, 'will_refund')
    const refundId = (await first.store.refunds.findByCharge(charge.id))!.id

    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => {
      const app = i % 2 ? second.app : first.app
      // Every third is support recording it paid by bank transfer instead: also a payment of what is owed.
      return i % 3 === 2
        ? post(app, `/ops/refunds/${refundId}/paid`, { reference: `E${i}`, note: 'paid by bank' }, operator)
        : post(app, `/ops/refunds/${refundId}/payout`, { note: `order ${i}` }, operator)
    }))
    const outcomes = answers.map((answer) => (answer.statusCode === 200 ? 'ok' : answer.json().code))
    assert.equal(outcomes.filter((outcome) => outcome === 'ok').length, 1, JSON.stringify(outcomes))
    assert.ok(outcomes.every((outcome) => ['ok', 'refund_payout_in_progress', 'refund_not_owed'].includes(outcome)), JSON.stringify(outcomes))
    const payouts = await first.database.db.selectFrom('payouts').select(['id', 'status']).where('refund_id', '=', refundId).execute()
    const refund = (await first.store.refunds.findById(refundId))!
    // Either one payout on its way and the refund still owed until it lands, or paid by bank and no payout.
    if (payouts.length === 1) assert.equal(refund.status, 'owed')
    else assert.deepEqual([payouts.length, refund.status, refund.paid_by_us_cents], [0, 'paid', 1000])
    assert.equal((await checkLedger({ store: second.store, treasury: second.treasury })).ok, true)
  } finally {
    await close()
  }
})
