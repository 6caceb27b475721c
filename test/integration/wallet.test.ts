// The Wallet's rules (docs/rules.md#wallet), through its pages: codes, limits, sessions, CSRF, sign-up
// and claiming, the identity purchase, "Novo Token", the views and the security headers.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { createAdjustableClock } from '../../src/clock.ts'
import { ok } from '../support/api.ts'
import { startTestService, T0, type TestService } from '../support/harness.ts'
import { signedInClient, walletClient } from '../support/wallet-client.ts'

let service: TestService
// The wall clock, which sessions are measured on, moved by hand apart from the sandbox's clock.
const wallClock = createAdjustableClock(T0)
before(async () => {
  service = await startTestService({}, { wallClock })
})
after(() => service.close())

async function outbox(email: string): Promise<Array<{ code: string; subject: string; text: string }>> {
  const response = await service.request({ method: 'GET', url: `/sandbox/outbox?email=${encodeURIComponent(email)}` })
  assert.equal(response.status, 200, JSON.stringify(response.body))
  return response.body.mails
}

const codeOf = (html: string) => /data-code="([a-z_]+)"/.exec(html)?.[1]

/** Signs up (or claims) and signs in; returns the signed-in client. */
async function signUp(email: string, taxNumber: string, name = 'Ana Maria Souza', address = '127.0.0.1') {
  const client = walletClient(service, address)
  await client.get('/wallet/sign-up')
  const sent = await client.post('/wallet/sign-up', { email, name, tax_number: taxNumber })
  assert.equal(sent.status, 303, sent.html)
  assert.equal(sent.location, `/wallet/code?email=${encodeURIComponent(email)}`)
  await client.get(sent.location!)
  const signedIn = await client.post('/wallet/code', { email, code: (await outbox(email))[0]!.code })
  assert.equal(signedIn.status, 303, signedIn.html)
  return client
}

test('sign-up, the identity purchase and "Novo Token": the token charges through the API, once shown, and the next one revokes it', async () => {
  const owner = generateCpf()
  const client = await signUp('owner@example.com', owner)
  let home = await client.get('/wallet')
  assert.match(home.html, /owner@example\.com/)
  assert.equal(codeOf(home.html), 'kyc_purchase_required')
  assert.match(home.html, /<button type="submit" disabled>Novo Token<\/button>/)
  assert.equal((await client.post('/wallet/token', { confirm: 'yes', nonce: /name="nonce" value="([^"]+)"/.exec(home.html)![1]! })).headers['x-error-code'], 'kyc_purchase_required')

  // The first purchase is capped at R$ 10,00.
  const tooMuch = await client.post('/wallet/purchases', { value: '10.01' })
  assert.equal(tooMuch.status, 400)
  assert.equal(tooMuch.headers['x-error-code'], 'euid_required')
  // Issue 21 (point 7): in the page's language, not the API's English.
  assert.match(tooMuch.html, /Cobranças acima de R\$ 10,00 exigem o euid do pagador/)
  assert.doesNotMatch(tooMuch.html, /Charges above/)
  const bought = await client.post('/wallet/purchases', { value: '10,00' })
  assert.equal(bought.status, 303, bought.html)
  const purchase = await client.get(bought.location!)
  const id = bought.location!.split('/').pop()!
  assert.match(purchase.html, new RegExp(`<img src="/api/qr/${id}\\.png"`))
  assert.match(purchase.html, /<textarea id="copy-paste" readonly rows="4">000201/)
  assert.match(purchase.html, /<time datetime="2026-11-22T12:10:00.000Z">/)
  assert.match(purchase.html, /Simular pagamento/)
  assert.deepEqual(JSON.parse((await client.get(`/wallet/purchases/${id}/status`)).html), { status: 'waiting_payment', label: 'Aguardando pagamento' })

  assert.equal((await client.post(`/wallet/purchases/${id}/simulate`)).status, 303)
  assert.deepEqual(JSON.parse((await client.get(`/wallet/purchases/${id}/status`)).html), { status: 'depix_sent', label: 'Pago e creditado' })
  home = await client.get('/wallet')
  const account = (await service.store.accounts.findByEmail('owner@example.com'))!
  assert.equal(account.kyc, 'verified')
  assert.match(home.html, new RegExp(`Seu merchantId é ${account.euid}`))
  assert.match(home.html, /R\$ 9,00/)

  // A confirmation is required; then the token is shown once, on a page nobody may cache, reached
  // by a redirect (post/redirect/get), so reloading it issues nothing.
  const nonce = /name="nonce" value="([^"]+)"/.exec(home.html)![1]!
  assert.equal((await client.post('/wallet/token', { nonce })).status, 400)
  const posted = await client.post('/wallet/token', { confirm: 'yes', nonce })
  assert.deepEqual([posted.status, posted.location], [303, '/wallet/token'])
  const issued = await client.get('/wallet/token')
  assert.equal(issued.status, 200)
  assert.equal(issued.headers['cache-control'], 'no-store')
  const token = /id="token" class="token" type="text" readonly value="([^"]+)"/.exec(issued.html)![1]!
  const reloaded = await client.get('/wallet/token')
  assert.ok(!reloaded.html.includes(token))
  assert.match(reloaded.html, /Token já mostrado/)
  // The same form sent again (its nonce spent) issues nothing: the token keeps working.
  assert.equal((await client.post('/wallet/token', { confirm: 'yes', nonce })).location, '/wallet/token')
  assert.equal((await service.database.db.selectFrom('api_tokens').select('id').where('account_id', '=', account.id).execute()).length, 1)
  ok(await service.api.post('/api/create-payment', { value: '10.00', email: 'buyer@example.com', tax_number: generateCpf() }, { token }))
  home = await client.get('/wallet')
  assert.ok(!home.html.includes(token), 'the token is never shown again')
  assert.match(home.html, new RegExp(`terminado em ${token.slice(-4)}`))
  assert.doesNotMatch(home.html, /Último uso: nunca/)

  const again = await client.get('/wallet')
  await client.post('/wallet/token', { confirm: 'yes', nonce: /name="nonce" value="([^"]+)"/.exec(again.html)![1]! })
  const old = await service.api.get('/api/get-balance', { token })
  assert.equal(old.status, 403)
  assert.equal(old.body.code, 'token_inactive')
})

