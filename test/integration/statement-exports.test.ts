// Issue 52: the Wallet's CSV exports of the statement, the charges and the withdrawals, in the
// Brazilian spreadsheet flavour (default: `;`, decimal comma, pt-BR headers, BOM) and the
// standard one (`,`, decimal point), read back with a real CSV parser and compared with what the
// API answers; dates in the owner's time zone, instants in UTC. And the Extrato page.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { parse } from 'csv-parse/sync'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { creditPosting } from '../../src/domain/ledger.ts'
import { newLiquidAddress } from '../../src/treasury/liquid-address.ts'
import { ok, statementLines } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { confirmedDestination, ownerWithBalance, type Owner } from '../support/withdrawals.ts'

let service: TestService
let owner: Owner
let withdrawalId: string
before(async () => {
  service = await startTestService()
  owner = await ownerWithBalance(service, 'exports@example.com', '300.00')
  const btc = ok(await service.api.post('/api/create-payment', { value: '40.00', email: owner.email, euid: owner.euid, swap_to: 'BTC' }, { token: owner.token }))
  await service.pay(btc.id, owner.taxNumber)
  const destination = await confirmedDestination(service, owner, 'liquid', newLiquidAddress('elementsregtest', randomBytes(20), Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')))
  await service.advance(24 * 3600 + 1)
  withdrawalId = ok(await service.api.post('/api/withdrawals', { currency: 'DEPIX', amount: 12_345, destination_id: destination }, { token: owner.token, headers: { 'idempotency-key': 'x1' } })).id
  await service.jobs.runDue()
})
after(() => service.close())

/** The token's statement as the API answers it, oldest first as the CSVs list it. */
const apiLines = async (token: string) => (await statementLines(service.api, token)).reverse()

const decimals: Record<string, number> = { DEPIX: 2, BTC: 8, USDt: 6 }
/** A CSV amount back to minor units, in either flavour. */
const units = (text: string, currency: string, mark: ',' | '.') => {
  const [whole, fraction = ''] = text.replace(mark, '|').split('|') as [string, string?]
  assert.equal(fraction.length, decimals[currency], text)
  return Number(`${whole}${fraction}`.replace(/^(-?)0+(?=\d)/, '$1'))
}
/** São Paulo is UTC−3 all year. */
const saoPaulo = (iso: string) => new Date(new Date(iso).getTime() - 3 * 3600_000).toISOString()

test('the statement in both flavours: the API\'s lines, oldest first; BOM, `;` and decimal comma in Portuguese; `,` and a point in the standard one', async () => {
  const lines = await apiLines(owner.token)
  assert.ok(lines.some((line) => line.type === 'withdrawal_fee'), 'the history holds a sent withdrawal')

  const br = await owner.wallet.get('/wallet/statement.csv')
  assert.equal(br.status, 200)
  assert.match(String(br.headers['content-type']), /^text\/csv; charset=utf-8/)
  assert.match(String(br.headers['content-disposition']), /^attachment; filename="extrato\.csv"$/)
  assert.ok(br.html.startsWith('\uFEFF'), 'UTF-8 with a BOM, so Excel reads the accents')
  const brRows: string[][] = parse(br.html, { delimiter: ';', bom: true })
  assert.deepEqual(brRows[0], ['Data (America/Sao_Paulo)', 'Tipo', 'Moeda', 'Valor', 'Valor no disponível', 'Saldo após', 'Disponível após', 'Cobrança', 'Saque', 'Cotação (R$)', 'Instante (UTC)', 'Id da linha'])
  assert.equal(brRows.length - 1, lines.length)

  const standard = await owner.wallet.get('/wallet/statement.csv?flavour=standard')
  assert.ok(!standard.html.startsWith('\uFEFF'))
  const stdRows: string[][] = parse(standard.html, { delimiter: ',' })
  assert.deepEqual(stdRows[0]!.slice(0, 4), ['Date (America/Sao_Paulo)', 'Type', 'Currency', 'Amount'])

  const typeLabels: Record<string, string> = { credit: 'Crédito', fee: 'Tarifa de depósito', withdrawal_reserved: 'Saque reservado', withdrawal: 'Saque', withdrawal_fee: 'Tarifa de saque' }
  lines.forEach((line, index) => {
    for (const [row, mark] of [[brRows[index + 1]!, ','], [stdRows[index + 1]!, '.']] as const) {
      const [date, type, currency, amount, available, balance, availableAfter, payment, withdrawal, quote, instant, id] = row as [string, string, string, string, string, string, string, string, string, string, string, string]
      assert.equal(id, line.id)
      assert.equal(instant, line.created_at)
      const local = saoPaulo(line.created_at)
      assert.equal(date, mark === ',' ? `${local.slice(8, 10)}/${local.slice(5, 7)}/${local.slice(0, 4)} ${local.slice(11, 19)}` : `${local.slice(0, 10)} ${local.slice(11, 19)}`)
      assert.equal(type, mark === ',' ? typeLabels[line.type] : line.type)
      assert.equal(currency, line.currency)
      assert.deepEqual([units(amount, currency, mark), units(available, currency, mark), units(balance, currency, mark), units(availableAfter, currency, mark)],
        [line.amount, line.available_amount, line.balance_after, line.available_after])
      assert.deepEqual([payment || null, withdrawal || null], [line.payment_id, line.withdrawal_id])
      assert.equal(quote === '' ? null : quote.replace(',', '.'), line.quote_brl)
    }
  })
  assert.deepEqual(brRows.filter((row) => row[8] === withdrawalId && row[3] !== '0,00').map((row) => [row[1], row[3]]), [['Saque', '-120,98'], ['Tarifa de saque', '-2,47']],
    'R$ 123,45 out: what was sent, and the 2 % fee rounded up, with a decimal comma')
})

test('charges and withdrawals in both flavours match the API', async () => {
  const payments = ok(await service.api.get('/api/payments?limit=100', { token: owner.token })).payments
  const charges: string[][] = parse((await owner.wallet.get('/wallet/charges.csv')).html, { delimiter: ';', bom: true })
  assert.deepEqual(charges[0], ['Data (America/Sao_Paulo)', 'Id', 'Situação', 'Valor cobrado (R$)', 'Valor pago (R$)', 'Tarifa (R$)', 'Moeda', 'Creditado', 'Devolvido (R$)', 'Pagador', 'CPF/CNPJ do pagador', 'Confirmado em (America/Sao_Paulo)', 'Instante (UTC)'])
  assert.deepEqual(charges.slice(1).map((row) => [row[1], row[3], row[6], row[12]]), payments.map((payment) => [payment.qrId, (payment.amount / 100).toFixed(2).replace('.', ','), payment.swap_to, payment.createdAt]))
  const depix = charges.find((row) => row[6] === 'DEPIX')!
  assert.deepEqual([depix[2], depix[5], depix[7]], ['Pago e creditado', '1,00', '299,00'])
  assert.match(depix[10]!, /^\*\*\*\.\d{3}\.\d{3}-\*\*$/, 'the payer\'s tax number masked')
  const standardCharges: string[][] = parse((await owner.wallet.get('/wallet/charges.csv?flavour=standard')).html)
  assert.deepEqual(standardCharges.find((row) => row[6] === 'DEPIX')!.slice(2, 8), ['depix_sent', '300.00', '300.00', '1.00', 'DEPIX', '299.00'])

  const api = ok(await service.api.get('/api/withdrawals', { token: owner.token })).withdrawals
  const withdrawals: string[][] = parse((await owner.wallet.get('/wallet/withdrawals.csv?flavour=standard')).html)
  assert.deepEqual(withdrawals[0]!.slice(0, 8), ['Date (America/Sao_Paulo)', 'Id', 'Status', 'Currency', 'Amount', 'Fee', 'Net sent', 'Received on the Pix key (BRL)'])
  assert.deepEqual(withdrawals.slice(1).map((row) => [row[1], row[2], row[4], row[5], row[6], row[10]]), api.map((w) => [w.id, w.status, (w.amount / 100).toFixed(2), (w.fee / 100).toFixed(2), (w.net_amount / 100).toFixed(2), w.txid ?? '']))
  assert.equal(withdrawals[1]![1], withdrawalId)
})

test('a period of the owner\'s days: a month, or a first and a last day, read in São Paulo; bad ones are refused', async () => {
  // The history happened on 22–23 Nov 2026 (UTC); in São Paulo too.
  const all = parse((await owner.wallet.get('/wallet/statement.csv?flavour=standard')).html) as string[][]
  const november = parse((await owner.wallet.get('/wallet/statement.csv?flavour=standard&month=2026-11')).html) as string[][]
  assert.deepEqual(november, all)
  assert.equal((parse((await owner.wallet.get('/wallet/statement.csv?flavour=standard&month=2026-10')).html) as string[][]).length, 1, 'only the header')
  const firstDay = parse((await owner.wallet.get('/wallet/statement.csv?flavour=standard&from=2026-11-22&to=2026-11-22')).html) as string[][]
  assert.deepEqual(firstDay, all.filter((row, index) => index === 0 || row[0]!.startsWith('2026-11-22')))
  assert.ok(firstDay.length > 1 && firstDay.length < all.length)
  for (const [query, param] of [['month=2026-13', 'month'], ['from=yesterday', 'from'], ['to=2026-02-30', 'to'], ['flavour=excel', 'flavour'], ['currency=EUR', 'currency']]) {
    const refused = await owner.wallet.get(`/wallet/statement.csv?${query}`)
    assert.equal(refused.status, 400, query)
    assert.match(refused.html, new RegExp(`data-code="invalid_request"`), query)
    void param
  }
  assert.equal((await service.request({ method: 'GET', url: '/wallet/statement.csv' })).status, 303, 'signed out: to the sign-in page')
})

test('a payer\'s name that starts like a formula is exported as text', async () => {
  const shop = await ownerWithBalance(service, 'exports-formula@example.com', '20.00')
  const payer = generateCpf()
  const euid = (await service.sandbox!.fake.endUser(generateCpf(), 'Payer Person')).euid
  const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email: shop.email, euid }, { token: shop.token }))
  await service.request({ method: 'POST', url: `/sandbox/payments/${created.id}/pay`, body: { payer_name: '=HYPERLINK("http://x")', payer_tax_number: payer } })
  const rows: string[][] = parse((await shop.wallet.get('/wallet/charges.csv')).html, { delimiter: ';', bom: true })
  const named = rows.find((row) => row[1] === created.id)!
  assert.equal(named[9], '\'=HYPERLINK("http://x")')
})

