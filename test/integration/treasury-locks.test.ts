// Issue 46, points 8 and 11: no stall after a crash. A run that dies between funding a payout
// (the node locks the coins it spends) and storing its PSBT leaves those coins locked; with few
// coins every later payout waited as treasury_insufficient. The service unlocks coins no live
// payout's stored transaction spends: at start, and on a schedule; a payout whose PSBT is stored
// keeps its coins. And a confidential address whose blinding key is no curve point, which the node
// would take and never pay, is refused when it is added.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { unlockOrphanedCoins } from '../../src/app/unlock-orphaned-coins.ts'
import { backoffAfterFailure } from '../../src/jobs/runner.ts'
import type { FakeEulenTables } from '../../src/sandbox/fake-eulen-store.ts'
import { createStore } from '../../src/store/store.ts'
import { newLiquidAddress, parseLiquidAddress } from '../../src/treasury/liquid-address.ts'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { seedDestination, seedOwner, startProductionRig } from '../support/production-rig.ts'
import { killAtNodeCall } from '../support/treasury.ts'
import { confirmedDestination, ownerWithBalance } from '../support/withdrawals.ts'

const BLINDING_KEY = Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')
/** 33 bytes shaped as a compressed key whose x (5) is on no point of secp256k1: 5³ + 7 is no square mod p. */
const NOT_A_POINT = Buffer.from(`02${'00'.repeat(31)}05`, 'hex')
const liquidAddress = () => newLiquidAddress('elementsregtest', randomBytes(20), BLINDING_KEY)

let service: TestService
before(async () => {
  // A funding the node refuses for locked coins is tried again for one call's time-out: short here.
  service = await startTestService({ PROVIDER_TIMEOUT_MS: '300' })
})
after(() => service.close())

const elements = () => service.sandbox!.elements
const withdrawal = async (owner: { token: string }, id: string) => ok(await service.api.get(`/api/withdrawals/${id}`, { token: owner.token }))
const treasuryView = async () => (await service.request({ method: 'GET', url: '/sandbox/treasury' })).body

/** An owner with R$ 300 and a Liquid destination past its cool-down. */
async function readyOwner(email: string) {
  const owner = await ownerWithBalance(service, email, '300.00')
  const destination = await confirmedDestination(service, owner, 'liquid', liquidAddress())
  await service.advance(24 * 3600 + 1)
  return { owner, destination }
}

test('a funding lost before its PSBT was stored: its locked coins held every payout after in review, until the scheduled look unlocks them; then the payout is sent', async () => {
  // The sandbox treasury holds one coin of each asset, as it starts: the lost funding locks them all.
  assert.equal(elements().lockedCoins().length, 0)
  const { owner, destination } = await readyOwner('lost-funding@example.com')
  let armed = true
  elements().setHook(async (method, phase) => {
    if (!armed || method !== 'walletcreatefundedpsbt' || phase !== 'after') return
    armed = false
    return 'drop'
  })
  const made = ok(await service.api.post('/api/withdrawals', { currency: 'DEPIX', amount: 10_000, destination_id: destination }, { token: owner.token }))
  await service.jobs.runDue()
  elements().setHook(null)
  // The node funded and locked, the answer was lost: no PSBT stored, the coins locked.
  assert.equal((await service.store.payouts.latestOf({ withdrawalId: made.id }))!.psbt, null)
  assert.equal((await treasuryView()).locked_coins, 2)
  // The payout is tried again (after its back-off): the node's only coins are locked.
  await service.advance(60)
  assert.deepEqual([(await withdrawal(owner, made.id)).status, (await withdrawal(owner, made.id)).review_reason], ['in_review', 'treasury_insufficient'])

  // The schedule's first look finds the orphans and leaves them (a funding under way elsewhere
  // may be about to store its PSBT); its next look, 5 minutes on, unlocks them.
  await service.advance(300)
  await service.advance(300)
  assert.equal((await treasuryView()).locked_coins, 0)
  const approved = await service.ops('POST', `/ops/withdrawals/${made.id}/review`, { decision: 'approve', note: 'coins unlocked' })
  assert.equal(approved.body.status, 'confirmed', JSON.stringify(approved.body))
  await service.jobs.runDue()
  const sent = await withdrawal(owner, made.id)
  assert.equal(sent.status, 'sent', JSON.stringify(sent))
  assert.equal(elements().transactions().filter((tx) => tx.txid === sent.txid).length, 1)
})

