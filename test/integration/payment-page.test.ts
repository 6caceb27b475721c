// The payment page of every charge (docs/payment-pages.md): payUrl in the create result, the page
// a payer reads at /pay/{id} in both languages, following the charge from the QR to the receipt,
// expired and held charges said plainly, a strict CSP, and under 50 kB on the wire with the QR.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import type { CreatePaymentRequest } from '../../sdk/src/types.ts'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { signedInClient } from '../support/wallet-client.ts'

let service: TestService
let merchant: Awaited<ReturnType<TestService['merchant']>>
before(async () => {
  service = await startTestService()
  merchant = await service.merchant('doces@example.com', generateCpf())
})
after(() => service.close())

async function create(body: Partial<CreatePaymentRequest>, headers: Record<string, string> = {}) {
  return service.api.post('/api/create-payment', { value: '10.00', email: 'cliente@example.com', tax_number: generateCpf(), ...body }, { token: merchant.token, headers })
}

const page = (id: string, query = '') => service.request({ method: 'GET', url: `/pay/${id}${query}` })
const phaseOf = (html: string) => /data-phase="(\w+)"/.exec(html)?.[1]

test('create-payment answers payUrl; the page shows the amount, the QR, the code to copy, a countdown, and follows itself without JavaScript', async () => {
  const created = await create({})
  assert.equal(created.status, 200, JSON.stringify(created.body))
  assert.equal(created.body.payUrl, `http://pix.test/pay/${created.body.id}`)
  const shown = await page(created.body.id)
  assert.equal(shown.status, 200)
  assert.match(String(shown.headers['content-type']), /^text\/html/)
  const html = shown.body as string
  assert.match(html, /<html lang="pt-BR">/)
  assert.match(html, /R\$&nbsp;10,00|R\$ 10,00/)
  assert.match(html, new RegExp(`<img class="qr" src="/api/qr/${created.body.id}.png"`))
  assert.ok(html.includes(`>${created.body.qrCopyPaste.replace(/&/g, '&amp;')}</textarea>`), 'the copy-and-paste code')
  assert.match(html, /data-copy="copy-paste"/)
  assert.match(html, /data-countdown="600">10:00</)
  assert.equal(phaseOf(html), 'waiting')
  assert.match(html, /Aguardando o seu pagamento/)
  // Without a script the page reloads itself; with one, the script follows the status instead.
  assert.match(html, /<noscript><meta http-equiv="refresh" content="5"><\/noscript>/)
  assert.match(html, new RegExp(`data-follow="/pay/${created.body.id}/status"`))
  const status = await service.request({ method: 'GET', url: `/pay/${created.body.id}/status` })
  assert.deepEqual(status.body, { phase: 'waiting' })
  // No name set in the Wallet: the page names nobody.
  assert.match(html, /<h1>Pagamento Pix<\/h1>/)

  // A strict policy: our own files only, nothing inline, no framing; the id leaks to no one.
  const csp = String(shown.headers['content-security-policy'])
  for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"]) assert.ok(csp.includes(directive), directive)
  assert.doesNotMatch(csp, /unsafe/)
  assert.equal(shown.headers['referrer-policy'], 'no-referrer')
  assert.equal(shown.headers['x-frame-options'], 'DENY')
  assert.doesNotMatch(html, /<script>|<style>| style="| on[a-z]+="/)
  // The very headers the Wallet sends (helmet's there), but for the referrer.
  const wallet = (await service.request({ method: 'GET', url: '/wallet' })).headers
  const security = ['content-security-policy', 'cross-origin-opener-policy', 'cross-origin-resource-policy', 'origin-agent-cluster', 'strict-transport-security', 'x-content-type-options', 'x-dns-prefetch-control', 'x-download-options', 'x-frame-options', 'x-permitted-cross-domain-policies', 'x-xss-protection']
  for (const name of security) assert.equal(shown.headers[name], wallet[name], name)
  assert.deepEqual(Object.keys(wallet).filter((name) => name.startsWith('x-') || name.includes('policy') || name.startsWith('cross-origin') || name.startsWith('origin-')).filter((name) => !['x-request-id', 'referrer-policy'].includes(name)).sort(), security.filter((name) => wallet[name] !== undefined).sort())

  // English on request, and the link back to Portuguese.
  const english = (await page(created.body.id, '?lang=en')).body as string
  assert.match(english, /<html lang="en">/)
  assert.match(english, /Waiting for your payment/)
  assert.match(english, new RegExp(`href="/pay/${created.body.id}" lang="pt-BR"`))
  assert.match(html, new RegExp(`href="/pay/${created.body.id}\\?lang=en" lang="en"`))
})