test('an export longer than a batch streams every line once, in order, with running balances', async () => {
  const shop = await ownerWithBalance(service, 'exports-long@example.com', '20.00')
  const account = (await service.store.accounts.findByEmail(shop.email))!
  // 1,200 credits written as the ledger writes them (a payment each would take minutes).
  await service.store.transaction(async (store) => {
    for (let i = 0; i < 1_200; i++) {
      await store.ledger.post(creditPosting({ id: `bulk${i}`, accountId: account.id, currency: 'DEPIX', arrivedCents: 1_000 + i, units: 900 + i, held: false }), null, new Date(service.clock.now().getTime() + i))
    }
  })
  const rows: string[][] = parse((await shop.wallet.get('/wallet/statement.csv?flavour=standard')).html)
  assert.equal(rows.length - 1, 2 + 1_200 * 2)
  const api = await apiLines(shop.token)
  assert.deepEqual(rows.slice(1).map((row) => [row[11], units(row[5]!, 'DEPIX', '.')]), api.map((line) => [line.id, line.balance_after]))
  const balance = ok(await service.api.get('/api/get-balance', { token: shop.token })).balances.DEPIX.available_cents
  assert.equal(units(rows.at(-1)![6]!, 'DEPIX', '.'), balance)
})

test('the Extrato: the month\'s lines oldest first with their balance after, totals in, out and fees per currency, links to each withdrawal and the CSVs', async () => {
  const lines = await apiLines(owner.token)
  const page = await owner.wallet.get('/wallet/statement')
  assert.equal(page.status, 200)
  const shown = [...page.html.matchAll(/data-line="(bt_\d+_\d)"/g)].map((match) => match[1])
  assert.deepEqual(shown, lines.map((line) => line.id), 'this month (November 2026 in São Paulo) is the whole history')
  const depix = lines.filter((line) => line.currency === 'DEPIX')
  const total = (kind: string) => new RegExp(`data-currency="DEPIX">[\\s\\S]*?data-total="${kind}">([^<]+)<`).exec(page.html)![1]
  const inCents = depix.filter((line) => line.amount > 0).reduce((sum, line) => sum + line.amount, 0)
  const outCents = -depix.filter((line) => line.amount < 0).reduce((sum, line) => sum + line.amount, 0)
  assert.equal(total('in'), `R$ ${(inCents / 100).toFixed(2).replace('.', ',')}`)
  assert.equal(total('out'), `-R$ ${(outCents / 100).toFixed(2).replace('.', ',')}`)
  assert.equal(total('fees'), '-R$ 3,47', 'the deposit fee and the withdrawal fee')
  assert.match(page.html, new RegExp(`href="/wallet/withdrawals/${withdrawalId}"`))
  assert.match(page.html, /href="\/wallet\/statement\.csv\?month=2026-11&amp;flavour=br"/)
  const october = await owner.wallet.get('/wallet/statement?month=2026-10')
  assert.doesNotMatch(october.html, /data-line=/)
  assert.match(october.html, /Nenhum movimento neste período/)
  const btcOnly = await owner.wallet.get('/wallet/statement?month=2026-11&currency=BTC')
  assert.deepEqual([...btcOnly.html.matchAll(/data-currency="(\w+)"/g)].map((match) => match[1]), ['BTC'])
})

