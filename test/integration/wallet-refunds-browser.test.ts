// "Devolver" in the Wallet (docs/rules.md#merchant-refunds) in a real browser (Debian's Chromium,
// driven by playwright-core), by visible labels and roles, on both databases: an owner without a
// second factor opens a charge it received, asks to give part of it back, sees what the payer
// receives, the provider's fee and what the account pays before confirming, confirms with the
// code mailed for this refund and amount, and follows the refund on the charge's page until the
// provider pays it. An owner with a factor confirms with it instead (HTTP, below). Screenshots land
// in test-output/screenshots/wallet-refunds/.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import type { Browser, Page } from 'playwright-core'
import { CHROMIUM, launchChromium, screenshotsIn } from '../support/browser.ts'
import { enrolTotp, checkFactor } from '../support/factors.ts'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { signedInClient } from '../support/wallet-client.ts'

// Both databases: the refund's transaction (the code, the charge's lock, the payout) is what is tried.
const skip = !existsSync(CHROMIUM) && process.env.CI !== 'true' ? "Debian's Chromium is not installed (apt-get install chromium-headless-shell)" : false

let service: TestService
let browser: Browser
let screenshot: (page: Page, name: string) => Promise<void>
before(async () => {
  service = await startTestService()
  if (skip) return
  screenshot = screenshotsIn('wallet-refunds')
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
  await service.close()
})

/** An owner with an identity and `count` charges of R$ 10,00 it received, each paid by a payer of its own (R$ 9,00 credited each). */
async function owner(email: string, count: number) {
  const taxNumber = generateCpf()
  const merchant = await service.merchant(email, taxNumber)
  const charges: string[] = []
  for (let i = 0; i < count; i++) {
    const payer = generateCpf()
    const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email, tax_number: payer }, { token: merchant.token }))
    assert.equal((await service.pay(created.id, payer)).body.status, 'depix_sent')
    charges.push(created.id)
  }
  return { ...merchant, charges }
}
/** What the owner's API says was refunded of a charge. */
const refundedOf = async (token: string, chargeId: string) => ok(await service.api.get(`/api/get-payment/${chargeId}`, { token })).refundedAmount

async function mailed(email: string, pattern: RegExp): Promise<string> {
  const mails = (await service.request({ method: 'GET', url: `/sandbox/outbox?email=${encodeURIComponent(email)}` })).body.mails as Array<{ text: string }>
  for (const mail of mails) {
    const found = pattern.exec(mail.text)
    if (found) return found[1]!
  }
  assert.fail(`no mail to ${email} matches ${pattern}`)
}

async function breakdown(page: Page): Promise<Record<string, string>> {
  const terms = await page.locator('[data-refund-preview] dt').allInnerTexts()
  const values = await page.locator('[data-refund-preview] dd').allInnerTexts()
  return Object.fromEntries(terms.map((term, index) => [term.trim(), values[index]!.trim()]))
}