test('a purchase paid by someone else does not give the account its EUID', async () => {
  const client = await signUp('thirdparty@example.com', generateCpf())
  await client.get('/wallet')
  const id = (await client.post('/wallet/purchases', { value: '10.00' })).location!.split('/').pop()!
  const charge = (await service.store.charges.findById(id))!
  await service.sandbox!.fake.settle(charge.provider_deposit_id, { payerName: 'Someone Else', payerTaxNumber: generateCpf(), outcome: 'depix_sent' })
  assert.equal((await service.store.charges.findById(id))!.status, 'security_hold')
  const account = (await service.store.accounts.findByEmail('thirdparty@example.com'))!
  assert.equal(account.kyc, 'none')
  assert.equal(account.euid, null)
  assert.equal(codeOf((await client.get('/wallet')).html), 'kyc_purchase_required')
})

test('an account stuck unidentified sees what to do', async () => {
  const taxNumber = generateCpf()
  await service.request({ method: 'POST', url: '/sandbox/accounts', body: { email: 'stuck@example.com', tax_number: taxNumber, purchase: 'unidentified' } })
  const client = await signedInClient(service, 'stuck@example.com')
  const home = await client.get('/wallet')
  assert.equal(codeOf(home.html), 'kyc_identity_unidentified')
  assert.match(home.html, /support@example\.com/)
})

test('codes: valid 10 minutes, single use, burned after 5 wrong tries', async () => {
  const email = 'codes@example.com'
  const owner = await signUp(email, generateCpf())
  await owner.post('/wallet/sign-out')
  const client = walletClient(service)
  const ask = async () => {
    await client.get('/wallet')
    await client.post('/wallet/sign-in', { email })
    await client.get(`/wallet/code?email=${encodeURIComponent(email)}`)
    return (await outbox(email))[0]!.code
  }
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0')

  let code = await ask()
  service.sandbox!.clock.advance(601)
  assert.equal((await client.post('/wallet/code', { email, code })).headers['x-error-code'], 'wallet_code_invalid')

  code = await ask()
  assert.equal((await client.post('/wallet/code', { email, code })).status, 303)
  await client.get('/wallet')
  await client.post('/wallet/sign-out')
  await client.get('/wallet')
  assert.equal((await client.post('/wallet/code', { email, code })).headers['x-error-code'], 'wallet_code_invalid', 'used once only')

  code = await ask()
  for (let i = 0; i < 5; i++) assert.equal((await client.post('/wallet/code', { email, code: wrong(code) })).status, 400)
  assert.equal((await client.post('/wallet/code', { email, code })).headers['x-error-code'], 'wallet_code_invalid', 'burned after 5 wrong tries')
  service.sandbox!.clock.advance(3600)
})