test('the sandbox control locks the treasury as an orphaned funding would; the scheduled look frees it only once it was orphaned a minute before; then a withdrawal is sent', async () => {
  const { owner, destination } = await readyOwner('sandbox-lock@example.com')
  const locked = await service.request({ method: 'POST', url: '/sandbox/treasury/lock', body: {} })
  assert.equal(locked.status, 200, JSON.stringify(locked.body))
  assert.ok(locked.body.locked_coins >= 2, JSON.stringify(locked.body))
  // Balances still count locked coins: the treasury holds them, it only cannot spend them.
  assert.ok(locked.body.DEPIX > 0 && locked.body.BTC > 0)
  await service.advance(300)
  assert.equal((await treasuryView()).locked_coins, locked.body.locked_coins, 'first found: left locked')
  await service.advance(300)
  assert.equal((await treasuryView()).locked_coins, 0)
  const made = ok(await service.api.post('/api/withdrawals', { currency: 'DEPIX', amount: 5_000, destination_id: destination }, { token: owner.token }))
  await service.jobs.runDue()
  assert.equal((await withdrawal(owner, made.id)).status, 'sent')
})

test('a payout whose PSBT is stored but not yet signed keeps its locked coins through an unlock, at start or scheduled; it is then signed and sent', async () => {
  const { owner, destination } = await readyOwner('mid-way@example.com')
  // Two coins of each asset: the payout takes one of each, the other two are locked by "a lost funding".
  elements().setBalance('DEPIX', 100_000_000_000_000n, 2)
  elements().setBalance('BTC', 1_000_000_000n, 2)
  const deps = { store: service.store, treasury: service.treasury, clock: service.clock }
  const key = (coin: { txid: string; vout: number }) => `${coin.txid}:${coin.vout}`
  // The signing call is lost on its way, before the node did anything: the payout stays funded,
  // stored and unsigned while the unlocks run, and no call of the worker waits on them (inside the
  // call they had its 300 ms time-out, too little on a busy machine).
  let armed = true
  elements().setHook(async (method, phase) => {
    if (!armed || method !== 'walletprocesspsbt' || phase !== 'before') return
    armed = false
    return 'drop'
  })
  const made = ok(await service.api.post('/api/withdrawals', { currency: 'DEPIX', amount: 5_000, destination_id: destination }, { token: owner.token }))
  await service.jobs.runDue()
  elements().setHook(null)
  assert.equal(armed, false, 'the worker reached the signing')
  const stored = (await service.store.payouts.latestOf({ withdrawalId: made.id }))!
  assert.ok(stored.psbt !== null && stored.tx_hex === null, 'mid-way: funded and stored, not signed')
  const payoutCoins = (await service.treasury.inputsOf({ psbt: stored.psbt })).map(key).sort()
  assert.equal(payoutCoins.length, 2)
  /** The two orphans unlocked, the payout's coins never, and only those left locked. */
  const unlockedOrphans = (unlocked: string[]) => {
    assert.equal(unlocked.length, 2)
    assert.ok(unlocked.every((coin) => !payoutCoins.includes(coin)), 'the payout\'s coins are never unlocked')
    assert.deepEqual(elements().lockedCoins().map(key).sort(), payoutCoins)
  }
  assert.equal(elements().lockCoins('DEPIX') + elements().lockCoins('BTC'), 2)
  // The schedule: the orphans found first are left, those found a minute before unlocked; the payout's kept both times.
  const seen = new Map<string, number>()
  assert.deepEqual(await unlockOrphanedCoins(deps, seen), [])
  assert.equal(elements().lockedCoins().length, 4)
  service.sandbox!.clock.advance(60)
  unlockedOrphans((await unlockOrphanedCoins(deps, seen)).map(key))
  // At start (another instance starting now): every orphan at once, the payout's kept.
  assert.equal(elements().lockCoins('DEPIX') + elements().lockCoins('BTC'), 2)
  unlockedOrphans((await unlockOrphanedCoins(deps)).map(key))
  // The worker's next run signs the stored transaction and sends it.
  service.sandbox!.clock.advance(backoffAfterFailure(0) / 1000)
  await service.jobs.runDue()
  const sent = await withdrawal(owner, made.id)
  assert.equal(sent.status, 'sent', JSON.stringify(sent))
  assert.equal(elements().transactions().filter((tx) => tx.txid === sent.txid).length, 1)
  assert.equal(elements().lockedCoins().length, 0, 'broadcast: its coins are spent, nothing is left locked')
})