test('the page with its stylesheet, script and QR image is under 50 kB on the wire', async () => {
  const created = ok(await create({ metadata: { order_id: '1042' }, return_url: 'https://doces.example/pedidos/1042' }))
  const parts = [`/pay/${created.id}`, '/wallet/assets/wallet.css', '/wallet/assets/wallet.js', `/api/qr/${created.id}.png`]
  let bytes = 0
  for (const url of parts) {
    const response = await service.app.inject({ method: 'GET', url })
    assert.equal(response.statusCode, 200, url)
    // What travels: the status line and headers as well as the body.
    bytes += response.rawPayload.length + Object.entries(response.headers).reduce((sum, [name, value]) => sum + name.length + String(value).length + 4, 17)
  }
  assert.ok(bytes < 50_000, `${bytes} bytes`)
})

test('after payment: a receipt (amount paid, date and time, payer masked, the provider transaction id) and "Voltar à loja"; the merchant name set in the Wallet', async () => {
  const wallet = await signedInClient(service, merchant.email)
  assert.match((await wallet.get('/wallet')).html, /Nome exibido aos pagadores/)
  const saved = await wallet.post('/wallet/settings', { display_name: '  Doces   da Ana <3 ' })
  assert.equal(saved.status, 303)
  assert.match((await wallet.get(saved.location!)).html, /value="Doces da Ana &lt;3"/)
  const refused = await wallet.post('/wallet/settings', { display_name: 'x'.repeat(61) })
  assert.equal(refused.status, 400)
  assert.match(refused.html, /data-code="display_name_invalid"/)

  const payer = generateCpf()
  const created = ok(await create({ tax_number: payer, payer_name: 'Maria Clara Souza', return_url: 'https://doces.example/pedidos/7' }))
  const waiting = (await page(created.id)).body as string
  assert.match(waiting, /<h1>Pagamento para Doces da Ana &lt;3<\/h1>/)
  // Not over yet: no way back to the store that might make the payer leave a QR unpaid.
  assert.doesNotMatch(waiting, /Voltar à loja/)
  assert.equal((await service.pay(created.id, payer)).body.status, 'depix_sent')

  const html = (await page(created.id)).body as string
  assert.equal(phaseOf(html), 'paid')
  assert.match(html, /Pagamento confirmado/)
  assert.match(html, /<h2 id="receipt">Comprovante<\/h2>/)
  assert.match(html, /<dt>Valor pago<\/dt><dd>R\$\s10,00<\/dd>/)
  assert.match(html, /<dt>Data e hora<\/dt><dd><time datetime="2026-11-22T12:00:00.000Z">22\/11\/2026, 09:00:00<\/time><\/dd>/)
  assert.ok(html.includes(`<dt>Pagador</dt><dd>Payer P. · ***.${payer.slice(3, 6)}.${payer.slice(6, 9)}-**</dd>`), 'the payer, masked')
  assert.ok(!html.includes(payer), 'the whole tax number is never shown')
  const charge = await service.database.db.selectFrom('charges').select(['provider_deposit_id', 'bank_tx_id']).where('id', '=', created.id).executeTakeFirstOrThrow()
  assert.ok(html.includes(`<code class="id">${charge.bank_tx_id ?? charge.provider_deposit_id}</code>`), 'the provider transaction id')
  assert.match(html, /<a class="button" href="https:\/\/doces.example\/pedidos\/7">Voltar à loja<\/a>/)
  // Over: no QR to pay again, nothing left to follow.
  assert.doesNotMatch(html, /class="qr"|data-countdown|http-equiv="refresh"|data-follow/)
  assert.match(((await page(created.id, '?lang=en')).body as string), /<dt>Amount paid<\/dt>.*Back to the store/s)
})

