// The running job runner: woken by committed work (no request drains the queue), deliveries
// bounded per destination so receivers that hang do not hold up other merchants' webhooks, and
// charge work (expiry) in a lane of its own, never behind deliveries.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { sql } from 'kysely'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'

let service: TestService
let token: string
const hanging: Array<{ server: Server; open: Set<ServerResponse>; seen: number; maxOpen: number }> = []
let healthy: Server
let healthyPort: number
let delivered: () => void
let healthyDelivered: Promise<void>

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as { port: number }).port)))
}

/** Waits, looking every 5 ms, until `done` holds: for what the running runner does on its own. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 5))
}

/** Waits until the charge has webhook events, every one of them delivered. */
const allDelivered = (runner: TestService, chargeId: string) => until(async () => {
  const events = await runner.database.db.selectFrom('webhook_events').select('state').where('charge_id', '=', chargeId).execute()
  return events.length > 0 && events.every((event) => event.state === 'delivered')
})

before(async () => {
  // Receivers that never answer hold an attempt for the whole time-out (5 s here).
  service = await startTestService({ WEBHOOK_TIMEOUT_MS: '5000' })
  token = (await service.merchant('runner@example.com', '52998224725')).token
  for (let i = 0; i < 10; i++) {
    const entry = { server: createServer(), open: new Set<ServerResponse>(), seen: 0, maxOpen: 0 }
    entry.server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
      entry.seen++
      entry.open.add(response)
      entry.maxOpen = Math.max(entry.maxOpen, entry.open.size)
      response.on('close', () => entry.open.delete(response))
    })
    hanging.push(entry)
  }
  healthyDelivered = new Promise((resolve) => (delivered = resolve))
  healthy = createServer((_request, response) => {
    response.end('ok')
    delivered()
  })
  healthyPort = await listen(healthy, '127.0.0.1')
})
after(async () => {
  await service.close()
  for (const entry of hanging) {
    for (const response of entry.open) response.destroy()
    entry.server.close()
  }
  healthy.close()
})

/** A charge with this webhook_url, created on `on` and confirmed by the provider's webhook straight to the service: no sandbox control waits for the work. */
async function confirmedCharge(on: TestService, merchantToken: string, webhookUrl: string) {
  const payer = generateCpf()
  const created = ok(await on.api.post('/api/create-payment', { value: '10.00', email: 'runner-customer@example.com', tax_number: payer, webhook_url: webhookUrl }, { token: merchantToken }))
  const charge = (await on.store.charges.findById(created.id))!
  const answer = await on.providerWebhook('deposit', { qrId: charge.provider_deposit_id, status: 'depix_sent', valueInCents: 1000, payerName: 'P', payerTaxNumber: payer })
  assert.equal(answer.status, 200)
  return charge
}

const paidCharge = async (webhookUrl: string) => (await confirmedCharge(service, token, webhookUrl)).id

test('ten hanging receivers (three events each) hold at most two attempts apiece, and another merchant\'s webhook and an expiry go through meanwhile', { timeout: 30_000 }, async () => {
  const ports: number[] = []
  for (let i = 0; i < hanging.length; i++) ports.push(await listen(hanging[i]!.server, `127.0.0.${i + 2}`))
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < hanging.length; i++) await paidCharge(`http://127.0.0.${i + 2}:${ports[i]}/hook`)
  }
  const unpaid = ok(await service.api.post('/api/create-payment', { value: '10.00', email: 'runner-customer@example.com', tax_number: generateCpf() }, { token }))

  service.jobs.start(50)
  // Every hanging receiver is being held before the healthy merchant's payment even happens.
  await until(() => hanging.every((entry) => entry.open.size > 0))
  await paidCharge(`http://127.0.0.1:${healthyPort}/hook`)
  await healthyDelivered
  assert.ok(hanging.every((entry) => entry.open.size > 0), 'the healthy receiver was served while every hanging one was still held')

  // Expiry is charge work, in its own lane: it happens while the deliveries still hang.
  service.sandbox!.clock.advance(601)
  service.jobs.wake()
  while ((await service.store.charges.findById(unpaid.id))!.status !== 'expired') await new Promise((resolve) => setTimeout(resolve, 10))
  assert.ok(hanging.every((entry) => entry.open.size > 0), 'expired while every hanging receiver was still held')
  for (const entry of hanging) assert.ok(entry.maxOpen <= 2, `a destination had ${entry.maxOpen} attempts at once`)
  await service.jobs.stop()
})