test('a confidential address whose blinding key is no point of the curve is refused when added; a good confidential one, and the bad one\'s unconfidential form, are accepted', async () => {
  const owner = await ownerWithBalance(service, 'blinding@example.com', '10.00')
  const keyHash = randomBytes(20)
  const bad = newLiquidAddress('elementsregtest', keyHash, NOT_A_POINT)
  assert.ok(parseLiquidAddress(bad, 'elementsregtest') !== null, 'the encoding itself is valid')
  await owner.wallet.get('/wallet/destinations')
  const refused = await owner.wallet.post('/wallet/destinations', { type: 'liquid', value: bad, label: '' })
  assert.equal(refused.status, 400, refused.html)
  assert.equal(refused.headers['x-error-code'], 'destination_unpayable')
  assert.match(refused.html, /chave de ofuscação/)
  assert.equal((await service.store.withdrawals.listDestinations((await service.store.accounts.findByEmail(owner.email))!.id)).length, 0)

  await owner.wallet.get('/wallet/destinations')
  const good = await owner.wallet.post('/wallet/destinations', { type: 'liquid', value: liquidAddress(), label: '' })
  assert.equal(good.status, 303, good.html)
  await owner.wallet.get('/wallet/destinations')
  const unconfidential = await owner.wallet.post('/wallet/destinations', { type: 'liquid', value: newLiquidAddress('elementsregtest', keyHash), label: '' })
  assert.equal(unconfidential.status, 303, unconfidential.html)
})

const OWNER_TAX = '52998224725'

test('kill -9 between funding and storing its PSBT: the next start unlocks the coins and the payout is sent', { timeout: 120_000 }, async () => {
  const rig = await startProductionRig({ watchPayouts: true })
  const { provider, providerDb, providerClock, treasury } = rig
  // One coin of each asset: the killed funding locks every coin the treasury has.
  treasury.elements.setBalance('DEPIX', 100_000_000_000_000n, 1)
  treasury.elements.setBalance('BTC', 1_000_000_000n, 1)
  const node = await rig.spawned({ prefix: 'pix-locks-', env: { PROVIDER_DELAY_HOURS: '1', JOB_LEASE_SECONDS: '2', TREASURY_POLL_SECONDS: '1', PROVIDER_TIMEOUT_MS: '1000' } })
  const { start, kill } = node
  try {
    // The owner, with an identity, and a confirmed destination, written before the child owns the database.
    const setup = await node.open()
    const store = createStore(setup.db)
    const { account, euid, token } = await seedOwner(store, provider, { email: 'locks@example.com', taxNumber: OWNER_TAX, name: 'Owner Person' })
    const address = liquidAddress()
    const destination = await seedDestination(store, account.id, 'liquid', address)
    await setup.close()


    // The balance comes in as in production: a charge paid by the owner, the DePix delivered an hour later.
    await start()
    ok(await node.api.post('/api/create-payment', { value: '100.00', email: 'locks@example.com', euid }, { token }))
    const deposit = await providerDb.db.withTables<FakeEulenTables>().selectFrom('fake_eulen_deposits').select('id').executeTakeFirstOrThrow()
    assert.equal(await provider.settle(deposit.id, { payerName: 'Owner Person', payerTaxNumber: OWNER_TAX, outcome: 'depix_sent' }), 200)
    providerClock.advance(3_601)
    assert.equal(await provider.deliverDelayed(), 1)

    // Killed once the node has funded (and locked) and before its answer reaches the service.
    const made = ok(await killAtNodeCall(treasury.elements, 'walletcreatefundedpsbt', 'after', kill,
      () => node.api.post('/api/withdrawals', { currency: 'DEPIX', amount: 1_000, destination_id: destination.id }, { token })))
    while (node.running()) await new Promise((resolve) => setTimeout(resolve, 50))
    treasury.elements.setHook(null)
    assert.equal(treasury.elements.lockedCoins().length, 2, 'the killed funding left both coins locked')

    // Unlocked before the new process listens (it may fund the payout again at once): each unlock is logged.
    const restarted = await start()
    const unlockLogs = restarted.lines.filter((line) => /funding whose transaction was never stored/.test(line)).map((line) => JSON.parse(line))
    assert.deepEqual(unlockLogs.map((log) => log.level), [40, 40], restarted.lines.join('\n'))
    let record = made
    for (let i = 0; i < 300; i++) {
      record = ok(await node.api.get(`/api/withdrawals/${made.id}`, { token }))
      if (record.status !== 'sending' && record.status !== 'confirmed') break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.equal(record.status, 'sent', JSON.stringify(record))
    assert.equal(treasury.elements.transactions().filter((tx) => tx.outputs.some((output) => output.address === address)).length, 1)
    await kill()
  } finally {
    await rig.close()
  }
})
