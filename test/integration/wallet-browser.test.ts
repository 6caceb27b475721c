// Integration runner: pglite only (every test here skips on PostgreSQL).
// The Wallet in a real browser (Debian's Chromium, driven by playwright-core), by visible labels
// and roles: join with an e-mail and a CPF, sign in with the code that arrives by e-mail, buy the
// identity purchase, press "Novo Token", charge with the token, replace it, sign out. In production
// mode (SMTP server and provider fake started here; no /sandbox route) and in sandbox mode
// ("Simular pagamento" and the outbox). Screenshots of every page, phone and desktop, land in
// test-output/screenshots/ for a person to look at.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import type { Browser, Page } from 'playwright-core'
import { catalogues } from '../../src/i18n/catalogue.ts'
import { refused } from '../support/api.ts'
import { launchChromium, screenshotsIn, skipWithoutChromium as skip } from '../support/browser.ts'
import { freePort } from '../support/free-port.ts'
import { startTestService } from '../support/harness.ts'
import { startProductionRig } from '../support/production-rig.ts'

let browser: Browser
let screenshot: ReturnType<typeof screenshotsIn>
before(async () => {
  if (skip) return
  screenshot = screenshotsIn('wallet')
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
})

/** Sign-up through the pages, the code read by `codeFor`, the identity purchase paid by `pay`. */
async function walkTheJourney(page: Page, base: string, options: {
  email: string
  taxNumber: string
  name: string
  codeFor: (email: string) => Promise<string>
  pay: (chargeId: string) => Promise<void>
  prefix: string
}): Promise<{ token: string }> {
  await page.goto(`${base}/wallet`)
  await screenshot(page, `${options.prefix}-1-sign-in`)
  await page.getByRole('link', { name: 'Criar conta' }).click()
  await page.getByLabel('E-mail').fill(options.email)
  await page.getByLabel('Nome completo').fill(options.name)
  await page.getByLabel('CPF ou CNPJ').fill(options.taxNumber)
  await screenshot(page, `${options.prefix}-2-sign-up`)
  await page.getByRole('button', { name: 'Criar conta' }).click()
  await page.getByLabel('Código de 6 dígitos').waitFor()
  await screenshot(page, `${options.prefix}-3-code`)
  await page.getByLabel('Código de 6 dígitos').fill(await options.codeFor(options.email))
  await page.getByRole('button', { name: 'Confirmar' }).click()

  await page.getByRole('heading', { name: options.email }).waitFor()
  assert.equal(await page.getByRole('button', { name: 'Novo Token' }).isDisabled(), true, 'no token before the identity purchase')
  assert.match(await page.locator('[data-code]').innerText(), /compra de DePix paga com o seu próprio CPF/)
  await screenshot(page, `${options.prefix}-4-account-new`)

  await page.getByLabel('Valor (R$)').fill('10,00')
  await page.getByRole('button', { name: 'Comprar DePix' }).click()
  await page.getByRole('img', { name: 'QR Code do Pix' }).waitFor()
  // The element shows before its PNG has arrived: wait for the image's own load or error.
  const qrLoaded = await page.getByRole('img', { name: 'QR Code do Pix' }).evaluate((element) => {
    const image = element as unknown as { complete: boolean; naturalWidth: number; addEventListener: (type: string, listener: () => void) => void }
    if (image.complete) return image.naturalWidth > 0
    return new Promise<boolean>((resolve) => {
      image.addEventListener('load', () => resolve(image.naturalWidth > 0))
      image.addEventListener('error', () => resolve(false))
    })
  })
  assert.ok(qrLoaded, 'the QR image loads')
  assert.match(await page.getByLabel('Pix copia e cola').inputValue(), /^000201/)
  assert.equal(await page.locator('#status').getAttribute('data-status'), 'waiting_payment')
  assert.equal(await page.locator('#status').innerText(), 'Aguardando pagamento')
  assert.equal(await page.getByRole('button', { name: 'Copiar' }).isVisible(), true, 'the copy button appears with JavaScript')
  await screenshot(page, `${options.prefix}-5-purchase`)
  await options.pay(page.url().split('/').pop()!)
  // The page follows the status by itself.
  await page.locator('#status[data-status="depix_sent"]', { hasText: 'Pago e creditado' }).waitFor({ timeout: 15_000 })
  await screenshot(page, `${options.prefix}-6-purchase-paid`)

  await page.getByRole('link', { name: 'Voltar para a Carteira' }).click()
  assert.match(await page.locator('.ok').innerText(), /Identidade confirmada/)
  assert.match(await page.locator('table').innerText(), /R\$ 9,00/)
  await page.getByLabel('Entendo que o token atual deixa de funcionar imediatamente.').check()
  await page.getByRole('button', { name: 'Novo Token' }).click()
  const token = await page.getByLabel('Token da API').inputValue()
  assert.match(token, /^pxt_/)
  await screenshot(page, `${options.prefix}-7-token`)
  return { token }
}

