// Issue 52: the account's statement (GET /api/balance-transactions): one line per movement of the
// balance, with the charge or withdrawal it belongs to and the balance after it; the lines of a
// currency sum to its balance, whatever happened (a property test over random histories).
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import fc from 'fast-check'
import { newLiquidAddress } from '../../src/treasury/liquid-address.ts'
import type { BalanceTransaction as Line } from '../../sdk/src/types.ts'
import { assertRefusedFilters, ok, statementLines } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { confirmedDestination, ownerWithBalance } from '../support/withdrawals.ts'

let service: TestService
before(async () => {
  service = await startTestService()
})
after(() => service.close())

/** What the ledger says the account holds per currency: every customer book, and the available one. */
async function ledgerBalances(email: string): Promise<Record<string, { balance: number; available: number }>> {
  const account = await service.store.accounts.findByEmail(email)
  const rows = await service.database.db.selectFrom('account_balances').select(['book', 'currency', 'amount']).where('account_id', '=', account!.id).execute()
  const sums: Record<string, { balance: number; available: number }> = {}
  for (const row of rows) {
    const sum = (sums[row.currency] ??= { balance: 0, available: 0 })
    sum.balance += Number(row.amount)
    if (row.book === 'available') sum.available += Number(row.amount)
  }
  return sums
}

/** The lines of each currency sum to its balance, and each line's balance after is the sum of the lines up to it. */
function assertLinesSumToBalances(lines: Line[], balances: Record<string, { balance: number; available: number }>): void {
  const oldestFirst = [...lines].reverse()
  const running = new Map<string, { balance: number; available: number }>()
  for (const line of oldestFirst) {
    const sum = running.get(line.currency) ?? { balance: 0, available: 0 }
    sum.balance += line.amount
    sum.available += line.available_amount
    running.set(line.currency, sum)
    assert.deepEqual([line.balance_after, line.available_after], [sum.balance, sum.available], `${line.id} ${line.type}`)
  }
  for (const currency of ['DEPIX', 'BTC', 'USDt']) {
    const expected = balances[currency] ?? { balance: 0, available: 0 }
    assert.deepEqual(running.get(currency) ?? { balance: 0, available: 0 }, expected, currency)
  }
}

const euidOf = async (taxNumber: string) => (await service.sandbox!.fake.endUser(taxNumber, 'Payer Person')).euid

