// Provider webhooks arrive duplicated, out of order, any number of times: each payment is
// credited exactly once, every posting balances, and balances equal the sum of their postings.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { sql } from 'kysely'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
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
        const created = await service.request({ method: 'POST', url: '/api/create-payment', token, body: { value: '25.00', email, euid, swap_to: currency } })
        assert.equal(created.status, 200, JSON.stringify(created.body))
        const charge = (await service.store.charges.findById(created.body.id))!
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