test('Devolver: the price shown before confirming, an e-mail code for an owner without a factor, the refund followed on the charge to paid', { skip }, async () => {
  const shop = await owner('wallet-refund@example.com', 2)
  const chargeId = shop.charges[0]!
  const context = await browser.newContext({ locale: 'pt-BR' })
  const page = await context.newPage()
  try {
    const base = `http://127.0.0.1:${(service.app.server.address() as { port: number }).port}`
    await page.goto(`${base}/wallet`)
    await page.getByLabel('E-mail').fill(shop.email)
    await page.getByRole('button', { name: 'Enviar código' }).click()
    await page.getByLabel('Código de 6 dígitos').fill(await mailed(shop.email, /Seu código para entrar na Carteira é (\d{6})/))
    await page.getByRole('button', { name: 'Confirmar' }).click()
    await page.getByRole('heading', { name: shop.email }).waitFor()

    await page.goto(`${base}/wallet/charges/${chargeId}`)
    await page.getByRole('heading', { name: 'Devoluções' }).waitFor()
    assert.equal(await page.getByLabel('Valor a devolver (R$)').inputValue(), '10,00', 'all that is left, by default')
    await screenshot(page, 'charge')
    await page.getByLabel('Valor a devolver (R$)').fill('4,00')
    await page.getByRole('button', { name: 'Devolver' }).click()
    await page.getByRole('heading', { name: 'Devolver · R$ 4,00' }).waitFor()
    // What the payer receives, the provider's fee and what the account pays, before anything is confirmed.
    assert.deepEqual(await breakdown(page), { 'O pagador recebe': 'R$ 4,00', 'Taxa do provedor do Pix': 'R$ 1,00', 'Sua conta paga': 'R$ 5,00' })
    assert.equal(await refundedOf(shop.token, chargeId), 0, 'nothing made before confirming')
    await screenshot(page, 'preview')
    await page.getByRole('button', { name: 'Enviar código' }).click()
    await page.getByLabel('Código de 6 dígitos').waitFor()
    // A wrong code makes nothing.
    await page.getByLabel('Código de 6 dígitos').fill('000000')
    await page.getByRole('button', { name: 'Confirmar devolução' }).click()
    await page.locator('[data-code="action_code_invalid"]').waitFor()
    assert.equal(await refundedOf(shop.token, chargeId), 0)
    await page.goBack()
    await page.getByLabel('Código de 6 dígitos').fill(await mailed(shop.email, /Código para confirmar a devolução de R\$ 4,00 ao pagador da cobrança \w+: (\d{6})/))
    await page.getByRole('button', { name: 'Confirmar devolução' }).click()
    await page.getByText('Devolução feita').waitFor()
    assert.equal(await page.locator('[data-refund]').getAttribute('data-status'), 'pending')
    assert.equal(await refundedOf(shop.token, chargeId), 400)
    await screenshot(page, 'made')

    // The worker sends it; the provider pays it; the charge's page says so.
    await service.advance(1)
    const refundId = await page.locator('[data-refund]').getAttribute('data-refund')
    assert.equal((await service.request({ method: 'POST', url: `/sandbox/refunds/${refundId}/payout`, body: {} })).body.status, 'completed')
    await page.reload()
    assert.equal(await page.locator('[data-refund]').getAttribute('data-status'), 'completed')
    await page.getByText('Paga ao pagador').waitFor()
    await screenshot(page, 'completed')
  } finally {
    await context.close()
  }
})

test('an owner with a second factor confirms a refund with it (checked within 5 minutes), without an e-mail code', async () => {
  const shop = await owner('wallet-refund-factor@example.com', 2)
  const wallet = await signedInClient(service, shop.email)
  const factor = await enrolTotp(service, wallet, '/wallet')
  // Past the 5 minutes of the enrolment's check: the preview asks for the factor first.
  await service.advance(301)
  const asked = await wallet.get(`/wallet/charges/${shop.charges[0]}/refund?amount=3.00`)
  assert.equal(asked.status, 303)
  assert.match(asked.location!, /^\/wallet\/check\?next=/)
  await checkFactor(service, wallet, '/wallet', factor, decodeURIComponent(asked.location!.split('next=')[1]!))
  const preview = await wallet.get(`/wallet/charges/${shop.charges[0]}/refund?amount=3.00`)
  assert.equal(preview.status, 200)
  assert.doesNotMatch(preview.html, /name="code"/, 'no e-mail code for an owner with a factor')
  const codesBefore = (await service.request({ method: 'GET', url: `/sandbox/outbox?email=${encodeURIComponent(shop.email)}` })).body.mails.length
  const confirmed = await wallet.post(`/wallet/charges/${shop.charges[0]}/refunds`, { amount: '3.00', code: '' })
  assert.equal(confirmed.status, 303, confirmed.html.slice(0, 400))
  assert.equal(await refundedOf(shop.token, shop.charges[0]!), 300)
  const mails = (await service.request({ method: 'GET', url: `/sandbox/outbox?email=${encodeURIComponent(shop.email)}` })).body.mails as Array<{ subject: string }>
  assert.ok(!mails.slice(0, mails.length - codesBefore).some((mail) => mail.subject.startsWith('Confirme a devolução')))
  // Once the check is older than 5 minutes, a confirmation is refused and makes nothing.
  await service.advance(301)
  const late = await wallet.post(`/wallet/charges/${shop.charges[0]}/refunds`, { amount: '2.00', code: '' })
  assert.equal(late.status, 403)
  assert.equal(await refundedOf(shop.token, shop.charges[0]!), 300)
})