test('the owner\'s time zone: chosen on the Extrato, the CSV\'s dates and the money views follow it; an unknown zone is refused', async () => {
  await owner.wallet.get('/wallet/statement')
  assert.equal((await owner.wallet.post('/wallet/time-zone', { time_zone: 'Mars/Olympus_Mons' })).status, 400)
  await owner.wallet.get('/wallet/statement')
  assert.equal((await owner.wallet.post('/wallet/time-zone', { time_zone: 'Asia/Tokyo' })).location, '/wallet/statement')
  try {
    const lines = await apiLines(owner.token)
    const rows: string[][] = parse((await owner.wallet.get('/wallet/statement.csv?flavour=standard')).html)
    assert.equal(rows[0]![0], 'Date (Asia/Tokyo)')
    const tokyo = new Date(new Date(lines[0]!.created_at).getTime() + 9 * 3600_000).toISOString()
    assert.equal(rows[1]![0], `${tokyo.slice(0, 10)} ${tokyo.slice(11, 19)}`)
    assert.equal(rows[1]![10], lines[0]!.created_at, 'the UTC instant beside it')
    const charges = await owner.wallet.get('/wallet/charges')
    const shown = /<time datetime="([^"]+)">([^<]+)<\/time>/.exec(charges.html)!
    const expected = new Date(new Date(shown[1]!).getTime() + 9 * 3600_000).toISOString()
    assert.equal(shown[2], `${expected.slice(8, 10)}/${expected.slice(5, 7)}/${expected.slice(0, 4)}, ${expected.slice(11, 19)}`)
    assert.match((await owner.wallet.get('/wallet/statement')).html, /<option value="Asia\/Tokyo" selected>/)
  } finally {
    await owner.wallet.get('/wallet/statement')
    await owner.wallet.post('/wallet/time-zone', { time_zone: 'America/Sao_Paulo' })
  }
})