test('at most 5 codes per e-mail per hour, a limit per address, and the same answer for unknown e-mails', async () => {
  const email = 'limits@example.com'
  await signUp(email, generateCpf())
  service.sandbox!.clock.advance(3601)
  const client = walletClient(service, '10.1.1.1')
  const before = (await outbox(email)).length
  const answers: string[] = []
  for (let i = 0; i < 7; i++) {
    await client.get('/wallet')
    const sent = await client.post('/wallet/sign-in', { email })
    answers.push(`${sent.status} ${sent.location}`)
    // As a running service's job runner does at once: the code's mail leaves.
    await service.jobs.runDue()
  }
  assert.equal((await outbox(email)).length - before, 5)
  assert.deepEqual(new Set(answers), new Set([`303 /wallet/code?email=${encodeURIComponent(email)}`]))

  // Unknown: the same redirect, the same page, and no mail.
  await client.get('/wallet')
  const unknown = await client.post('/wallet/sign-in', { email: 'nobody@example.com' })
  assert.equal(unknown.status, 303)
  assert.equal(unknown.location, '/wallet/code?email=nobody%40example.com')
  const page = (await client.get(unknown.location!)).html
  const known = (await client.get(`/wallet/code?email=${encodeURIComponent(email)}`)).html
  assert.equal(page.replace(/value="[^"]+"/g, '').replaceAll('nobody@example.com', 'X'), known.replace(/value="[^"]+"/g, '').replaceAll(email, 'X'))
  assert.deepEqual(await outbox('nobody@example.com'), [])

  const crowd = walletClient(service, '10.1.1.2')
  let last = 0
  for (let i = 0; i < 31; i++) {
    await crowd.get('/wallet')
    last = (await crowd.post('/wallet/sign-in', { email: `person${i}@example.com` })).status
  }
  assert.equal(last, 429)
})

test('sessions end after 30 minutes idle, 12 hours in all, or "Sair"', async () => {
  const client = await signUp('session@example.com', generateCpf())
  const signedIn = async () => /session@example\.com/.test((await client.get('/wallet')).html)
  assert.ok(await signedIn())
  wallClock.advance(29 * 60)
  assert.ok(await signedIn(), 'still within 30 minutes idle')
  wallClock.advance(31 * 60)
  assert.ok(!(await signedIn()), 'idle for 31 minutes')

  const busy = await signUp('session2@example.com', generateCpf())
  for (let minutes = 0; minutes < 12 * 60 - 20; minutes += 20) {
    wallClock.advance(20 * 60)
    assert.ok(/session2@example\.com/.test((await busy.get('/wallet')).html), `active after ${minutes + 20} minutes`)
  }
  wallClock.advance(40 * 60)
  assert.doesNotMatch((await busy.get('/wallet')).html, /session2@example\.com/)

  const leaving = await signUp('session3@example.com', generateCpf())
  await leaving.get('/wallet')
  assert.equal((await leaving.post('/wallet/sign-out')).status, 303)
  assert.doesNotMatch((await leaving.get('/wallet')).html, /session3@example\.com/)
  assert.equal(await service.database.db.selectFrom('wallet_sessions').select('id_hash').where('account_id', '=', (await service.store.accounts.findByEmail('session3@example.com'))!.id).executeTakeFirst(), undefined)
})

test('moving the sandbox clock a day (past a destination\'s cool-down) keeps the Wallet signed in', async () => {
  const client = await signUp('clockmove@example.com', generateCpf())
  assert.match((await client.get('/wallet')).html, /clockmove@example\.com/)
  await service.advance(25 * 3600)
  assert.match((await client.get('/wallet')).html, /clockmove@example\.com/, 'the Wallet session survives /sandbox/clock')
  await service.advance(13 * 3600)
  assert.match((await client.get('/wallet')).html, /clockmove@example\.com/, 'beyond the 12-hour absolute limit of the service clock too')
})

