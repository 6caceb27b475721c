// Many different events for the same few accounts at once (confirmations, holds, support
// reviews, MEDs, 7-day releases), spread over two service instances on one PostgreSQL database
// (one instance on PGlite): no request fails, each payment is credited once, every posting
// balances, and the balances equal what the charges' final statuses say they must be.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { sql } from 'kysely'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { openPostgres } from '../../src/store/database.ts'
import { startService, type Service } from '../../src/service.ts'
import { ok } from '../support/api.ts'
import { T0, openTestDatabase, reachable, testDatabase } from '../support/harness.ts'

const NET_CENTS = 900
const env = { PROVIDER_WEBHOOK_SECRET: 'shared-secret', OPS_TOKEN: 'ops-secret', DATA_DIR: '/nonexistent', BASE_URL: 'http://pix.test', RATE_LIMIT_PER_MINUTE: '0' }

/** Runs the tasks with at most `width` in flight, in random order. */
async function race<T>(tasks: Array<() => Promise<T>>, width = 8): Promise<T[]> {
  const queue = tasks.map((task, index) => ({ task, index })).sort(() => Math.random() - 0.5)
  const results: T[] = new Array(tasks.length)
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) results[next.index] = await next.task()
    }),
  )
  return results
}

test('concurrent confirmations, reviews, MEDs and releases for one account never fail and credit once', { timeout: 120_000 }, async () => {
  const database = await openTestDatabase()
  const instances: Array<ReturnType<typeof reachable<Service>>> = []
  try {
    const first = reachable(await startService(loadConfig(env), { database, clock: createAdjustableClock(T0), logger: false }))
    instances.push(first)
    if (testDatabase === 'postgres') {
      instances.push(reachable(await startService(loadConfig(env), { database: await openPostgres(database.url!, 5), clock: createAdjustableClock(T0), logger: false })))
    }
    const at = (i: number) => instances[i % instances.length]!
    const post = async (i: number, url: string, body: unknown, headers: Record<string, string> = {}) => {
      const response = await at(i).app.inject({ method: 'POST', url, payload: body as object, headers })
      assert.ok(response.statusCode < 500, `${url}: ${response.statusCode} ${response.body}`)
      return response
    }

    await post(0, '/sandbox/accounts', { email: 'shop@example.com', tax_number: '52998224725' })
    const token = (await post(0, '/sandbox/accounts/shop@example.com/tokens', {})).json().token as string
    const fake = first.sandbox!.fake
    const established = await fake.endUser('11144477735', 'Established Payer')

    type Planned = { id: string; depositId: string; plan: 'confirm' | 'hold' | 'third_party' | 'med'; payer: string }
    const plans = ['confirm', 'confirm', 'med', 'hold', 'third_party'] as const
    const receivers = ['one@example.com', 'two@example.com', 'three@example.com']
    const planned: Planned[] = []
    // Thirty charges for the first receiver, a few for two others.
    const specs = Array.from({ length: 30 }, (_, i) => ({ email: receivers[0]!, plan: plans[i % plans.length]! }))
      .concat(Array.from({ length: 10 }, (_, i) => ({ email: receivers[1 + (i % 2)]!, plan: plans[i % plans.length]! })))
    await race(
      specs.map((spec, i) => async () => {
        const informed = generateCpf()
        const body = spec.plan === 'third_party'
          ? { value: '10.00', email: spec.email, euid: established.euid }
          : { value: '10.00', email: spec.email, tax_number: informed, payer_name: 'Informed Payer' }
        const created = ok(await at(i).api.post('/api/create-payment', body, { token }))
        const charge = (await first.store.charges.findById(created.id))!
        // Confirmations are paid by the informed payer; holds and third-party payments by someone else.
        const payer = spec.plan === 'hold' || spec.plan === 'third_party' ? generateCpf() : informed
        planned.push({ id: charge.id, depositId: charge.provider_deposit_id, plan: spec.plan, payer })
      }),
    )

    const paid = (p: Planned) => async () => ({
      qrId: p.depositId, status: 'depix_sent', valueInCents: 1000, payerName: 'Payer', payerTaxNumber: p.payer, payerEUID: (await fake.endUser(p.payer, 'Payer')).euid,
    })
    // Round 1: every payment arrives at once, each webhook twice, at both instances.
    await race(
      planned.flatMap((p, i) => [0, 1].map((copy) => async () => {
        const answer = await post(i + copy, '/provider/webhooks/deposit', await paid(p)(), { authorization: 'Basic shared-secret' })
        assert.equal(answer.statusCode, 200, answer.body)
      })),
    )
    for (const p of planned) {
      const status = (await first.store.charges.findById(p.id))!.status
      const expected = { confirm: 'depix_sent', med: 'depix_sent', hold: 'security_hold', third_party: 'after7d' }[p.plan]
      assert.equal(status, expected, `${p.plan} charge ${p.id}`)
    }

    // Round 2: support releases the holds, MEDs arrive, and seven days pass, all at once.
    const ops = { authorization: 'Bearer ops-secret' }
    for (const instance of instances) (instance.clock as ReturnType<typeof createAdjustableClock>).advance(7 * 24 * 3600 + 60)
    await race([
      ...planned.filter((p) => p.plan === 'hold').map((p, i) => async () => {
        const answer = await post(i, `/ops/payments/${p.id}/review`, { decision: 'release', note: 'known customer' }, ops)
        assert.equal(answer.statusCode, 200, answer.body)
      }),
      ...planned.filter((p) => p.plan === 'med').map((p, i) => async () => {
        const answer = await post(i, '/provider/webhooks/med', { webhookType: 'med', qrId: p.depositId, taxNumber: p.payer }, { authorization: 'Basic shared-secret' })
        assert.equal(answer.statusCode, 200, answer.body)
      }),
      ...instances.map((instance) => async () => {
        await instance.jobs.runDue()
      }),
    ])
    for (const instance of instances) await instance.jobs.runDue()

    // Every posting balances per currency; each charge has exactly the postings its story needs.
    const unbalanced = await sql<{ posting_id: number }>`
      select posting_id from ledger_entries group by posting_id, currency having sum(amount) <> 0`.execute(first.database.db)
    assert.deepEqual(unbalanced.rows, [])
    const expected = { available: new Map<string, number>(), held: new Map<string, number>() }
    for (const p of planned) {
      const charge = (await first.store.charges.findById(p.id))!
      const kinds = (await first.database.db.selectFrom('ledger_postings').select('kind').where('charge_id', '=', p.id).execute()).map((row) => row.kind).sort()
      const email = (await first.store.accounts.findById(charge.account_id))!.email
      const add = (book: 'available' | 'held', cents: number) => expected[book].set(email, (expected[book].get(email) ?? 0) + cents)
      if (p.plan === 'med') {
        assert.equal(charge.status, 'refunded')
        assert.deepEqual(kinds, ['clawback', 'credit'])
      } else if (charge.status === 'depix_sent') {
        assert.ok(p.plan === 'confirm' || p.plan === 'third_party', `${p.plan} ended depix_sent`)
        assert.deepEqual(kinds, p.plan === 'third_party' ? ['credit', 'release'] : ['credit'])
        add('available', NET_CENTS)
      } else {
        // A hold released by support is a third-party payment: held seven days from the review.
        assert.equal(charge.status, 'after7d', `${p.plan} charge ${p.id} ended ${charge.status}`)
        assert.deepEqual(kinds, ['credit'])
        add('held', NET_CENTS)
      }
    }
    // The running balances agree with the entries, as the operator's check says.
    assert.deepEqual(await first.store.ledger.disagreements(), [])
    const check = await first.app.inject({ method: 'GET', url: '/ops/ledger-check', headers: { authorization: 'Bearer ops-secret' } })
    assert.equal(check.json().ok, true, check.body)
    for (const email of receivers) {
      const account = (await first.store.accounts.findByEmail(email))!
      assert.equal((await first.store.ledger.balances(account.id, 'available')).DEPIX, expected.available.get(email) ?? 0, `${email} available`)
      assert.equal((await first.store.ledger.balances(account.id, 'held')).DEPIX, expected.held.get(email) ?? 0, `${email} held`)
    }
  } finally {
    for (const instance of instances.reverse()) await instance.close().catch(() => {})
    if (instances.length === 0) await database.close()
  }
})
