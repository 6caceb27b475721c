// get-balance reads running balances kept beside the ledger; the entries stay the truth, and the
// operator's check finds any place where the two disagree.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'

let service: TestService
before(async () => {
  service = await startTestService()
})
after(() => service.close())

test('balances move with each posting; /ops/ledger-check reports a balance that drifted from its entries', async () => {
  const merchant = await service.merchant('ledger@example.com', '52998224725')
  for (let i = 0; i < 3; i++) {
    const payer = generateCpf()
    const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email: 'ledger@example.com', tax_number: payer }, { token: merchant.token }))
    await service.pay(created.id, payer)
  }
  assert.equal(ok(await service.api.get('/api/get-balance', { token: merchant.token })).balances.DEPIX.available_cents, 2700)
  const healthy = (await service.ops('GET', '/ops/ledger-check')).body
  assert.equal(healthy.ok, true)
  assert.deepEqual([healthy.disagreements, healthy.unbalanced, healthy.foreign_currency, healthy.charges], [[], [], [], []])

  const account = (await service.store.accounts.findByEmail('ledger@example.com'))!
  await service.database.db.updateTable('account_balances').set({ amount: 1 }).where('account_id', '=', account.id).execute()
  const check = (await service.ops('GET', '/ops/ledger-check')).body
  assert.equal(check.ok, false)
  assert.deepEqual(check.disagreements, [{ account_id: account.id, book: 'available', currency: 'DEPIX', entries: 2700, balance: 1 }])
})