test('expired and held charges are said plainly, and an unknown page is a page, not JSON', async () => {
  const held = ok(await create({}))
  assert.equal((await service.pay(held.id, generateCpf())).body.status, 'security_hold')
  const heldPage = (await page(held.id)).body as string
  assert.equal(phaseOf(heldPage), 'held')
  assert.match(heldPage, /retido para uma revisão de segurança\. Não pague de novo/)
  assert.doesNotMatch(heldPage, /class="qr"|payer_mismatch/)

  const expiring = ok(await create({}))
  // The QR's time is up before the expiry job has run: the payer is told not to pay it.
  await service.advance(600)
  const expired = (await page(expiring.id)).body as string
  assert.equal(phaseOf(expired), 'expired')
  assert.match(expired, /Este Pix expirou sem pagamento\. Não pague este código/)
  assert.doesNotMatch(expired, /class="qr"|copy-paste|http-equiv="refresh"/)
  assert.deepEqual((await service.request({ method: 'GET', url: `/pay/${expiring.id}/status` })).body, { phase: 'expired' })

  for (const id of ['0'.repeat(32), 'not-a-charge', `${held.id}x`]) {
    const missing = await page(id)
    assert.equal(missing.status, 404, id)
    assert.match(String(missing.headers['content-type']), /^text\/html/)
    assert.match(missing.body, /Não encontramos este pagamento/)
  }
  assert.equal((await service.request({ method: 'GET', url: `/pay/${'0'.repeat(32)}/status` })).body.code, 'payment_not_found')
})

test('return_url must be an absolute http(s) URL; a replayed create answers payUrl too', async () => {
  for (const url of ['javascript:alert(1)', '/relative', 'https://user:pw@store.example/', 'ftp://store.example/']) {
    const refused = await create({ return_url: url })
    assert.equal(refused.status, 400, url)
    assert.equal(refused.body.code, 'return_url_invalid', url)
    assert.equal(refused.body.param, 'return_url', url)
  }
  const key = { 'idempotency-key': 'order-77' }
  const body = { tax_number: generateCpf() }
  const first = ok(await create(body, key))
  const again = ok(await create(body, key))
  assert.deepEqual(again, first)
  assert.equal(again.payUrl, `http://pix.test/pay/${first.id}`)
})

test('a page is served again as rendered for PAY_PAGE_CACHE_MS; a payment recorded here shows at once, one recorded elsewhere within that time', async () => {
  const created = ok(await create({}))
  assert.equal(phaseOf((await page(created.id)).body), 'waiting')
  assert.deepEqual((await service.request({ method: 'GET', url: `/pay/${created.id}/status` })).body, { phase: 'waiting' })
  // Another instance records the payment (this process does not write the charge): the page
  // rendered a moment ago is still what this instance serves...
  await service.database.db.updateTable('charges').set({ status: 'depix_sent', confirmed_at: service.clock.now() }).where('id', '=', created.id).execute()
  assert.equal(phaseOf((await page(created.id)).body), 'waiting')
  assert.deepEqual((await service.request({ method: 'GET', url: `/pay/${created.id}/status` })).body, { phase: 'waiting' })
  // ...for at most PAY_PAGE_CACHE_MS (1 s): then the page is rendered again.
  await service.advance(1)
  assert.equal(phaseOf((await page(created.id)).body), 'paid')
  assert.deepEqual((await service.request({ method: 'GET', url: `/pay/${created.id}/status` })).body, { phase: 'paid' })
})