test('a form without its CSRF token is refused with a clear page', async () => {
  const client = await signUp('csrf@example.com', generateCpf())
  await client.get('/wallet')
  for (const url of ['/wallet/token', '/wallet/purchases', '/wallet/sign-out']) {
    const refused = await client.postWithoutCsrf(url, { confirm: 'yes', value: '10.00' })
    assert.equal(refused.status, 403, url)
    assert.equal(refused.headers['x-error-code'], 'csrf_invalid')
    assert.match(refused.html, /Formulário expirado/)
  }
  const other = walletClient(service)
  await other.get('/wallet')
  const forged = await other.postWithoutCsrf('/wallet/sign-in', { email: 'csrf@example.com', _csrf: 'forged' })
  assert.equal(forged.status, 403)
})

test('an e-mail a merchant\'s charge created is claimed, not duplicated; an owner\'s tax number never changes', async () => {
  const merchant = await service.merchant('claims-shop@example.com', '52998224725')
  const payer = generateCpf()
  const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email: 'customer-claim@example.com', tax_number: payer }, { token: merchant.token }))
  await service.pay(created.id, payer)
  const before = (await service.store.accounts.findByEmail('customer-claim@example.com'))!
  assert.equal(before.owner_tax_number, null)

  const owner = generateCpf()
  const client = await signUp('customer-claim@example.com', owner)
  const after = (await service.store.accounts.findByEmail('customer-claim@example.com'))!
  assert.equal(after.id, before.id)
  assert.equal(after.owner_tax_number, owner)
  assert.match((await client.get('/wallet')).html, /R\$ 9,00/)

  const again = walletClient(service)
  await again.get('/wallet/sign-up')
  await again.post('/wallet/sign-up', { email: 'customer-claim@example.com', name: 'Other Person', tax_number: generateCpf() })
  await again.get('/wallet/code?email=customer-claim%40example.com')
  const refused = await again.post('/wallet/code', { email: 'customer-claim@example.com', code: (await outbox('customer-claim@example.com'))[0]!.code })
  assert.equal(refused.headers['x-error-code'], 'account_exists')
  assert.equal((await service.store.accounts.findByEmail('customer-claim@example.com'))!.owner_tax_number, owner)

  const bad = walletClient(service)
  await bad.get('/wallet/sign-up')
  const refusedPt = await bad.post('/wallet/sign-up', { email: 'x@example.com', name: 'Ana Maria', tax_number: '11111111111' })
  assert.equal(refusedPt.headers['x-error-code'], 'tax_number_invalid')
  // Issue 22 (point 2): the error reads in the page's language, from the catalogue.
  assert.match(refusedPt.html, /<h1>Algo não deu certo<\/h1>\s*<p class="error" data-code="tax_number_invalid">tax_number deve ser um CPF \(11 dígitos\) ou CNPJ \(14 caracteres\) válido\.<\/p>/)
  await bad.get('/wallet/lang/en')
  await bad.get('/wallet/sign-up')
  const refusedEn = await bad.post('/wallet/sign-up', { email: 'x@example.com', name: 'Ana Maria', tax_number: '11111111111' })
  assert.match(refusedEn.html, /<h1>Something went wrong<\/h1>\s*<p class="error" data-code="tax_number_invalid">tax_number must be a valid CPF/)
  await bad.get('/wallet/lang/pt-BR')
  await bad.get('/wallet/sign-up')
  assert.equal((await bad.post('/wallet/sign-up', { email: 'x@example.com', name: 'Ana', tax_number: generateCpf() })).headers['x-error-code'], 'name_invalid')
})

