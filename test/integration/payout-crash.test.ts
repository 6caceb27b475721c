// Issue 23 (point 4): money leaves exactly once. The service runs as a child process in
// production mode, with the fake provider and the fake Elements treasury in this process; it is
// killed (SIGKILL) between every step of a payout: around each call to the treasury node, and
// while the provider holds the answer to POST /withdraw. After each kill a new process takes the
// work over from what was stored. Each withdrawal ends completed, with one transaction to its
// destination (one provider payout for a Pix-out), and the books balance. A refund support pays by
// Pix-out goes through the same steps and is killed twice: while the provider holds the answer to
// POST /withdraw, and where its completion would be written; so does a merchant's refund.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { checkLedger } from '../../src/app/check-ledger.ts'
import { createStore } from '../../src/store/store.ts'
import { newLiquidAddress } from '../../src/treasury/liquid-address.ts'
import type { WithdrawalStatus } from '../../sdk/src/types.ts'
import type { FakeEulenTables } from '../../src/sandbox/fake-eulen-store.ts'
import { ok } from '../support/api.ts'
import { seedDestination, seedOwner, startProductionRig } from '../support/production-rig.ts'
import { killAtNodeCall } from '../support/treasury.ts'

const OWNER_TAX = '52998224725'
const BLINDING_KEY = Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')

/** Where each payout is killed: a treasury call, before the node does it or after it and before the answer; or the provider's POST /withdraw. */
// (decodepsbt and decoderawtransaction read what walletprocesspsbt and finalizepsbt made: a kill
// there leaves what those kills leave, and was tried once: 2 × 4.5 s more for no new state.)
const liquidKills: Array<[string, 'before' | 'after']> = [
  ['getbalances', 'after'], ['walletcreatefundedpsbt', 'after'], ['walletprocesspsbt', 'after'], ['finalizepsbt', 'after'],
  ['sendrawtransaction', 'before'], ['sendrawtransaction', 'after'], ['gettransaction', 'after'],
]
const pixKills: Array<'withdraw' | 'walletcreatefundedpsbt'> = ['withdraw', 'walletcreatefundedpsbt']

