// Issue 52 (point 4): the operators' reports in the console, each with its CSV in both flavours:
// fees earned per asset and month, the charges the provider's records and ours disagree on,
// withdrawals, refunds and MED losses per month, and what each account is owed; checked against
// the ledger's own books.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { parse } from 'csv-parse/sync'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { newLiquidAddress } from '../../src/treasury/liquid-address.ts'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { signedInOperator } from '../support/factors.ts'
import { walletClient } from '../support/wallet-client.ts'
import { confirmedDestination, ownerWithBalance } from '../support/withdrawals.ts'

let service: TestService
let console_: ReturnType<typeof walletClient>
let heldId: string
let driftedId: string
before(async () => {
  service = await startTestService({ OPERATORS: 'ana@example.com:admin', AUTH_FAILURES_PER_MINUTE: '0' })
  // Operators sign in with the e-mail code and their second factor (enrolled the first time).
  console_ = await signedInOperator(service, 'ana@example.com')

  // Deposits (R$ 1,00 fee each), a Liquid withdrawal of R$ 100,00 (R$ 2,00 fee, an L-BTC network fee).
  const owner = await ownerWithBalance(service, 'reports-owner@example.com', '300.00')
  const destination = await confirmedDestination(service, owner, 'liquid', newLiquidAddress('elementsregtest', randomBytes(20), Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')))
  await service.advance(24 * 3600 + 1)
  ok(await service.api.post('/api/withdrawals', { currency: 'DEPIX', amount: 10_000, destination_id: destination }, { token: owner.token, headers: { 'idempotency-key': 'r1' } }))
  await service.jobs.runDue()
  // A payment someone else paid, held, then refunded by support: a refund owed of R$ 10,00.
  const held = ok(await service.api.post('/api/create-payment', { value: '10.00', email: 'reports-held@example.com', tax_number: generateCpf() }, { token: owner.token }))
  heldId = held.id
  assert.equal((await service.pay(heldId, generateCpf())).body.status, 'security_hold', JSON.stringify(held))
  assert.equal((await service.ops('POST', `/ops/payments/${heldId}/review`, { decision: 'refund', note: 'not the payer' })).status, 200)
  // A whole MED on a R$ 10,00 credit: the account gives back R$ 9,00, the service loses the R$ 1,00 fee.
  const medOwner = await ownerWithBalance(service, 'reports-med@example.com', '10.00')
  const medCharge = ok(await service.api.get('/api/payments', { token: medOwner.token })).payments[0]!.qrId
  assert.equal((await service.request({ method: 'POST', url: `/sandbox/payments/${medCharge}/med`, body: { principal_cents: 1000 } })).status, 200)
  // The provider's records: a paid deposit we have no charge for, and a credited charge the
  // provider's record no longer shows paid (written here as the provider's sweep would find it).
  assert.equal((await service.providerWebhook('deposit', { qrId: 'e'.repeat(32), status: 'depix_sent', valueInCents: 5000, payerName: 'Stranger', payerTaxNumber: '***.444.777-**' })).status, 200)
  const drifted = await ownerWithBalance(service, 'reports-drift@example.com', '15.00')
  driftedId = ok(await service.api.get('/api/payments', { token: drifted.token })).payments[0]!.qrId
  await service.database.db.updateTable('charges').set({ provider_status: 'expired' }).where('id', '=', driftedId).execute()
})
after(() => service.close())

const bookTotal = async (book: string, currency: string) =>
  ((await service.ops('GET', '/ops/ledger-check')).body.books as Array<{ book: string; currency: string; total: number }>).find((row) => row.book === book && row.currency === currency)?.total ?? 0
const cell = (html: string, row: string, nth: number) => {
  const found = new RegExp(`<tr ${row}>([\\s\\S]*?)</tr>`).exec(html)
  assert.ok(found, row)
  return [...found[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((match) => match[1]!.replace(/<[^>]+>/g, ''))[nth]!
}

test('fees earned per asset and month: deposits and withdrawals, and the whole of the fees book', async () => {
  const page = await console_.get('/console/reports')
  assert.equal(page.status, 200)
  const row = 'data-month="2026-11" data-currency="DEPIX"'
  // Deposits of R$ 300, R$ 10 and R$ 15 (the held R$ 10 was never credited): R$ 3,00; one withdrawal: R$ 2,00.
  assert.equal(cell(page.html, row, 2), 'R$ 3,00')
  assert.equal(cell(page.html, row, 3), 'R$ 2,00')
  assert.equal(cell(page.html, row, 6), `R$ ${((await bookTotal('fees', 'DEPIX')) / 100).toFixed(2).replace('.', ',')}`)
  const networkFee = await bookTotal('network_fees', 'BTC')
  assert.ok(networkFee > 0)
  assert.match(page.html, /data-currency="BTC"/)

  const br: string[][] = parse((await console_.get('/console/reports/fees.csv')).html, { delimiter: ';', bom: true })
  assert.deepEqual(br[0], ['Mês', 'Moeda', 'Tarifas de depósito', 'Tarifas de saque', 'Tarifas devolvidas', 'Taxas do provedor em devoluções', 'Tarifas líquidas', 'Taxas de rede pagas'])
  assert.deepEqual(br.find((line) => line[1] === 'DEPIX'), ['2026-11', 'DEPIX', '3,00', '2,00', '0,00', '0,00', '5,00', ''])
  const standard: string[][] = parse((await console_.get('/console/reports/fees.csv?flavour=standard')).html)
  assert.deepEqual(standard.find((line) => line[1] === 'BTC')!.slice(0, 2), ['2026-11', 'BTC'])
  assert.equal(Number(standard.find((line) => line[1] === 'BTC')![7]) * 1e8, networkFee)
})

test('charges against the provider\'s records: paid but not credited, credited but not paid, both in the CSV', async () => {
  const page = await console_.get('/console/reports')
  assert.match(page.html, new RegExp(`data-mismatch="${'e'.repeat(32)}"`), 'a paid deposit with no charge of ours')
  assert.match(page.html, new RegExp(`data-mismatch="${driftedId}"`), 'a credit the provider does not show paid')
  assert.doesNotMatch(page.html, new RegExp(`data-mismatch="${heldId}"`), 'a refund owed is not a mismatch')
  const rows: string[][] = parse((await console_.get('/console/reports/provider.csv?flavour=standard')).html)
  assert.deepEqual(rows.slice(1).map((row) => [row[0], row[1], row[3]]).sort(), [
    ['credited_not_paid_by_provider', driftedId, 'expired'],
    ['provider_paid_not_credited', 'e'.repeat(32), 'depix_sent'],
  ].sort())
})

test('withdrawals, refunds and MED losses per month', async () => {
  const page = await console_.get('/console/reports')
  const row = 'data-month="2026-11" data-currency="DEPIX"'
  const outflows = /<section aria-labelledby="outflows">[\s\S]*?<\/section>/.exec(page.html)![0]
  assert.deepEqual([2, 3, 5, 6, 7, 8].map((nth) => cell(outflows, row, nth)), ['1', 'R$ 98,00', 'R$ 10,00', 'R$ 0,00', 'R$ 9,00', 'R$ 1,00'])
  assert.equal(-(await bookTotal('med_losses', 'DEPIX')), 100)
  const rows: string[][] = parse((await console_.get('/console/reports/outflows.csv')).html, { delimiter: ';', bom: true })
  assert.deepEqual(rows.find((line) => line[1] === 'DEPIX'), ['2026-11', 'DEPIX', '1', '98,00', '0,00', '10,00', '0,00', '9,00', '1,00'])
})

test('what each account is owed: its books per currency, the totals as the solvency view sums them; the CSV has every account', async () => {
  const page = await console_.get('/console/reports')
  const owner = (await service.store.accounts.findByEmail('reports-owner@example.com'))!
  const books = { available: await service.store.ledger.balances(owner.id, 'available'), held: await service.store.ledger.balances(owner.id, 'held'), withdrawing: await service.store.ledger.balances(owner.id, 'withdrawing') }
  const owed = books.available.DEPIX + books.held.DEPIX + books.withdrawing.DEPIX
  assert.match(page.html, new RegExp(`data-account="${owner.id}">[\\s\\S]*?data-owed><b>R\\$ ${(owed / 100).toFixed(2).replace('.', ',')}</b>`))
  const totals = await service.store.ledger.owedToAccounts()
  const depix = totals.find((row) => row.currency === 'DEPIX')!
  assert.match(page.html, new RegExp(`data-total="DEPIX">[\\s\\S]*?<b>R\\$ ${(depix.owed / 100).toFixed(2).replace('.', ',')}</b>`))
  const rows: string[][] = parse((await console_.get('/console/reports/owed.csv?flavour=standard')).html)
  assert.deepEqual(rows[0], ['Account id', 'Account', 'Currency', 'Available', 'Held', 'Withdrawing', 'Owed to the account'])
  const positive = rows.slice(1).filter((row) => row[2] === 'DEPIX').map((row) => Math.round(Number(row[6]) * 100)).filter((units) => units > 0)
  assert.equal(positive.reduce((sum, units) => sum + units, 0), depix.owed)
  assert.deepEqual(rows.find((row) => row[1] === owner.email)!.slice(2), ['DEPIX', (books.available.DEPIX / 100).toFixed(2), '0.00', '0.00', (owed / 100).toFixed(2)])
})

test('the reports need a signed-in operator; a bad flavour or report is refused', async () => {
  const stranger = walletClient(service)
  for (const path of ['/console/reports', '/console/reports/fees.csv', '/console/reports/owed.csv']) {
    assert.equal((await stranger.get(path)).status, 303, path)
  }
  assert.equal((await console_.get('/console/reports/fees.csv?flavour=excel')).status, 400)
  assert.equal((await console_.get('/console/reports/secrets.csv')).status, 404)
})
