// Sent Liquid payouts are followed to their confirmations together, by one job of the deployment
// that asks the node about them in one request a pass and moves each on its own
// (docs/treasury.md, "Payouts"): confirmations kept as they come, completed at 2, a transaction the
// node forgot broadcast again, and a pass the node does not answer changes nothing.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import { newLiquidAddress } from '../../src/treasury/liquid-address.ts'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { confirmedDestination, ownerWithBalance } from '../support/withdrawals.ts'

const POLL_SECONDS = 30
let service: TestService
before(async () => {
  service = await startTestService({ TREASURY_POLL_SECONDS: String(POLL_SECONDS) })
})
after(() => service.close())

const BLINDING_KEY = Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')
const elements = () => service.sandbox!.elements

/** Sent Liquid withdrawals of R$ 10,00 each, one per new destination: their ids. */
async function sentWithdrawals(email: string, count: number): Promise<string[]> {
  const owner = await ownerWithBalance(service, email, '300.00')
  const destinations = []
  for (let i = 0; i < count; i++) destinations.push(await confirmedDestination(service, owner, 'liquid', newLiquidAddress('elementsregtest', randomBytes(20), BLINDING_KEY)))
  await service.advance(24 * 3600 + 1)
  const ids = []
  for (const destination of destinations) ids.push(ok(await service.api.post('/api/withdrawals', { currency: 'DEPIX', amount: 1_000, destination_id: destination }, { token: owner.token })).id)
  await service.jobs.runDue()
  for (const id of ids) assert.equal((await payoutOf(id)).status, 'sent')
  return ids
}

const payoutOf = async (withdrawalId: string) => (await service.store.payouts.latestOf({ withdrawalId }))!

test('every sent Liquid payout is asked about in one request a pass: confirmations kept as they come, each completed at 2', async () => {
  const ids = await sentWithdrawals('follow-many@example.com', 3)
  const calls = () => elements().calls() as Record<string, number>
  const before = { calls: calls(), requests: elements().requests() }
  elements().mine(1)
  await service.advance(POLL_SECONDS)
  const after = calls()
  const made = (method: string) => (after[method] ?? 0) - (before.calls[method] ?? 0)
  assert.equal(made('gettransaction'), 3)
  // Any other call of the pass (the coin-lock schedule's) was a request of its own.
  const others = Object.keys(after).filter((method) => method !== 'gettransaction').reduce((sum, method) => sum + made(method), 0)
  assert.equal(elements().requests() - before.requests - others, 1, 'the three asked in one request')
  for (const id of ids) assert.deepEqual([(await payoutOf(id)).status, (await payoutOf(id)).confirmations], ['sent', 1])

  elements().mine(1)
  await service.advance(POLL_SECONDS)
  for (const id of ids) assert.deepEqual([(await payoutOf(id)).status, (await payoutOf(id)).confirmations], ['completed', 2])
  const books = (await service.ops('GET', '/ops/ledger-check')).body
  assert.equal(books.ok, true, JSON.stringify(books))
})

test('a sent transaction the node no longer knows (a restored wallet) is broadcast again, the same one, and completes', async () => {
  const [id] = await sentWithdrawals('follow-forgot@example.com', 1)
  const { txid } = await payoutOf(id!)
  elements().forget(txid!)
  assert.ok(!elements().transactions().some((tx) => tx.txid === txid))
  await service.advance(POLL_SECONDS)
  assert.deepEqual(elements().transactions().filter((tx) => tx.txid === txid).map((tx) => tx.height), [null], 'broadcast again, not yet mined')
  assert.equal((await payoutOf(id!)).status, 'sent')
  elements().mine(2)
  await service.advance(POLL_SECONDS)
  assert.equal((await payoutOf(id!)).status, 'completed')
  assert.equal(elements().transactions().filter((tx) => tx.txid === txid).length, 1)
})

test('a forgotten transaction support records returned while the pass asks the node is not broadcast again', async () => {
  const [id] = await sentWithdrawals('follow-returned@example.com', 1)
  const { txid } = await payoutOf(id!)
  elements().forget(txid!)
  const support: { answer?: { status: number; body: any } } = {}
  // Support's decision lands after the pass listed the payout, while the node answers it.
  elements().setHook(async (method, phase) => {
    if (method !== 'gettransaction' || phase !== 'before') return
    elements().setHook(null)
    support.answer = await service.ops('POST', `/ops/withdrawals/${id}/review`, { decision: 'returned', note: 'came back' })
  })
  try {
    await service.advance(POLL_SECONDS)
  } finally {
    elements().setHook(null)
  }
  assert.equal(support.answer?.status, 200, JSON.stringify(support.answer?.body))
  assert.equal((await payoutOf(id!)).status, 'returned')
  assert.ok(!elements().transactions().some((tx) => tx.txid === txid), 'not broadcast again')
})