test('committed work wakes the runner at once, through the database\'s notifications, not its poll', { timeout: 30_000 }, async () => {
  const woken = await startTestService()
  let received!: () => void
  const arrived = new Promise<void>((resolve) => (received = resolve))
  const receiver = createServer((_request, response) => {
    response.end('ok')
    received()
  })
  const port = await listen(receiver, '127.0.0.1')
  try {
    const merchant = await woken.merchant('woken@example.com', '52998224725')
    // One look now, the next in an hour: only a notification can bring the delivery sooner.
    woken.jobs.start(3_600_000)
    const charge = await confirmedCharge(woken, merchant.token, `http://127.0.0.1:${port}/hook`)
    await arrived
    await allDelivered(woken, charge.id)
  } finally {
    await woken.close()
    receiver.close()
  }
})

test('a finished job is deleted, by stop() if the runner stopped claiming meanwhile, and one run again (its deletion lost in a crash) sends nothing twice', { timeout: 30_000 }, async () => {
  const runner = await startTestService()
  let requests = 0
  let held!: (response: ServerResponse) => void
  const firstHeld = new Promise<ServerResponse>((resolve) => (held = resolve))
  const receiver = createServer((_request, response) => {
    // The first delivery is held until the test lets it answer; any later one answers at once.
    if (++requests === 1) held(response)
    else response.end('ok')
  })
  const port = await listen(receiver, '127.0.0.1')
  const deliveriesOf = async (eventId: string) =>
    (await runner.database.db.selectFrom('jobs').select('id').where('kind', '=', 'deliver_webhook').where(sql`payload->>'eventId'`, '=', eventId).execute()).length
  try {
    const merchant = await runner.merchant('finished@example.com', '52998224725')
    runner.jobs.start(3_600_000)
    const charge = await confirmedCharge(runner, merchant.token, `http://127.0.0.1:${port}/hook`)
    const response = await firstHeld
    // The runner stops claiming while the delivery is in flight: no claim follows it to delete its job.
    const stopped = runner.jobs.stop()
    response.end('ok')
    await stopped
    const event = await runner.database.db.selectFrom('webhook_events').select(['id', 'state']).where('charge_id', '=', charge.id).executeTakeFirstOrThrow()
    assert.equal(event.state, 'delivered')
    assert.equal(await deliveriesOf(event.id), 0, 'stop() deletes the jobs that finished after the last claim')

    // The same delivery due again, as if its deletion had been lost and its lease had run out.
    const now = runner.sandbox!.clock.now()
    await runner.store.jobs.enqueue('deliver_webhook', { eventId: event.id, destination: `127.0.0.1:${port}` }, now, now)
    runner.jobs.start(3_600_000)
    await until(async () => (await deliveriesOf(event.id)) === 0)
    await runner.jobs.stop()
    assert.equal(requests, 1, 'a delivered webhook is not sent again')

    // A finished job whose lease ran out is deleted by the claim that carries it, not leased again.
    await runner.store.jobs.enqueue('deliver_webhook', { eventId: event.id, destination: `127.0.0.1:${port}` }, now, now)
    const [claimed] = await runner.store.jobs.claimDue(now, 1, 1_000)
    assert.ok(claimed)
    assert.deepEqual(await runner.store.jobs.claimDue(new Date(now.getTime() + 5_000), 10, 1_000, { finished: [claimed.id] }), [])
    assert.equal(await deliveriesOf(event.id), 0)
  } finally {
    await runner.close()
    receiver.close()
  }
})

/** A receiver that holds every request it gets until the test answers it; `holding(n)` waits for the n-th. */
async function holdingReceiver() {
  const held: ServerResponse[] = []
  let heldChanged!: () => void
  let heldWait = new Promise<void>((resolve) => (heldChanged = resolve))
  let mostUnanswered = 0
  const receiver = createServer((_request, response) => {
    held.push(response)
    mostUnanswered = Math.max(mostUnanswered, held.filter((each) => !each.writableEnded).length)
    heldChanged()
    heldWait = new Promise<void>((resolve) => (heldChanged = resolve))
  })
  const port = await listen(receiver, '127.0.0.1')
  const holding = async (count: number) => {
    while (held.length < count) await heldWait
  }
  return { held, receiver, port, holding, mostUnanswered: () => mostUnanswered }
}