async function replaceTokenAndSignOut(page: Page, base: string, prefix: string, token: string): Promise<void> {
  await page.goto(`${base}/wallet`)
  assert.ok(!(await page.content()).includes(token), 'the token is shown once')
  assert.match(await page.getByText(/Token ativo terminado em/).innerText(), new RegExp(token.slice(-4)))
  await page.getByRole('link', { name: 'Cobranças' }).click()
  await screenshot(page, `${prefix}-8-charges`)
  await page.getByRole('link', { name: 'Webhooks' }).click()
  await screenshot(page, `${prefix}-9-deliveries`)
  await page.goto(`${base}/wallet`)
  await page.getByLabel('Entendo que o token atual deixa de funcionar imediatamente.').check()
  const posted = page.waitForRequest((request) => request.method() === 'POST' && request.url().endsWith('/wallet/token'))
  await page.getByRole('button', { name: 'Novo Token' }).click()
  const form = (await posted).postData()!
  const fresh = await page.getByLabel('Token da API').inputValue()
  const replaced = await fetch(`${base}/api/get-balance`, { headers: { 'x-api-token': token } })
  assert.equal(replaced.status, 403)
  assert.equal(((await replaced.json()) as { code: string }).code, 'token_inactive')
  // Issue 21 (point 3): reloading the page that showed the new token issues no other...
  await page.reload()
  await page.getByRole('heading', { name: 'Token já mostrado' }).waitFor()
  assert.ok(!(await page.content()).includes(fresh), 'shown once')
  // ... nor does going back and forth, nor the very same form sent again (its nonce is spent).
  await page.goBack()
  await page.goForward()
  await page.getByRole('heading', { name: 'Token já mostrado' }).waitFor()
  const replayed = await page.request.post(`${base}/wallet/token`, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, data: form, maxRedirects: 0 })
  assert.equal(replayed.status(), 303)
  const works = await fetch(`${base}/api/get-balance`, { headers: { 'x-api-token': fresh } })
  assert.equal(works.status, 200, 'the integration using the token just shown keeps working')
  await screenshot(page, `${prefix}-9b-token-already-shown`)
  await page.goto(`${base}/wallet`)
  await page.getByRole('button', { name: 'Sair' }).click()
  await page.getByRole('heading', { name: 'Entrar na Carteira' }).waitFor()
  await page.getByRole('link', { name: 'English' }).click()
  await page.getByRole('heading', { name: 'Sign in to the Wallet' }).waitFor()
  await screenshot(page, `${prefix}-10-signed-out-english`)
}

test('production mode: join, prove the identity with a real Pix purchase, issue a token and charge with it', { skip, timeout: 300_000 }, async () => {
  const rig = await startProductionRig({ smtp: true })
  const { provider, smtp } = rig
  const { service, base } = await rig.serve({ runJobs: true })
  const context = await browser.newContext({ locale: 'pt-BR' })
  const page = await context.newPage()
  try {
    assert.equal((await fetch(`${base}/sandbox/outbox?email=x`)).status, 404, 'no sandbox in production')
    const taxNumber = generateCpf()
    const { token } = await walkTheJourney(page, base, {
      email: 'loja@example.com', taxNumber, name: 'Loja da Ana', prefix: 'production',
      codeFor: async (email) => {
        const mail = await smtp.next(email)
        assert.match(mail, /From: Pix <no-reply@example\.com>/)
        return /\b(\d{6})\b/.exec(mail)![1]!
      },
      // The owner pays the QR with the own CPF at the provider; the provider's webhook confirms it.
      pay: async (chargeId) => {
        const charge = (await service.store.charges.findById(chargeId))!
        assert.equal(await provider.settle(charge.provider_deposit_id, { payerName: 'Loja da Ana', payerTaxNumber: taxNumber, outcome: 'depix_sent' }), 200)
      },
    })
    const charge = await fetch(`${base}/api/create-payment`, {
      method: 'POST', headers: { 'x-api-token': token, 'content-type': 'application/json' },
      body: JSON.stringify({ value: '10.00', email: 'cliente@example.com', tax_number: generateCpf(), payer_name: 'Cliente Teste' }),
    })
    assert.equal(charge.status, 200, await charge.clone().text())
    assert.equal(((await charge.json()) as { status: string }).status, 'waiting_payment')
    await replaceTokenAndSignOut(page, base, 'production', token)
  } finally {
    await context.close()
    await rig.close()
  }
})