test('kill -9 between every step of a payout: one payout per withdrawal, every withdrawal completed, books balanced', { timeout: 600_000 }, async () => {
  const rig = await startProductionRig({ watchPayouts: true })
  const { provider, providerDb, providerClock, treasury } = rig
  const node = await rig.spawned({ prefix: 'pix-payout-', env: { PROVIDER_DELAY_HOURS: '1', JOB_LEASE_SECONDS: '2', TREASURY_POLL_SECONDS: '1' } })
  const { open, start, kill } = node
  try {
    // The owner, with an identity, and a destination per Liquid withdrawal (so its transactions can be counted), written before the child owns the database.
    const setup = await open()
    const store = createStore(setup.db)
    const { account, euid, token } = await seedOwner(store, provider, { email: 'payout@example.com', taxNumber: OWNER_TAX, name: 'Owner Person' })
    const destination = (type: 'pix' | 'liquid', value: string) => seedDestination(store, account.id, type, value)
    const liquid = []
    for (const kill of liquidKills) liquid.push({ kill, ...(await destination('liquid', newLiquidAddress('elementsregtest', randomBytes(20), BLINDING_KEY))) })
    const pix = await destination('pix', OWNER_TAX)
    await setup.close()

    const withdraw = (amount: number, destinationId: string) => node.api.post('/api/withdrawals', { currency: 'DEPIX', amount, destination_id: destinationId }, { token })
    /** Waits (real time: the child's clock) until the withdrawal reaches `status`. */
    const reaches = async (id: string, status: WithdrawalStatus) => {
      for (let i = 0; i < 300; i++) {
        const record = await node.api.get(`/api/withdrawals/${id}`, { token })
        if (record.status === 200 && record.body.status === status) return record.body
        if (record.status === 200 && ['failed', 'canceled', 'in_review'].includes(record.body.status)) assert.fail(`withdrawal ${id} ended ${record.body.status}: ${JSON.stringify(record.body)}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      assert.fail(`withdrawal ${id} never reached ${status}`)
    }

    // The balance comes in as it does in production: a charge, paid by the owner, reported by the provider's webhook.
    await start()
    const charge = ok(await node.api.post('/api/create-payment', { value: '400.00', email: 'payout@example.com', euid }, { token }))
    const fakeDeposits = () => providerDb.db.withTables<FakeEulenTables>().selectFrom('fake_eulen_deposits').select('id')
    const deposit = await fakeDeposits().executeTakeFirstOrThrow()
    assert.equal(await provider.settle(deposit.id, { payerName: 'Owner Person', payerTaxNumber: OWNER_TAX, outcome: 'depix_sent' }), 200)
    // Production charges carry a delay: the provider delivers the DePix an hour later.
    providerClock.advance(3_601)
    assert.equal(await provider.deliverDelayed(), 1)

    const withdrawals: Array<{ id: string; scriptHex: string | null }> = []
    for (const { kill: [method, phase], id: destinationId, scriptHex } of liquid) {
      const made = ok(await killAtNodeCall(treasury.elements, method, phase, kill, () => withdraw(1_000, destinationId)))
      withdrawals.push({ id: made.id, scriptHex })
      while (node.running()) await new Promise((resolve) => setTimeout(resolve, 50))
      await start()
      await reaches(made.id, 'sent')
      treasury.elements.mine(2)
      await reaches(made.id, 'completed')
      treasury.elements.setHook(null)
    }

    for (const where of pixKills) {
      let asked: Awaited<ReturnType<typeof withdraw>>
      if (where === 'withdraw') {
        const gate = provider.holdPayoutReplies()
        asked = await withdraw(2_000, pix.id)
        await gate.payoutStored
        await kill()
        gate.release()
      } else {
        asked = await killAtNodeCall(treasury.elements, where, 'after', kill, () => withdraw(2_000, pix.id))
        while (node.running()) await new Promise((resolve) => setTimeout(resolve, 50))
        treasury.elements.setHook(null)
      }
      const made = ok(asked)
      withdrawals.push({ id: made.id, scriptHex: null })
      await start()
      await reaches(made.id, 'sent')
      const payouts = await provider.payouts()
      assert.equal(await provider.finishPayout(payouts.at(-1)!.id, 'sent'), 200)
      await reaches(made.id, 'completed')
    }

    // A refund owed paid by Pix-out takes the same steps: killed while the provider holds its POST /withdraw reply.
    const ops = node.ops
    // A first charge named by a tax number, paid by someone else: held for support, who refunds it.
    const strangers = ok(await node.api.post('/api/create-payment', { value: '10.00', email: 'payout@example.com', tax_number: '11144477735', payer_name: 'Named Payer' }, { token }))
    const strangersDeposit = await fakeDeposits().where('amount_cents', '=', 1000).executeTakeFirstOrThrow()
    assert.equal(await provider.settle(strangersDeposit.id, { payerName: 'Someone Else', payerTaxNumber: '12345678909', outcome: 'depix_sent' }), 200)
    providerClock.advance(3_601)
    assert.equal(await provider.deliverDelayed(), 1)
    assert.equal(ok(await node.api.get(`/api/get-payment/${strangers.id}`, { token })).status, 'security_hold')
    assert.equal((await ops('POST', `/ops/payments/${strangers.id}/review`, { decision: 'refund', note: 'not the owner' })).body.status, 'will_refund')
    const refundId = (await ops('GET', '/ops/refunds')).body.refunds[0].refund_id as string
    const gate = provider.holdPayoutReplies()
    const ordered = await ops('POST', `/ops/refunds/${refundId}/payout`, { note: 'to the payer' })
    assert.equal(ordered.status, 200, JSON.stringify(ordered.body))
    await gate.payoutStored
    await kill()
    gate.release()
    await start()
    const refundPayout = async () => (await ops('GET', '/ops/refunds')).body.refunds.find((refund: { refund_id: string }) => refund.refund_id === refundId)?.payouts[0]
    for (let i = 0; i < 300 && (await refundPayout())?.status !== 'sent'; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal((await refundPayout()).status, 'sent')
    // Killed in the transaction that completes it (refund paid, charge refunded): a transaction
    // killed midway leaves what was before it, so the service dies before the provider's withdraw
    // webhook, which then finds no one; the next process learns it by asking /withdraw-status.
    await kill()
    assert.equal(await provider.finishPayout((await provider.payouts()).at(-1)!.id, 'sent').catch(() => 'undelivered'), 'undelivered')
    await start()
    const chargeStatus = async () => {
      const answer = await node.api.get(`/api/get-payment/${strangers.id}`, { token })
      return answer.status === 200 ? answer.body.status : undefined
    }
    for (let i = 0; i < 300 && (await chargeStatus()) !== 'refunded'; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal(await chargeStatus(), 'refunded')

    // A merchant's refund (docs/rules.md#merchant-refunds) is a payout of its own owner: killed while
    // the provider holds its POST /withdraw reply, and where its completion would be written.
    const refundGate = provider.holdPayoutReplies()
    const merchantRefund = ok(await node.api.post(`/api/payments/${charge.id}/refunds`, { amount: '5.00' }, { token }))
    await refundGate.payoutStored
    await kill()
    refundGate.release()
    await start()
    const refundStatus = async () => {
      const answer = await node.api.get(`/api/refunds/${merchantRefund.id}`, { token })
      return answer.status === 200 ? answer.body.status : undefined
    }
    for (let i = 0; i < 300 && (await refundStatus()) !== 'sent'; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal(await refundStatus(), 'sent')
    await kill()
    assert.equal(await provider.finishPayout((await provider.payouts()).at(-1)!.id, 'sent').catch(() => 'undelivered'), 'undelivered')
    await start()
    for (let i = 0; i < 300 && (await refundStatus()) !== 'completed'; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal(await refundStatus(), 'completed')
    assert.equal(ok(await node.api.get(`/api/get-payment/${charge.id}`, { token })).refundedAmount, 500)
    await kill()

    // One transaction to each Liquid destination; one provider payout, paid once, per Pix-out.
    const transactions = treasury.elements.transactions()
    for (const { id, scriptHex } of withdrawals.filter((withdrawal) => withdrawal.scriptHex !== null)) {
      assert.equal(transactions.filter((tx) => tx.outputs.some((output) => output.scriptHex === scriptHex)).length, 1, `withdrawal ${id}: one transaction`)
    }
    const payouts = await provider.payouts()
    assert.equal(payouts.length, pixKills.length + 2)
    for (const payout of payouts) assert.equal(transactions.filter((tx) => tx.outputs.some((output) => output.address === payout.deposit_address)).length, 1, `payout ${payout.id}: paid once`)

    const after = await open()
    try {
      const books = await checkLedger({ store: createStore(after.db), treasury: treasury.client })
      assert.equal(books.ok, true, JSON.stringify(books))
      const rows = await after.db.selectFrom('withdrawals').select(['id', 'status']).execute()
      assert.deepEqual(rows.map((row) => row.status), withdrawals.map(() => 'completed'))
      const refundPayouts = await after.db.selectFrom('payouts').select('status').where('refund_id', '=', refundId).execute()
      assert.deepEqual(refundPayouts.map((row) => row.status), ['completed'])
      const refund = await createStore(after.db).refunds.findById(refundId)
      assert.deepEqual([refund!.status, refund!.owed_cents, refund!.paid_by_us_cents], ['paid', 0, 1000])
      const merchantPayouts = await after.db.selectFrom('payouts').select('status').where('merchant_refund_id', '=', merchantRefund.id).execute()
      assert.deepEqual(merchantPayouts.map((row) => row.status), ['completed'])
    } finally {
      await after.close()
    }
  } finally {
    await rig.close()
  }
})
