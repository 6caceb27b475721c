// A process killed (SIGKILL) while it owns an Idempotency-Key, mid-way through POST /deposit: the
// key is in use while its lease runs, then a retry with the same key and body takes it over and
// makes the charge, exactly once; a key whose charge was stored before the crash finds that charge.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { startService } from '../../src/service.ts'
import type { FakeEulenTables } from '../../src/sandbox/fake-eulen-store.ts'
import { createStore } from '../../src/store/store.ts'
import { reachable } from '../support/harness.ts'
import { seedOwner, startProductionRig } from '../support/production-rig.ts'

test('a key whose owner was killed mid-request is taken over after its lease, and makes one charge', { timeout: 60_000 }, async () => {
  // The provider keeps real time, as the service after the crash does.
  const rig = await startProductionRig()
  const { provider, providerDb } = rig
  const node = await rig.spawned({ prefix: 'pix-crash-' })
  try {
    // The merchant, written before the child owns the database (PGlite: one process per folder).
    const setup = await node.open()
    const { token } = await seedOwner(createStore(setup.db), provider, { email: 'crash@example.com', taxNumber: '52998224725', name: 'Merchant' })
    await setup.close()

    const child = await node.start()
    const body = { value: '10.00', email: 'buyer@example.com', tax_number: '11144477735', payer_name: 'Buyer Person' }
    const headers = { 'x-api-token': token, 'content-type': 'application/json', 'idempotency-key': 'order-crash' }
    const gate = provider.holdDepositReplies()
    const inFlight = fetch(`${child.address}/api/create-payment`, { method: 'POST', headers, body: JSON.stringify(body) }).catch((error: unknown) => error)
    await gate.depositStored
    await node.kill()
    assert.ok((await inFlight) instanceof Error, 'the killed child never answered')
    gate.release()

    const serviceClock = createAdjustableClock(new Date())
    const service = reachable(await startService(loadConfig(node.env), { database: await node.open(), clock: serviceClock, logger: false }))
    try {
      const create = () => service.api.post('/api/create-payment', body, { token, headers: { 'idempotency-key': headers['idempotency-key'] } })
      const busy = await create()
      assert.equal(busy.status, 409, JSON.stringify(busy.body))
      assert.equal(busy.body.code, 'idempotency_key_in_use')
      assert.ok(Number(busy.headers['retry-after']) > 0)

      serviceClock.advance(61)
      const made = await create()
      assert.equal(made.status, 200, JSON.stringify(made.body))
      const replay = await create()
      assert.deepEqual(replay.body, made.body)
      const charges = await service.database.db.selectFrom('charges').select('id').execute()
      assert.deepEqual(charges.map((row) => row.id), [made.body.id])
      // The deposit the killed process left at the provider was looked up first and kept for support.
      const orphans = await service.app.inject({ method: 'GET', url: '/ops/unknown-deposits', headers: { authorization: `Bearer ${node.env.OPS_TOKEN}` } })
      const kept = orphans.json().deposits as Array<{ seen_by: string; value_in_cents: number }>
      assert.deepEqual(kept.map((deposit) => [deposit.seen_by, deposit.value_in_cents]), [['lost_reply', 1000]])

      // Killed after the charge was stored but before the key was marked done: the retry finds it.
      await service.database.db.updateTable('idempotency_keys').set({ state: 'in_flight', response_status: null, response_body: null, lease_until: serviceClock.now() }).execute()
      const deposits = async () => Number((await providerDb.db.withTables<FakeEulenTables>().selectFrom('fake_eulen_deposits').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
      const depositsBefore = await deposits()
      serviceClock.advance(1)
      const found = await create()
      assert.equal(found.status, 200, JSON.stringify(found.body))
      assert.deepEqual(found.body, made.body)
      assert.equal(await deposits(), depositsBefore, 'no second deposit was asked for')
    } finally {
      await service.close()
    }
  } finally {
    await rig.close()
  }
})