test('sandbox mode: the same journey with the outbox and "Simular pagamento"', { skip, timeout: 300_000 }, async () => {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const service = await startTestService({ BASE_URL: base, PORT: String(port) })
  const context = await browser.newContext({ locale: 'pt-BR' })
  const page = await context.newPage()
  try {
    const { token } = await walkTheJourney(page, base, {
      email: 'sandbox-shop@example.com', taxNumber: generateCpf(), name: 'Loja Sandbox', prefix: 'sandbox',
      codeFor: async (email) => ((await (await fetch(`${base}/sandbox/outbox?email=${encodeURIComponent(email)}`)).json()) as { mails: Array<{ code: string }> }).mails[0]!.code,
      pay: async () => {
        await page.getByRole('button', { name: 'Simular pagamento' }).click()
      },
    })
    await replaceTokenAndSignOut(page, base, 'sandbox', token)
  } finally {
    await context.close()
    await service.close()
  }
})

test('/docs in Chromium: the browser\'s language picks the page, the link switches it, and an error\'s docs_url lands on its code', { skip, timeout: 60_000 }, async () => {
  const service = await startTestService({ SANDBOX_PROVIDER_REQUIRE_NAME: 'on' })
  const context = await browser.newContext({ locale: 'en-US' })
  try {
    const base = `http://127.0.0.1:${(service.app.server.address() as import('node:net').AddressInfo).port}`
    const page = await context.newPage()
    await page.goto(`${base}/docs`)
    assert.equal(await page.locator('html').getAttribute('lang'), 'en')
    assert.equal(await page.locator('h1').textContent(), 'Pix charge service API')
    await page.getByRole('link', { name: 'Português' }).click()
    await page.waitForURL(/lang=pt-BR/)
    assert.equal(await page.locator('html').getAttribute('lang'), 'pt-BR')
    assert.equal(await page.locator('h1').textContent(), 'API do serviço de cobranças Pix')

    const error = refused(await service.api.get('/api/get-balance'))
    await page.goto(`${base}${new URL(error.docs_url).pathname}?lang=en${new URL(error.docs_url).hash}`)
    const row = page.locator('tr:target')
    assert.equal(await row.getAttribute('id'), 'token_missing')
    assert.ok(await row.isVisible())
    assert.match((await row.textContent()) ?? '', /X-API-Token header is missing/)
    await screenshot(page, 'docs-error-anchor', { fullPage: false })
  } finally {
    await context.close()
    await service.close()
  }
})

test('/docs at a phone\'s width, in both languages: nothing scrolls sideways, every code block has a copy button that puts its text on the clipboard, and the CSP lets the page\'s own script and style run', { skip, timeout: 60_000 }, async () => {
  const service = await startTestService()
  const context = await browser.newContext({ viewport: { width: 375, height: 800 }, permissions: ['clipboard-read', 'clipboard-write'] })
  try {
    const base = `http://127.0.0.1:${(service.app.server.address() as import('node:net').AddressInfo).port}`
    const page = await context.newPage()
    // A script or stylesheet the CSP refused is reported as an error here.
    const errors: string[] = []
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()))
    page.on('pageerror', (error) => errors.push(error.message))
    for (const [lang, block] of [['pt-BR', '#quick-start-script'], ['en', '#python-webhook']] as const) {
      const { copy, copied } = catalogues[lang].docs
      await page.goto(`${base}/docs?lang=${lang}`)
      const width = await page.locator('html').evaluate((root) => (root as unknown as { scrollWidth: number }).scrollWidth)
      assert.ok(width <= 375, `${lang}: the page is ${width} px wide`)
      // Hidden until the script finds a clipboard: one visible button a block.
      assert.equal(await page.getByRole('button', { name: copy, exact: true }).count(), await page.locator('pre').count(), lang)
      const code = page.locator('.code', { has: page.locator(block) })
      await code.getByRole('button').click()
      await code.getByRole('button', { name: copied, exact: true }).waitFor()
      const clipboard = await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText())
      assert.equal(clipboard, await page.locator(block).textContent(), `${lang}: ${block}`)
    }
    assert.deepEqual(errors, [])
    assert.match(String((await service.request({ method: 'GET', url: '/docs' })).headers['content-security-policy']), /default-src 'none';script-src 'self';style-src 'self'/)
    await screenshot(page, 'docs-en', { fullPage: false })
  } finally {
    await context.close()
    await service.close()
  }
})