test('a month of an account: credits and their fee, a held payment and its release, a BTC credit at its quote, a MED, a withdrawal sent and one canceled', async () => {
  const owner = await ownerWithBalance(service, 'statement-month@example.com', '300.00')
  // A third-party payer: held 7 days, then released.
  const held = ok(await service.api.post('/api/create-payment', { value: '50.00', email: owner.email, euid: await euidOf(generateCpf()) }, { token: owner.token }))
  assert.equal((await service.pay(held.id, generateCpf())).body.status, 'after7d')
  // A BTC credit: converted at the charge's quote.
  const btc = ok(await service.api.post('/api/create-payment', { value: '40.00', email: owner.email, euid: owner.euid, swap_to: 'BTC' }, { token: owner.token }))
  assert.equal((await service.pay(btc.id, owner.taxNumber)).body.status, 'depix_sent')
  await service.advance(7 * 24 * 3600)

  // A withdrawal sent, one canceled.
  const destination = await confirmedDestination(service, owner, 'liquid', newLiquidAddress('elementsregtest', randomBytes(20), Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')))
  await service.advance(24 * 3600 + 1)
  const withdraw = async (key: string, amount: number) => ok(await service.api.post('/api/withdrawals', { currency: 'DEPIX', amount, destination_id: destination }, { token: owner.token, headers: { 'idempotency-key': key } }))
  const sent = await withdraw('sent', 10_000)
  await service.jobs.runDue()
  const canceled = await withdraw('canceled', 5_000)
  await owner.wallet.get(`/wallet/withdrawals/${canceled.id}`)
  assert.equal((await owner.wallet.post(`/wallet/withdrawals/${canceled.id}/cancel`, {})).status, 303)

  // Last (an open MED stops withdrawals), a MED takes R$ 20,00 back from the first credit.
  const listed = ok(await service.api.get('/api/payments?status=depix_sent', { token: owner.token })).payments
  const firstId = listed.find((row) => row.amount === 30_000)!.qrId
  assert.equal((await service.request({ method: 'POST', url: `/sandbox/payments/${firstId}/med`, body: { principal_cents: 2000 } })).status, 200)

  const lines = await statementLines(service.api, owner.token, '', 3)
  assert.deepEqual(lines.map((line) => [line.type, line.currency, line.amount]).reverse(), [
    ['credit', 'DEPIX', 30_000], ['fee', 'DEPIX', -100],
    ['credit', 'DEPIX', 5_000], ['fee', 'DEPIX', -100],
    ['credit', 'BTC', lines.find((line) => line.currency === 'BTC')!.amount],
    ['hold_release', 'DEPIX', 0],
    ['withdrawal_reserved', 'DEPIX', 0],
    ['withdrawal', 'DEPIX', -9_800], ['withdrawal_fee', 'DEPIX', -200],
    ['withdrawal_reserved', 'DEPIX', 0],
    ['withdrawal_canceled', 'DEPIX', 0],
    ['med', 'DEPIX', -2_000],
  ])
  const byType = (type: string) => lines.filter((line) => line.type === type)
  assert.deepEqual(byType('hold_release').map((line) => [line.available_amount, line.payment_id]), [[4_900, held.id]])
  assert.deepEqual(byType('credit').filter((line) => line.payment_id === held.id).map((line) => line.available_amount), [0], 'a held credit is not available')
  assert.deepEqual(byType('withdrawal_reserved').map((line) => [line.available_amount, line.withdrawal_id]), [[-5_000, canceled.id], [-10_000, sent.id]])
  assert.deepEqual(byType('withdrawal').map((line) => line.withdrawal_id), [sent.id])
  const btcLine = byType('credit').find((line) => line.currency === 'BTC')!
  assert.equal(btcLine.payment_id, btc.id)
  assert.match(btcLine.quote_brl!, /^\d+\.\d{6}$/)
  assert.ok(btcLine.amount > 0)
  assert.equal(byType('fee').every((line) => line.quote_brl === null), true)
  assert.ok(lines.every((line) => /^bt_\d+_[01]$/.test(line.id) && line.created_at.endsWith('Z')))
  assertLinesSumToBalances(lines, await ledgerBalances(owner.email))
  const available = ok(await service.api.get('/api/get-balance', { token: owner.token })).balances
  assert.equal(lines.find((line) => line.currency === 'DEPIX')!.available_after, available.DEPIX.available_cents)
  assert.equal(lines.find((line) => line.currency === 'BTC')!.available_after, available.BTC.available_sats)

  // Pages of any size give the same lines; filters keep their balances.
  assert.deepEqual(await statementLines(service.api, owner.token, '', 1), lines)
  assert.deepEqual(await statementLines(service.api, owner.token, '&currency=BTC'), lines.filter((line) => line.currency === 'BTC'))
  assert.deepEqual(await statementLines(service.api, owner.token, '&type=fee', 1), byType('fee'))
  assert.deepEqual(await statementLines(service.api, owner.token, '&type=withdrawal_fee'), byType('withdrawal_fee'))
  const medAt = byType('med')[0]!.created_at
  assert.deepEqual(await statementLines(service.api, owner.token, `&created_to=${encodeURIComponent(medAt)}`), lines.filter((line) => line.created_at < medAt))
  assert.deepEqual(await statementLines(service.api, owner.token, `&created_from=${encodeURIComponent(medAt)}`), lines.filter((line) => line.created_at >= medAt))

  // Another account sees none of it.
  const other = await service.merchant('statement-other@example.com', generateCpf())
  assert.deepEqual(await statementLines(service.api, other.token), [])
})

test('bad filters are 400 with the parameter named; the statement needs a token', async () => {
  const { token } = await service.merchant('statement-filters@example.com', generateCpf())
  await assertRefusedFilters(service.request, '/api/balance-transactions', token, [['?limit=0', 'limit'], ['?limit=101', 'limit'], ['?currency=EUR', 'currency'], ['?type=gift', 'type'], ['?cursor=bm9wZQ', 'cursor'], ['?created_from=yesterday', 'created_from'], ['?page=2', 'page']])
})

test('property: whatever an account lives through, the lines of a currency sum to its balance and every page size reads the same lines', async () => {
  let run = 0
  const statuses: string[] = []
  const withdrawals: string[] = []
  const step = fc.oneof(
    fc.record({ kind: fc.constant('pay' as const), reais: fc.integer({ min: 10, max: 90 }), currency: fc.constantFrom('DEPIX', 'USDt') }),
    fc.record({ kind: fc.constant('third_party' as const), reais: fc.integer({ min: 10, max: 90 }) }),
    fc.record({ kind: fc.constant('med' as const), cents: fc.integer({ min: 100, max: 2_000 }) }),
    fc.record({ kind: fc.constant('days' as const), days: fc.integer({ min: 1, max: 8 }) }),
    fc.record({ kind: fc.constant('withdraw' as const), reais: fc.integer({ min: 3, max: 30 }), then: fc.constantFrom('send', 'cancel', 'leave') }),
  )
  await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 4 }), async (steps, pageSize) => {
    const email = `statement-property-${run++}@example.com`
    const owner = await ownerWithBalance(service, email, '20.00')
    const destination = await confirmedDestination(service, owner, 'liquid', newLiquidAddress('elementsregtest', randomBytes(20), Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')))
    await service.advance(24 * 3600 + 1)
    const paid: string[] = []
    for (const s of steps) {
      if (s.kind === 'pay' || s.kind === 'third_party') {
        const payer = s.kind === 'pay' ? owner.taxNumber : generateCpf()
        const euid = s.kind === 'pay' ? owner.euid : await euidOf(generateCpf())
        const created = await service.api.post('/api/create-payment', { value: `${s.reais}.00`, email, euid, swap_to: s.kind === 'pay' ? s.currency : 'DEPIX' }, { token: owner.token })
        // After a MED its payer is blocked: the history goes on without that charge.
        if (created.status !== 200) continue
        statuses.push((await service.pay(created.body.id, payer)).body.status)
        paid.push(created.body.id)
      } else if (s.kind === 'med' && paid.length > 0) {
        await service.request({ method: 'POST', url: `/sandbox/payments/${paid.at(-1)}/med`, body: { principal_cents: s.cents } })
      } else if (s.kind === 'days') {
        await service.advance(s.days * 24 * 3600)
      } else if (s.kind === 'withdraw') {
        const made = await service.api.post('/api/withdrawals', { currency: 'DEPIX', amount: s.reais * 100, destination_id: destination }, { token: owner.token })
        // Refused (not enough available, an open MED): the history goes on without it.
        if (made.status !== 200) continue
        withdrawals.push(s.then)
        if (s.then === 'send') await service.jobs.runDue()
        if (s.then === 'cancel') {
          await owner.wallet.get(`/wallet/withdrawals/${made.body.id}`)
          await owner.wallet.post(`/wallet/withdrawals/${made.body.id}/cancel`, {})
        }
      }
    }
    const lines = await statementLines(service.api, owner.token)
    assertLinesSumToBalances(lines, await ledgerBalances(email))
    assert.deepEqual(await statementLines(service.api, owner.token, '', pageSize), lines)
  }), { numRuns: 10 })
  assert.ok(statuses.includes('after7d') && statuses.includes('depix_sent'), `the histories held payments and credited others: ${statuses}`)
  assert.ok(withdrawals.length > 0, 'and withdrew')
})
