// Integration runner: pglite only (every test here skips on PostgreSQL).
// A payment link bought end to end in a real browser (Debian's Chromium, driven by playwright-core):
// the link page says the limits, "Gerar Pix" opens the payment page, its script ticks the
// countdown and follows the status to the receipt once the sandbox payer pays; without
// JavaScript the page refreshes itself. Nothing breaks the CSP. Screenshots at 375 and 1280 px
// land in the temp folder (screenshots/payment-pages) for a person to look at.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import type { Browser, Page } from 'playwright-core'
import { launchChromium, skipWithoutChromium as skip } from '../support/browser.ts'
import { createAdjustableClock } from '../../src/clock.ts'
import { T0, startTestService, type TestService } from '../support/harness.ts'
import { seedOwner, startProductionRig } from '../support/production-rig.ts'
import { mailText } from '../support/smtp.ts'

let browser: Browser
let service: TestService
let base: string
const shots = join(tmpdir(), 'screenshots', 'payment-pages')
const PAID_WAITING = 'Pagamento recebido. Aguardando a confirmação do banco'
before(async () => {
  if (skip) return
  mkdirSync(shots, { recursive: true })
  browser = await launchChromium()
  service = await startTestService()
  base = `http://127.0.0.1:${(service.app.server.address() as import('node:net').AddressInfo).port}`
})
after(async () => {
  await browser?.close()
  await service?.close()
})

async function screenshot(page: Page, name: string): Promise<void> {
  for (const [device, width] of [['phone', 375], ['desktop', 1280]] as const) {
    await page.setViewportSize({ width, height: 800 })
    await page.screenshot({ path: join(shots, `${name}-${device}.png`), fullPage: true })
  }
  await page.setViewportSize({ width: 375, height: 800 })
}

test('a link bought end to end: limits first, "Gerar Pix", the payment page ticking and following itself to the receipt', { skip }, async () => {
  const seller = await service.merchant('browser-links@example.com', generateCpf())
  await service.store.accounts.setDisplayName((await service.store.accounts.findByEmail(seller.email))!.id, 'Doces da Ana')
  const link = (await service.request({ method: 'POST', url: '/api/payment-links', token: seller.token, body: { title: 'Caixa de brigadeiros', description: '12 unidades, sabores sortidos.\nRetirada no sábado.', min_amount: '10.00', max_amount: '50.00' } })).body
  const context = await browser.newContext({ viewport: { width: 375, height: 800 } })
  const page = await context.newPage()
  const violations: string[] = []
  page.on('console', (message) => { if (/Content[- ]Security[- ]Policy|Refused to/i.test(message.text())) violations.push(message.text()) })

  await page.goto(`${base}${new URL(link.url).pathname}`)
  await page.getByRole('heading', { name: 'Caixa de brigadeiros' }).waitFor()
  assert.match(await page.locator('.guidance').innerText(), /até R\$ 10,00 por Pix/)
  await screenshot(page, '1-link')
  const payer = generateCpf()
  await page.getByLabel('Valor a pagar (R$)').fill('10,00')
  await page.getByLabel('Nome completo de quem paga').fill('Maria Clara Souza')
  await page.getByLabel('CPF ou CNPJ de quem paga').fill(payer)
  await screenshot(page, '2-link-filled')
  await page.getByRole('button', { name: 'Gerar Pix' }).click()

  await page.waitForURL(/\/pay\/[0-9a-f]{32}$/)
  const chargeId = page.url().slice(-32)
  await page.getByRole('heading', { name: 'Pagamento para Doces da Ana' }).waitFor()
  assert.equal(await page.locator('img.qr').evaluate((image) => { const loaded = image as unknown as { complete: boolean; naturalWidth: number }; return loaded.complete && loaded.naturalWidth > 0 }), true, 'the QR image loads')
  assert.equal(await page.getByRole('button', { name: 'Copiar código' }).isVisible(), true, 'the script shows the copy button')
  const first = await page.locator('[data-countdown]').innerText()
  await page.locator('[data-countdown]').filter({ hasNotText: first }).waitFor()
  await screenshot(page, '3-pay-waiting')

  assert.equal((await service.pay(chargeId, payer)).body.status, 'depix_sent')
  // The script sees the new phase and reloads: the receipt appears without anyone touching the page.
  await page.getByRole('heading', { name: 'Comprovante' }).waitFor({ timeout: 10_000 })
  assert.match(await page.locator('.receipt').innerText(), /R\$ 10,00[\s\S]*Payer P\./)
  assert.equal(await page.locator('img.qr').count(), 0)
  await screenshot(page, '4-pay-receipt')
  await page.goto(`${base}/pay/${chargeId}?lang=en`)
  await page.getByRole('heading', { name: 'Receipt' }).waitFor()
  await screenshot(page, '5-pay-receipt-en')
  assert.deepEqual(violations, [])
  await context.close()
})