test('charges (received and as merchant) newest first, paginated and filtered; deliveries with "Reenviar"', async () => {
  const merchant = await service.merchant('views@example.com', '39053344705')
  for (let i = 0; i < 23; i++) {
    const payer = generateCpf()
    const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email: `views-c${i % 3}@example.com`, tax_number: payer, webhook_url: 'http://127.0.0.1:1/hook' }, { token: merchant.token }))
    if (i < 2) await service.pay(created.id, payer)
    service.sandbox!.clock.advance(1)
  }
  const client = await signedInClient(service, 'views@example.com')

  const first = await client.get('/wallet/charges')
  const rows = (html: string) => [...html.matchAll(/data-charge="([0-9a-f]{32})"/g)].map((match) => match[1])
  assert.equal(rows(first.html).length, 20)
  const next = /<a href="([^"]+)" rel="next">/.exec(first.html)![1]!.replaceAll('&#38;', '&')
  const second = await client.get(next)
  assert.equal(rows(second.html).length, 3)
  assert.equal(new Set([...rows(first.html), ...rows(second.html)]).size, 23)
  assert.doesNotMatch(second.html, /rel="next"/)
  const confirmed = await client.get('/wallet/charges?status=depix_sent')
  assert.equal(rows(confirmed.html).length, 2)
  assert.equal((await client.get('/wallet/charges?status=nonsense')).status, 400)

  const deliveries = await client.get('/wallet/deliveries')
  assert.equal([...deliveries.html.matchAll(/>Reenviar</g)].length, 2)
  // Issue 22 (point 2): states and attempt times read in the page's language and São Paulo time, not as codes and UTC.
  const attempt = /<li><time datetime="([^"]+)">([^<]+)<\/time>/.exec(deliveries.html)!
  const saoPaulo = new Date(new Date(attempt[1]!).getTime() - 3 * 3600_000).toISOString()
  assert.equal(attempt[2], `${saoPaulo.slice(8, 10)}/${saoPaulo.slice(5, 7)}/${saoPaulo.slice(0, 4)}, ${saoPaulo.slice(11, 19)}`)
  // Issue 52 (point 6): the label alone; the code stays in an attribute, not printed under it.
  assert.match(deliveries.html, /data-state="pending">[\s\S]*?<span class="state">Enviando<\/span>/)
  assert.doesNotMatch(deliveries.html, /<code>pending<\/code>/)
  assert.doesNotMatch(deliveries.html.replaceAll(/datetime="[^"]+"/g, ''), /\d{4}-\d\d-\d\dT/)
  const eventId = /action="\/wallet\/deliveries\/(msg_[0-9a-f]+)\/redeliver"/.exec(deliveries.html)![1]!
  const redelivered = await client.post(`/wallet/deliveries/${eventId}/redeliver`)
  assert.equal(redelivered.location, '/wallet/deliveries?queued=1')
  assert.match((await client.get('/wallet/deliveries?queued=1')).html, /Reenvio agendado/)
})

test('security headers: strict CSP without inline scripts, no framing, referrer policy, HttpOnly SameSite cookies; English on request', async () => {
  const client = walletClient(service)
  const page = await client.get('/wallet')
  const csp = String(page.headers['content-security-policy'])
  assert.match(csp, /default-src 'self'/)
  assert.match(csp, /script-src 'self'(;|$)/)
  assert.match(csp, /frame-ancestors 'none'/)
  assert.doesNotMatch(csp, /unsafe-inline/)
  assert.doesNotMatch(page.html, /<script>|<style>| style="| on[a-z]+="/)
  assert.equal(page.headers['x-frame-options'], 'DENY')
  assert.equal(page.headers['referrer-policy'], 'same-origin')
  const cookie = String(page.headers['set-cookie'])
  assert.match(cookie, /wallet_session=/)
  assert.match(cookie, /HttpOnly/)
  assert.match(cookie, /SameSite=Lax/)
  assert.doesNotMatch(cookie, /Secure/)
  assert.match(page.html, /<html lang="pt-BR">/)
  const english = await client.get('/wallet/lang/en')
  assert.equal(english.status, 303)
  assert.match((await client.get('/wallet')).html, /<html lang="en">[\s\S]*Sign in to the Wallet/)

  const https = await startTestService({ BASE_URL: 'https://pix.example.com', TRUST_PROXY_HOPS: '1' })
  try {
    const response = await https.app.inject({ method: 'GET', url: '/wallet', headers: { 'x-forwarded-proto': 'https' } })
    assert.match(String(response.headers['set-cookie']), /Secure/)
    assert.match(String(response.headers['strict-transport-security']), /max-age=/)
  } finally {
    await https.close()
  }
})
