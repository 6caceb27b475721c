// Payment links (docs/payment-pages.md): published by API, public at /l/{slug}; a view never
// makes a QR, "Gerar Pix" makes an ordinary charge naming its link and opens its payment page;
// the payer limits are said before the payer types and hold; per-link, per-address and provider
// limits turn into "tente em instantes", never a failure.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import type { CreatePaymentLinkBody, PaymentLinkList } from '../../src/contract/api.ts'
import { eulenPublishedLimits } from '../../src/provider/rate-limits.ts'
import { ok, refused } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { signedInClient } from '../support/wallet-client.ts'

let service: TestService
let seller: Awaited<ReturnType<TestService['merchant']>>
before(async () => {
  service = await startTestService()
  seller = await service.merchant('links@example.com', generateCpf())
})
after(() => service.close())

let addresses = 0
/** A new client address for each payer, so the per-address limit is only met where a test means it. */
const nextAddress = () => `10.0.${Math.floor(++addresses / 250)}.${addresses % 250 + 1}`

const publish = async (body: CreatePaymentLinkBody) => ok(await service.api.post('/api/payment-links', body, { token: seller.token }))
/** A link as the API reads it to `token`'s account. */
const linkAnswer = (id: string, token = seller.token) => service.api.get(`/api/payment-links/${id}`, { token })
const readLink = async (id: string) => ok(await linkAnswer(id))
const slugOf = (link: { url: string }) => new URL(link.url).pathname.slice('/l/'.length)
const view = (slug: string, address = nextAddress()) => service.app.inject({ method: 'GET', url: `/l/${slug}`, remoteAddress: address })
const submit = (slug: string, form: Record<string, string>, address = nextAddress()) => service.app.inject({
  method: 'POST', url: `/l/${slug}`, remoteAddress: address, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString(),
})
const chargesOf = (linkId: string) => service.database.db.selectFrom('charges').selectAll().where('payment_link_id', '=', linkId).execute()
const allCharges = async () => Number((await service.database.db.selectFrom('charges').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)

test('a link is published, read, listed and deactivated by API; its address is random and unguessable', async () => {
  const link = await publish({ title: 'Bolo de pote', description: 'Retirada na loja.\nSábado.', amount: '10.00' })
  assert.match(link.id, /^pl_[0-9a-f]{24}$/)
  assert.match(slugOf(link), /^[A-Za-z0-9_-]{22}$/)
  assert.notEqual(slugOf(await publish({ title: 'Outro', amount: '10.00' })), slugOf(link))
  const read = await readLink(link.id)
  assert.deepEqual(read, { ...link, sales: { paid: 0, paid_cents: 0, open: 0 } })
  assert.equal(read.amount_cents, 1000)
  assert.equal(read.swap_to, 'DEPIX')
  assert.ok(ok(await service.api.get('/api/payment-links', { token: seller.token })).payment_links.some((entry) => entry.id === link.id))

  // Another account's link is not found, as a link that cannot exist.
  const other = await service.merchant('other-links@example.com', generateCpf())
  assert.equal(refused(await linkAnswer(link.id, other.token)).code, 'payment_link_not_found')
  assert.equal(refused(await linkAnswer('pl_nope')).code, 'payment_link_not_found')

  const deactivate = () => service.api.post(`/api/payment-links/${link.id}/deactivate`, undefined, { token: seller.token })
  const off = ok(await deactivate())
  assert.equal(off.active, false)
  assert.deepEqual(ok(await deactivate()), off)
  const page = await view(slugOf(link))
  assert.match(page.body, /Este link foi desativado pela loja/)
  assert.doesNotMatch(page.body, /<form/)
  const bought = await submit(slugOf(link), { name: 'Ana Souza', tax_number: generateCpf() })
  assert.equal(bought.statusCode, 410)
  assert.deepEqual(await chargesOf(link.id), [])
})

test('what a link may be: a title, a fixed amount or open bounds within the charge bounds, a future expiry, uses from 1', async () => {
  const refusals: Array<[Record<string, unknown>, string, string]> = [
    [{ amount: '10.00' }, 'payment_link_invalid', 'title'],
    [{ title: '   ', amount: '10.00' }, 'payment_link_invalid', 'title'],
    [{ title: 'x', amount: '10.00', min_amount: '10.00' }, 'payment_link_invalid', 'amount'],
    [{ title: 'x', amount: '9.99' }, 'value_out_of_range', 'amount'],
    [{ title: 'x', amount: '10.00', swap_to: 'BTC' }, 'value_out_of_range', 'amount'],
    [{ title: 'x', min_amount: '50.00', max_amount: '20.00' }, 'payment_link_invalid', 'min_amount'],
    [{ title: 'x', amount: '1O.00' }, 'value_invalid', 'amount'],
    [{ title: 'x', amount: '10.00', expires_at: '2020-01-01T00:00:00Z' }, 'payment_link_invalid', 'expires_at'],
    [{ title: 'x', amount: '10.00', max_uses: 0 }, 'payment_link_invalid', 'max_uses'],
    [{ title: 'x', amount: '10.00', swap_to: 'EUR' }, 'swap_to_invalid', 'swap_to'],
    [{ title: 'x', amount: '10.00', colour: 'red' }, 'invalid_request', 'colour'],
  ]
  for (const [body, code, param] of refusals) {
    const answer = await service.api.postUntyped('/api/payment-links', body, { token: seller.token })
    assert.equal(answer.status, 400, JSON.stringify(body))
    assert.equal(answer.body.code, code, JSON.stringify(body))
    assert.equal(answer.body.param, param, JSON.stringify(body))
  }
  const open = await publish({ title: 'Contribuição', swap_to: 'USDt' })
  const bounds = await readLink(open.id)
  assert.deepEqual([bounds.min_cents, bounds.max_cents], [1000, 500000])
  assert.equal(refused(await service.api.post('/api/payment-links', { title: 'x', amount: '10.00' })).code, 'token_missing')
})

test('viewing a link never makes a QR; the page says the payer limits before the form; "Gerar Pix" makes an ordinary charge naming the link and opens its payment page', async () => {
  const link = await publish({ title: 'Brigadeiro <gourmet>', amount: '10.00' })
  const slug = slugOf(link)
  const before = await allCharges()
  for (let i = 0; i < 25; i++) assert.equal((await view(slug)).statusCode, 200)
  assert.equal(await allCharges(), before, 'a view made a charge')

  const page = (await view(slug)).body
  assert.match(page, /<h1>Brigadeiro &lt;gourmet&gt;<\/h1>/)
  const limits = page.indexOf('Primeiro pagamento com um CPF/CNPJ: até R$ 10,00 por Pix')
  assert.ok(limits > 0 && limits < page.indexOf('<form'), 'the limits come before the form')
  assert.match(page, /name="name"[^>]*required/)
  assert.match(page, /name="tax_number"[^>]*required/)
  assert.doesNotMatch(page, /name="amount"/, 'a fixed price asks for no amount')
  assert.match(String((await view(slug)).headers['content-security-policy']), /script-src 'self'/)
  assert.match((await service.app.inject({ method: 'GET', url: `/l/${slug}?lang=en` })).body, /First payment with a CPF\/CNPJ: up to R\$ 10,00 per Pix/)

  const payer = generateCpf()
  // A bad CPF shows the form again as typed, and makes nothing.
  const typo = await submit(slug, { name: 'Ana Souza', tax_number: '111.111.111-11' })
  assert.equal(typo.statusCode, 400)
  assert.match(typo.body, /data-code="tax_number_invalid"/)
  assert.match(typo.body, /value="Ana Souza"/)
  assert.equal(await allCharges(), before)

  const bought = await submit(slug, { name: 'Ana Souza', tax_number: payer })
  assert.equal(bought.statusCode, 303, bought.body)
  const [charge] = await chargesOf(link.id)
  assert.ok(charge)
  assert.equal(bought.headers.location, `/pay/${charge.id}`)
  assert.deepEqual(charge.metadata, { payment_link_id: link.id })
  assert.equal(charge.value_cents, 1000)
  assert.equal(charge.informed_tax_number, payer)
  assert.equal(charge.informed_payer_name, 'Ana Souza')
  assert.equal(charge.merchant_id, seller.euid)
  // An ordinary charge: the seller's API reads it and its metadata.
  const record = ok(await service.api.get(`/api/get-payment/${charge.id}`, { token: seller.token }))
  assert.deepEqual(record.metadata, { payment_link_id: link.id })
  assert.match((await service.request({ method: 'GET', url: bought.headers.location as string })).body, /Aguardando o seu pagamento/)

  assert.equal((await service.pay(charge.id, payer)).body.status, 'depix_sent')
  assert.deepEqual((await readLink(link.id)).sales, { paid: 1, paid_cents: 1000, open: 0 })
})

test('an open amount: within its bounds, and above R$ 10,00 only for a payer who already paid here with the same CPF/CNPJ', async () => {
  const link = await publish({ title: 'Doação', min_amount: '10.00', max_amount: '50.00' })
  const slug = slugOf(link)
  const page = (await view(slug)).body
  assert.match(page, /de R\$ 10,00 a R\$ 50,00/)
  assert.match(page, /name="amount"/)

  const payer = generateCpf()
  const over = await submit(slug, { name: 'Bia Lima', tax_number: payer, amount: '20,00' })
  assert.equal(over.statusCode, 400)
  assert.match(over.body, /Acima de R\$ 10,00 só paga quem já pagou por aqui/)
  const outside = await submit(slug, { name: 'Bia Lima', tax_number: payer, amount: '60,00' })
  assert.equal(outside.statusCode, 400)
  assert.match(outside.body, /data-code="value_out_of_range"/)
  assert.deepEqual(await chargesOf(link.id), [])

  const first = await submit(slug, { name: 'Bia Lima', tax_number: payer, amount: 'R$ 10,00' })
  assert.equal(first.statusCode, 303, first.body)
  const [charge] = await chargesOf(link.id)
  assert.equal((await service.pay(charge!.id, payer)).body.status, 'depix_sent')

  const known = await submit(slug, { name: 'Bia Lima', tax_number: payer, amount: '20,00' })
  assert.equal(known.statusCode, 303, known.body)
  const second = (await chargesOf(link.id)).find((entry) => entry.id !== charge!.id)!
  assert.equal(second.value_cents, 2000)
  const paid = (await chargesOf(link.id)).find((entry) => entry.id === charge!.id)!
  assert.match(paid.payer_euid ?? '', /^EU\d{15}$/)
  assert.equal(second.informed_euid, paid.payer_euid)
})

test('maximum uses count paid charges and open QRs; an expired link sells no more', async () => {
  const link = await publish({ title: 'Vaga única', amount: '10.00', max_uses: 1, expires_at: new Date(service.clock.now().getTime() + 3_600_000).toISOString() })
  const slug = slugOf(link)
  assert.equal((await submit(slug, { name: 'Caio Reis', tax_number: generateCpf() })).statusCode, 303)
  // Its QR is still open: a second payer cannot oversell the one use.
  const second = await submit(slug, { name: 'Dani Reis', tax_number: generateCpf() })
  assert.equal(second.statusCode, 410)
  assert.match(second.body, /atingiu o número máximo de vendas/)
  // The QR expired unpaid: the use is free again.
  await service.advance(601)
  assert.equal((await submit(slug, { name: 'Dani Reis', tax_number: generateCpf() })).statusCode, 303)
  await service.advance(3600)
  const expired = await view(slug)
  assert.match(expired.body, /Este link expirou/)
  assert.equal((await submit(slug, { name: 'Eva Reis', tax_number: generateCpf() })).statusCode, 410)
  assert.equal((await chargesOf(link.id)).length, 2)
})

test('limits per address, per link, and the provider\'s /deposit budget answer "tente em instantes", and make nothing', async () => {
  const link = await publish({ title: 'Pão de mel', amount: '10.00' })
  const slug = slugOf(link)
  const address = nextAddress()
  for (let i = 0; i < 5; i++) assert.equal((await submit(slug, { name: 'Fábio Melo', tax_number: generateCpf() }, address)).statusCode, 303)
  const sixth = await submit(slug, { name: 'Fábio Melo', tax_number: generateCpf() }, address)
  assert.equal(sixth.statusCode, 429)
  assert.match(sixth.body, /tente em instantes/)
  assert.ok(Number(sixth.headers['retry-after']) > 0)

  // The link's own budget, shared by every address (20 at once).
  for (let i = 5; i < 20; i++) assert.equal((await submit(slug, { name: 'Gil Melo', tax_number: generateCpf() })).statusCode, 303, `charge ${i}`)
  const busyLink = await submit(slug, { name: 'Gil Melo', tax_number: generateCpf() })
  assert.equal(busyLink.statusCode, 429)
  assert.match(busyLink.body, /tente em instantes/)
  assert.equal((await chargesOf(link.id)).length, 20)

  // The deployment near the provider's /deposit limit: links leave the rest to merchants' charges.
  const other = await publish({ title: 'Quindim', amount: '10.00' })
  const limit = eulenPublishedLimits.deposit
  assert.equal(await service.store.rateBuckets.take('provider:deposit', limit, limit.burst - 5), 0)
  const before = await allCharges()
  const busy = await submit(slugOf(other), { name: 'Hugo Melo', tax_number: generateCpf() })
  assert.equal(busy.statusCode, 503)
  assert.match(busy.body, /Muitos pedidos de Pix neste momento: tente em instantes/)
  assert.equal(busy.headers['x-error-code'], 'provider_unavailable')
  assert.equal(await allCharges(), before)
  // A merchant's own API charge still goes through on what was left.
  assert.equal((await service.api.post('/api/create-payment', { value: '10.00', email: 'x@example.com', tax_number: generateCpf() }, { token: seller.token })).status, 200)
  // The budget refilled (as a minute or two would), for the tests after this one.
  await service.database.db.deleteFrom('rate_buckets').where('key', '=', 'provider:deposit').execute()
})

test('an unknown link is a page that says so', async () => {
  for (const slug of ['A'.repeat(22), 'short', 'a%22%3Cb']) {
    const missing = await view(slug)
    assert.equal(missing.statusCode, 404, slug)
    assert.match(missing.body, /<html lang="pt-BR">/)
  }
})

test('the Wallet publishes a link, lists links with their sales and totals, shows a link\'s charges, and deactivates it', async () => {
  const wallet = await signedInClient(service, seller.email)
  const list = await wallet.get('/wallet/links')
  assert.equal(list.status, 200)
  assert.match(list.html, /Links de pagamento/)
  const created = await wallet.post('/wallet/links', { title: 'Trufa', description: 'Sabor maracujá', amount: '10,00', min_amount: '', max_amount: '', swap_to: 'DEPIX', expires_at: '', max_uses: '' })
  assert.equal(created.status, 303, created.html)
  const id = /^\/wallet\/links\/(pl_[0-9a-f]{24})$/.exec(created.location ?? '')?.[1]
  assert.ok(id, created.location)
  const link = await readLink(id)
  assert.equal(link.amount_cents, 1000)
  assert.equal(link.description, 'Sabor maracujá')

  const payer = generateCpf()
  assert.equal((await submit(slugOf(link), { name: 'Iara Nunes', tax_number: payer })).statusCode, 303)
  const [charge] = await chargesOf(id)
  assert.equal((await service.pay(charge!.id, payer)).body.status, 'depix_sent')

  const listed = await wallet.get('/wallet/links')
  assert.ok(listed.html.includes(`href="/wallet/links/${id}">Trufa</a>`))
  assert.match(listed.html, /1 pagas, R\$ 10,00/)
  const detail = await wallet.get(`/wallet/links/${id}`)
  assert.ok(detail.html.includes(charge!.id))
  assert.match(detail.html, /Payer Person|Iara Nunes/)

  const refused = await wallet.post('/wallet/links', { title: '', amount: '10,00' })
  assert.equal(refused.status, 400)
  assert.match(refused.html, /data-code="payment_link_invalid"/)
  await wallet.get('/wallet/links')
  const off = await wallet.post(`/wallet/links/${id}/deactivate`)
  assert.equal(off.status, 303)
  assert.equal((await readLink(id)).active, false)
  // Another owner's link is not theirs to see.
  const stranger = await service.merchant('stranger-links@example.com', generateCpf())
  const strangerWallet = await signedInClient(service, stranger.email)
  assert.equal((await strangerWallet.get(`/wallet/links/${id}`)).status, 404)
})

test('links are listed a page at a time, newest first, by API and in the Wallet, however many there are', async () => {
  const pager = await service.merchant('many-links@example.com', generateCpf())
  const made: string[] = []
  for (let index = 0; index < 23; index++) {
    made.unshift(ok(await service.api.post('/api/payment-links', { title: `Item ${index}`, amount: '10.00' }, { token: pager.token })).id)
    await service.advance(1)
  }
  const seen: string[] = []
  let cursor: string | null = null
  do {
    const page: PaymentLinkList = ok(await service.api.get(`/api/payment-links?limit=5${cursor === null ? '' : `&cursor=${cursor}`}`, { token: pager.token }))
    assert.ok(page.payment_links.length <= 5)
    seen.push(...page.payment_links.map((link) => link.id))
    cursor = page.next_cursor
  } while (cursor !== null)
  assert.deepEqual(seen, made, 'every link once, newest first')
  assert.equal(ok(await service.api.get('/api/payment-links', { token: pager.token })).payment_links.length, 20, '20 when no limit is given')
  assert.equal(refused(await service.api.get('/api/payment-links?cursor=bm90LW91cnM', { token: pager.token })).code, 'invalid_request')
  assert.equal((await service.api.get('/api/payment-links?limit=101', { token: pager.token })).status, 400)

  const wallet = await signedInClient(service, pager.email)
  const first = await wallet.get('/wallet/links')
  const next = /<a href="([^"]+)" rel="next">/.exec(first.html)?.[1]?.replaceAll('&amp;', '&')
  assert.ok(next, 'the Wallet offers the older links')
  const second = await wallet.get(next)
  assert.ok(second.html.includes(made[20]!) && second.html.includes(made[22]!), 'the second page holds the oldest three')
  assert.ok(!second.html.includes(`/wallet/links/${made[0]}"`))
  assert.doesNotMatch(second.html, /rel="next"/)
})
