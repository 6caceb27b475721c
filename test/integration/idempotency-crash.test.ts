// A process killed (SIGKILL) while it owns an Idempotency-Key, mid-way through POST /deposit: the
// key is in use while its lease runs, then a retry with the same key and body takes it over and
// makes the charge, exactly once; a key whose charge was stored before the crash finds that charge.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { startService } from '../../src/service.ts'
import { createStore } from '../../src/store/store.ts'
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
    const service = await startService(loadConfig(node.env), { database: await node.open(), clock: serviceClock, logger: false })
    try {
      const create = () => service.app.inject({ method: 'POST', url: '/api/create-payment', headers, payload: body })
      const busy = await create()
      assert.equal(busy.statusCode, 409, busy.body)
      assert.equal(busy.json().code, 'idempotency_key_in_use')
      assert.ok(Number(busy.headers['retry-after']) > 0)

      serviceClock.advance(61)
      const made = await create()
      assert.equal(made.statusCode, 200, made.body)
      const replay = await create()
      assert.deepEqual(replay.json(), made.json())
      const charges = await service.database.db.selectFrom('charges').select('id').execute()
      assert.deepEqual(charges.map((row) => row.id), [made.json().id])
      // The deposit the killed process left at the provider was looked up first and kept for support.
      const orphans = await service.app.inject({ method: 'GET', url: '/ops/unknown-deposits', headers: { authorization: `Bearer ${node.env.OPS_TOKEN}` } })
      const kept = orphans.json().deposits as Array<{ seen_by: string; value_in_cents: number }>
      assert.deepEqual(kept.map((deposit) => [deposit.seen_by, deposit.value_in_cents]), [['lost_reply', 1000]])

      // Killed after the charge was stored but before the key was marked done: the retry finds it.
      await service.database.db.updateTable('idempotency_keys').set({ state: 'in_flight', response_status: null, response_body: null, lease_until: serviceClock.now() }).execute()
      const depositsBefore = await providerDb.db.selectFrom('fake_eulen_deposits' as never).select((eb: any) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow() as { n: unknown }
      serviceClock.advance(1)
      const found = await create()
      assert.equal(found.statusCode, 200, found.body)
      assert.deepEqual(found.json(), made.json())
      const depositsAfter = await providerDb.db.selectFrom('fake_eulen_deposits' as never).select((eb: any) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow() as { n: unknown }
      assert.equal(Number(depositsAfter.n), Number(depositsBefore.n), 'no second deposit was asked for')
    } finally {
      await service.close()
    }
  } finally {
    await rig.close()
  }
})