test('a pass the node does not answer changes nothing, nothing is broadcast again; the next completes the payouts', async () => {
  const ids = await sentWithdrawals('follow-down@example.com', 2)
  elements().mine(2)
  const broadcasts = () => (elements().calls() as Record<string, number>).sendrawtransaction ?? 0
  const before = { broadcasts: broadcasts(), payouts: await Promise.all(ids.map(payoutOf)) }
  elements().setHook(async (method) => (method === 'gettransaction' ? 'drop' : undefined))
  try {
    await service.advance(POLL_SECONDS)
  } finally {
    elements().setHook(null)
  }
  assert.equal(broadcasts(), before.broadcasts)
  assert.deepEqual(await Promise.all(ids.map(payoutOf)), before.payouts)
  await service.advance(POLL_SECONDS)
  for (const id of ids) assert.equal((await payoutOf(id)).status, 'completed')
})

test('one payout the node cannot answer for is looked at again at the next pass; the others complete meanwhile', async () => {
  const ids = await sentWithdrawals('follow-one-bad@example.com', 3)
  const { db } = service.database
  const bad = await payoutOf(ids[1]!)
  // A txid the node cannot parse answers its own call with an error (-8), inside the batch.
  await db.updateTable('payouts').set({ txid: 'not-a-txid' }).where('id', '=', bad.id).execute()
  elements().mine(2)
  await service.advance(POLL_SECONDS)
  assert.deepEqual(await Promise.all(ids.map(async (id) => (await payoutOf(id)).status)), ['completed', 'sent', 'completed'])
  await db.updateTable('payouts').set({ txid: bad.txid }).where('id', '=', bad.id).execute()
  await service.advance(POLL_SECONDS)
  assert.equal((await payoutOf(ids[1]!)).status, 'completed')
})

test('a send_payout job an older version left on a sent Liquid payout ends at once, and the follow job completes the payout', async () => {
  const [id] = await sentWithdrawals('follow-old-job@example.com', 1)
  const payout = await payoutOf(id!)
  const asked = () => (elements().calls() as Record<string, number>).gettransaction ?? 0
  const before = asked()
  await service.store.jobs.enqueue('send_payout', { payoutId: payout.id }, service.clock.now(), service.clock.now())
  await service.jobs.runDue()
  assert.equal(asked(), before, 'the old job asked the node nothing')
  const left = await service.database.db.selectFrom('jobs').select('id').where('kind', '=', 'send_payout').execute()
  assert.deepEqual(left, [])
  elements().mine(2)
  await service.advance(POLL_SECONDS)
  assert.equal((await payoutOf(id!)).status, 'completed')
})

test('rolled back (migration 036 down), each sent Liquid payout gets its own send_payout job again, as the code before followed it', async () => {
  const [id] = await sentWithdrawals('follow-rollback@example.com', 1)
  const payout = await payoutOf(id!)
  const { db } = service.database
  const followingJobs = async () => (await db.selectFrom('jobs').select(['kind', 'payload']).where('kind', 'in', ['send_payout', 'follow_liquid_payouts']).execute())
    .map((job) => (job.kind === 'send_payout' ? `send_payout ${(typeof job.payload === 'string' ? JSON.parse(job.payload) : job.payload).payoutId}` : job.kind))
  assert.deepEqual(await followingJobs(), ['follow_liquid_payouts'])
  const migration = await import('../../src/store/migrations/036_liquid_follow.ts')
  await migration.down(db as Kysely<any>)
  assert.deepEqual(await followingJobs(), [`send_payout ${payout.id}`])
  // Up again, as the rest of this process's tests found it.
  await migration.up(db as Kysely<any>)
  await db.deleteFrom('jobs').where('kind', '=', 'send_payout').execute()
  await service.store.jobs.ensureSingleton('follow_liquid_payouts', {}, new Date(0), new Date(0))
})