test('a delivery claimed past its destination\'s bound keeps its place, and goes as soon as a slot of that destination frees', { timeout: 30_000 }, async () => {
  const runner = await startTestService()
  const { held, receiver, port, holding } = await holdingReceiver()
  try {
    const merchant = await runner.merchant('bound@example.com', '52998224725')
    // One look now, the next in an hour: only notifications and freed slots bring deliveries.
    runner.jobs.start(3_600_000)
    const charge = await confirmedCharge(runner, merchant.token, `http://127.0.0.1:${port}/hook`)
    await holding(1)
    // Two more due at once, committed together: the claim after their notification finds the
    // destination one below its bound of two, takes both, starts one and puts the other back.
    const now = runner.sandbox!.clock.now()
    const ids = ['msg_bound_second', 'msg_bound_third']
    await runner.store.transaction(async (store) => {
      for (const id of ids) {
        await store.webhookEvents.queue({ id, charge_id: charge.id, event: 'payment.confirmed', body: '{}', state: 'pending', created_at: now }, `127.0.0.1:${port}`)
      }
    })
    await holding(2)
    const jobOf = (eventId: string) =>
      runner.database.db.selectFrom('jobs').select(['run_at', 'locked_until']).where(sql`payload->>'eventId'`, '=', eventId).executeTakeFirst()
    let putBack: Awaited<ReturnType<typeof jobOf>>
    await until(async () => (putBack = await jobOf('msg_bound_third'))?.locked_until === null)
    assert.equal(putBack!.run_at.getTime(), now.getTime(), 'put back as it was, not for later')

    // A slot frees: the one put back goes next, the clock unmoved.
    held[0]!.end('ok')
    await holding(3)
    for (const response of held) response.end('ok')
    await allDelivered(runner, charge.id)
    assert.equal(held.length, 3)
  } finally {
    await runner.close()
    receiver.close()
  }
})

test('a destination\'s slot frees when its receiver has answered, not once the attempt is recorded: its next delivery does not wait for our bookkeeping, and the receiver never has more than two at once', { timeout: 30_000 }, async () => {
  const runner = await startTestService()
  const { held, receiver, port, holding, mostUnanswered } = await holdingReceiver()
  // Every attempt's record waits until the test lets it through.
  const events = runner.store.webhookEvents
  const record = events.recordAttempt
  let recordsMayGo!: () => void
  const recordsGate = new Promise<void>((resolve) => (recordsMayGo = resolve))
  events.recordAttempt = async (...args) => {
    await recordsGate
    return record.apply(events, args)
  }
  const leased = async (eventIds: string[]) => (await runner.database.db.selectFrom('jobs').select(sql<string>`payload->>'eventId'`.as('event_id'))
    .where(sql`payload->>'eventId'`, 'in', eventIds).where('locked_until', 'is not', null).execute()).map((row) => row.event_id)
  /** Waits until exactly these of the events are leased (sent, or being recorded), the others back in line. */
  const settled = (eventIds: string[], count: number) => until(async () => (await leased(eventIds)).length === count)
  const later = ['msg_slot_third', 'msg_slot_fourth']
  try {
    const merchant = await runner.merchant('slot@example.com', '52998224725')
    runner.jobs.start(3_600_000)
    const charge = await confirmedCharge(runner, merchant.token, `http://127.0.0.1:${port}/hook`)
    await holding(1)
    await runner.store.transaction(async (store) => {
      for (const id of ['msg_slot_second', ...later]) {
        await store.webhookEvents.queue({ id, charge_id: charge.id, event: 'payment.confirmed', body: '{}', state: 'pending', created_at: runner.sandbox!.clock.now() }, `127.0.0.1:${port}`)
      }
    })
    // The destination's bound, two, reached: the third and the fourth wait, unleased.
    await holding(2)
    await settled(later, 0)
    assert.equal(held.length, 2)
    // The first is answered. Its record is held, yet one more goes now, and only one.
    held[0]!.end('ok')
    await holding(3)
    await settled(later, 1)
    assert.equal(held.length, 3)
    assert.deepEqual(await runner.database.db.selectFrom('webhook_attempts').select('event_id').execute(), [], 'it went before any attempt was recorded')
    // The first's record and its job's end free nothing more: two are still with the receiver.
    recordsMayGo()
    await until(async () => (await runner.database.db.selectFrom('webhook_attempts').select('event_id').execute()).length > 0)
    await settled(later, 1)
    assert.equal(held.length, 3)
    held[1]!.end('ok')
    await holding(4)
    for (const response of held) response.end('ok')
    await allDelivered(runner, charge.id)
    assert.equal(held.length, 4, 'each event sent once')
    assert.equal(mostUnanswered(), 2, 'never more than two requests at once')
  } finally {
    recordsMayGo()
    await runner.close()
    receiver.close()
  }
})
