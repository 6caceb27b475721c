// Provider webhooks arrive duplicated, out of order, any number of times: each payment is
// credited exactly once, every posting balances, and balances equal the sum of their postings.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { sql } from 'kysely'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { FIXED_FEE_CENTS } from '../../src/domain/money.ts'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'

let service: TestService
let token: string
before(async () => {
  service = await startTestService()
  token = (await service.merchant('replay-shop@example.com', '52998224725')).token
})
after(() => service.close())

const statuses = ['pending', 'delayed', 'approved', 'under_review', 'depix_sent', 'canceled', 'expired', 'error']

test('property: any sequence of provider events, replayed in any order, credits each payment exactly once', async () => {
  let run = 0
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('DEPIX', 'BTC', 'USDt'),
      fc.array(fc.constantFrom(...statuses), { minLength: 1, maxLength: 12 }),
      fc.boolean(),
      async (currency, sequence, thirdParty) => {
        run++
        const email = `replay-${run}@example.com`
        const payer = generateCpf()
        const euid = (await service.sandbox!.fake.endUser(payer, 'Payer')).euid
        const created = ok(await service.api.post('/api/create-payment', { value: '25.00', email, euid, swap_to: currency }, { token }))
        const charge = (await service.store.charges.findById(created.id))!
        const paidBy = thirdParty ? generateCpf() : payer
        const paidByEuid = thirdParty ? (await service.sandbox!.fake.endUser(paidBy, 'Other')).euid : euid
        const event = (status: string) => ({ qrId: charge.provider_deposit_id, status, valueInCents: 2500, payerName: 'Payer', payerTaxNumber: paidBy, payerEUID: paidByEuid, webhookType: 'deposit' })
        // Each event is delivered one to three times, concurrently with its duplicates.
        for (const status of sequence) {
          const copies = 1 + (status.length % 3)
          const answers = await Promise.all(Array.from({ length: copies }, () => service.providerWebhook('deposit', event(status))))
          assert.ok(answers.every((answer) => answer.status === 200))
        }
        const postings = await service.database.db.selectFrom('ledger_postings').select('key').where('charge_id', '=', charge.id).execute()
        const final = (await service.store.charges.findById(charge.id))!
        if (sequence.includes('depix_sent')) {
          assert.deepEqual(postings.map((posting) => posting.key), [`credit:${charge.id}`])
          assert.equal(final.status, thirdParty ? 'after7d' : 'depix_sent')
        } else {
          assert.deepEqual(postings, [])
        }
      },
    ),
    { numRuns: 40 },
  )

  const unbalanced = await sql`
    select posting_id, currency from ledger_entries group by posting_id, currency having sum(amount) <> 0`.execute(service.database.db)
  assert.deepEqual(unbalanced.rows, [])
  // What get-balance shows is the sum of the account's available entries, for every account.
  const accounts = await service.database.db.selectFrom('accounts').select(['id', 'email']).execute()
  for (const account of accounts) {
    const sums = await sql<{ currency: string; total: string }>`
      select currency, sum(amount)::text as total from ledger_entries where account_id = ${account.id} and book = 'available' group by currency`.execute(service.database.db)
    const balances = await service.store.ledger.balances(account.id)
    for (const row of sums.rows) assert.equal(balances[row.currency as 'DEPIX'], Number(row.total))
  }
})

type Step =
  | { kind: 'deposit'; status: string; amount: 'exact' | 'near' | 'far' | 'missing' }
  | { kind: 'med'; principal: number | null }
  | { kind: 'review'; decision: 'release' | 'refund' | 'close'; paid: number | null }
  | { kind: 'refund_paid' }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('deposit' as const), status: fc.constantFrom(...statuses, 'depix_sent', 'refunded', 'will_refund'), amount: fc.constantFrom('exact' as const, 'near' as const, 'far' as const, 'missing' as const) }),
  fc.record({ kind: fc.constant('med' as const), principal: fc.option(fc.integer({ min: 1, max: 3000 }), { nil: null }) }),
  fc.record({ kind: fc.constant('review' as const), decision: fc.constantFrom('release' as const, 'refund' as const, 'close' as const), paid: fc.option(fc.integer({ min: 1, max: 3000 }), { nil: null }) }),
  fc.record({ kind: fc.constant('refund_paid' as const) }),
)