test('without JavaScript the payment page still shows everything and refreshes itself; an expired one says so', { skip }, async () => {
  const seller = await service.merchant('browser-nojs@example.com', generateCpf())
  const created = (await service.request({ method: 'POST', url: '/api/create-payment', token: seller.token, body: { value: '10.00', email: 'cliente@example.com', tax_number: generateCpf() } })).body
  const context = await browser.newContext({ viewport: { width: 375, height: 800 }, javaScriptEnabled: false })
  const page = await context.newPage()
  await page.goto(`${base}/pay/${created.id}`)
  assert.equal(await page.locator('img.qr').evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth > 0), true)
  assert.equal(await page.locator('#copy-paste').inputValue(), created.qrCopyPaste)
  assert.equal(await page.getByRole('button', { name: 'Copiar código' }).isVisible(), false, 'no copy button without a script')
  await screenshot(page, '6-pay-no-js')
  await service.advance(601)
  // The no-script refresh (every 5 s) brings the news.
  await page.getByText('Este Pix expirou sem pagamento').waitFor({ timeout: 10_000 })
  await screenshot(page, '7-pay-expired')
  await context.close()
})

test('production mode against the fakes: a link bought end to end, the provider\'s webhook brings the receipt, and the owner is mailed', { skip, timeout: 120_000 }, async () => {
  // One clock for the service and the provider, whose delivery delay the test moves past.
  const clock = createAdjustableClock(T0)
  const rig = await startProductionRig({ clock, smtp: true })
  const { service: live, base: liveBase } = await rig.serve({ clock, runJobs: true })
  const context = await browser.newContext({ viewport: { width: 375, height: 800 }, locale: 'pt-BR' })
  try {
    assert.equal((await fetch(`${liveBase}/sandbox/outbox?email=x`)).status, 404, 'no sandbox in production')
    const owner = await seedOwner(live.store, rig.provider, { email: 'loja-producao@example.com', taxNumber: generateCpf(), name: 'Loja Produção' })
    await live.store.accounts.setDisplayName(owner.account.id, 'Doces da Bia')
    const created = await fetch(`${liveBase}/api/payment-links`, {
      method: 'POST', headers: { 'x-api-token': owner.token, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Pão de mel', amount: '10.00' }),
    })
    assert.equal(created.status, 200, await created.clone().text())
    const link = (await created.json()) as { url: string }
    const page = await context.newPage()
    await page.goto(`${liveBase}${new URL(link.url).pathname}`)
    await page.getByRole('heading', { name: 'Pão de mel' }).waitFor()
    const payer = generateCpf()
    await page.getByLabel('Nome completo de quem paga').fill('Beatriz Lima')
    await page.getByLabel('CPF ou CNPJ de quem paga').fill(payer)
    await page.getByRole('button', { name: 'Gerar Pix' }).click()
    await page.waitForURL(/\/pay\/[0-9a-f]{32}$/)
    await page.getByRole('heading', { name: 'Pagamento para Doces da Bia' }).waitFor()
    const charge = (await live.store.charges.findById(page.url().slice(-32)))!
    assert.equal(charge.payment_link_id !== null, true)
    // The payer pays at their bank; the provider tells the service by its signed webhook.
    assert.equal(await rig.provider.settle(charge.provider_deposit_id, { payerName: 'Beatriz Lima', payerTaxNumber: payer, outcome: 'depix_sent' }), 200)
    // In production the provider holds a merchant's DePix for its delay (24 h): paid, not yet credited.
    await page.getByText(PAID_WAITING).waitFor({ timeout: 10_000 })
    await screenshot(page, '8-production-paid-waiting')
    clock.advance(24 * 3600)
    assert.equal(await rig.provider.deliverDelayed(), 1)
    await page.getByRole('heading', { name: 'Comprovante' }).waitFor({ timeout: 10_000 })
    assert.match(await page.locator('.receipt').innerText(), /R\$ 10,00[\s\S]*Beatriz L\./)
    await screenshot(page, '9-production-receipt')
    const mail = await rig.smtp.next(owner.account.email)
    const text = mailText(mail)
    assert.ok(text.includes(`Cobrança: ${charge.id}`) && text.includes('Valor: R$ 10,00') && text.includes('Link: Pão de mel'), text)
  } finally {
    await context.close()
    await rig.close()
  }
})
