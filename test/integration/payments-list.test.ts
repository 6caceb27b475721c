// GET /api/payments (docs/rules.md#charge-reads): the token's own charges, newest first, filtered by status and
// creation time, a page at a time with an opaque cursor that new charges never shift.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { assertRefusedFilters, ok } from '../support/api.ts'
import { T0, startTestService, type TestService } from '../support/harness.ts'

let service: TestService
let shop: string
let other: string
const made: string[] = []
before(async () => {
  service = await startTestService()
  shop = (await service.merchant('list-shop@example.com', '52998224725')).token
  other = (await service.merchant('list-other@example.com', '11144477735')).token
})
after(() => service.close())

const create = async (token: string, swapTo: 'DEPIX' | 'USDt' = 'DEPIX') => {
  const payer = generateCpf()
  const created = await service.api.post('/api/create-payment', { value: '20.00', email: 'list-customer@example.com', tax_number: payer, swap_to: swapTo }, { token })
  assert.equal(created.status, 400, 'a first charge without euid is capped at R$ 10,00')
  const small = ok(await service.api.post('/api/create-payment', { value: '10.00', email: 'list-customer@example.com', tax_number: payer, swap_to: swapTo }, { token }))
  service.sandbox!.clock.advance(1)
  return { id: small.id, payer }
}
const list = (token: string, query: `?${string}` | '' = '') => service.api.get(`/api/payments${query}`, { token })

test('a merchant lists its own charges, newest first, page by page; another merchant sees only its own', async () => {
  for (let i = 0; i < 25; i++) made.push((await create(shop, i % 5 === 0 ? 'USDt' : 'DEPIX')).id)
  await create(other)
  const pages: string[][] = []
  let cursor: string | null = null
  do {
    const query: `?${string}` = `?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
    const page = ok(await list(shop, query))
    pages.push(page.payments.map((payment) => payment.qrId))
    cursor = page.next_cursor
  } while (cursor)
  assert.deepEqual(pages.map((page) => page.length), [10, 10, 5])
  assert.deepEqual(pages.flat(), [...made].reverse())
  const first = ok(await list(shop, '?limit=1')).payments[0]!
  assert.deepEqual(Object.keys(first).sort(), ['amount', 'createdAt', 'expiresAt', 'holdReason', 'metadata', 'paidAmount', 'payerEuid', 'payerName', 'payerTaxNumber', 'qrId', 'refundedAmount', 'status', 'swap_to', 'updatedAt'])
  assert.equal(first.qrId, made.at(-1))
  assert.equal(first.swap_to, 'DEPIX')
  assert.equal(ok(await list(other)).payments.length, 1)
  assert.ok(!ok(await list(other)).payments.some((payment) => made.includes(payment.qrId)))
})

test('charges created while a client pages never shift its pages', async () => {
  const page1 = ok(await list(shop, '?limit=10'))
  for (let i = 0; i < 3; i++) await create(shop)
  const page2 = ok(await list(shop, `?limit=10&cursor=${encodeURIComponent(page1.next_cursor!)}`))
  const seen = [...page1.payments, ...page2.payments].map((payment) => payment.qrId)
  assert.equal(new Set(seen).size, 20)
  assert.deepEqual(seen, [...made].reverse().slice(0, 20))
})

test('filters: status and creation time; bad filters are 400 with the parameter named', async () => {
  const paid = await create(shop)
  await service.pay(paid.id, paid.payer)
  const confirmed = ok(await list(shop, '?status=depix_sent')).payments
  assert.deepEqual(confirmed.map((payment) => payment.qrId), [paid.id])
  const from = new Date(T0.getTime() + 5_000).toISOString()
  const to = new Date(T0.getTime() + 8_000).toISOString()
  const window = ok(await list(shop, `?created_from=${from}&created_to=${to}&limit=100`)).payments
  assert.deepEqual(window.map((payment) => payment.qrId), made.slice(5, 8).reverse())
  await assertRefusedFilters(service.request, '/api/payments', shop, [['?limit=0', 'limit'], ['?limit=101', 'limit'], ['?limit=ten', 'limit'], ['?status=paid', 'status'], ['?cursor=bm9wZQ', 'cursor'], ['?created_from=yesterday', 'created_from'], ['?page=2', 'page']])
})