test('property: claw-backs, refunds and reviews in any order, replayed at the executor, never credit after a claw-back, credit at most what arrived, and keep the books', async () => {
  let run = 0
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('DEPIX', 'BTC', 'USDt'), fc.array(step, { minLength: 1, maxLength: 10 }), fc.boolean(), async (currency, steps, thirdParty) => {
      run++
      const email = `clawback-replay-${run}@example.com`
      const payer = generateCpf()
      const euid = (await service.sandbox!.fake.endUser(payer, 'Payer')).euid
      const created = ok(await service.api.post('/api/create-payment', { value: '25.00', email, euid, swap_to: currency }, { token }))
      const charge = (await service.store.charges.findById(created.id))!
      const paidBy = thirdParty ? generateCpf() : payer
      const paidByEuid = thirdParty ? (await service.sandbox!.fake.endUser(paidBy, 'Other')).euid : euid
      const amounts = { exact: 2500, near: 2550, far: 3000, missing: undefined }
      let medNumber = 0
      let clawedBackWhileHeld = false
      for (const happened of steps) {
        const before = (await service.store.charges.findById(charge.id))!
        if (before.status === 'security_hold' && before.clawback !== null) clawedBackWhileHeld = true
        if (happened.kind === 'deposit') {
          const answer = await service.providerWebhook('deposit', { qrId: charge.provider_deposit_id, status: happened.status, valueInCents: amounts[happened.amount], payerName: 'Payer', payerTaxNumber: paidBy, payerEUID: paidByEuid })
          assert.equal(answer.status, 200)
        } else if (happened.kind === 'med') {
          const answer = await service.providerWebhook('med', { qrId: charge.provider_deposit_id, principalValueInCents: happened.principal ?? undefined, creationDateReport: `2026-11-2${medNumber++ % 10}T00:00:00Z`, taxNumber: paidBy, euid: paidByEuid })
          assert.equal(answer.status, 200)
        } else if (happened.kind === 'review') {
          const answer = await service.ops('POST', `/ops/payments/${charge.id}/review`, { decision: happened.decision, note: 'replay', ...(happened.paid === null ? {} : { paid_cents: happened.paid }) })
          // 202: an amount typed beyond 5 % of the value waits for a second operator, who never comes here.
          assert.ok(answer.status === 200 || answer.status === 202 || answer.status === 409 || (answer.status === 400 && answer.body.param === 'paid_cents'), JSON.stringify(answer.body))
        } else {
          const refund = await service.store.refunds.findByCharge(charge.id)
          if (refund) assert.ok([200, 409].includes((await service.ops('POST', `/ops/refunds/${refund.id}/paid`, { reference: 'E2E', note: 'replay' })).status))
        }
        const after = (await service.store.charges.findById(charge.id))!
        if (after.credited_units !== null && before.credited_units === null) assert.ok(!clawedBackWhileHeld, 'credited after a claw-back on the held charge')
      }
      const final = (await service.store.charges.findById(charge.id))!
      const account = (await service.store.accounts.findByEmail(email))!
      const held = await service.store.ledger.balances(account.id, 'held')
      const available = await service.store.ledger.balances(account.id, 'available')
      const onAccount = held[currency as 'DEPIX'] + available[currency as 'DEPIX']
      if (final.credited_units === null) {
        assert.equal(onAccount, 0)
      } else {
        assert.equal(onAccount, final.credited_units - final.taken_back_units)
        // At most what arrived less the fee, which takes all of an arrival smaller than itself
        // (support may release one: a release of 1 centavo credits nothing).
        if (currency === 'DEPIX') assert.ok(final.credited_units <= Math.max(0, final.paid_cents! - FIXED_FEE_CENTS))
        assert.ok(final.taken_back_cents <= final.paid_cents!)
      }
    }),
    { numRuns: 30 },
  )
  const check = (await service.ops('GET', '/ops/ledger-check')).body
  assert.equal(check.ok, true, JSON.stringify(check))
})
