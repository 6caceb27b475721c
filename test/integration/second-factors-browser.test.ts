// Integration runner: pglite only (every test here skips on PostgreSQL).
// Passkeys in a real browser (Debian's Chromium, driven by playwright-core) with the DevTools
// protocol's virtual authenticator: an owner enrols a passkey from the Wallet, keeps the recovery
// codes, signs in with the e-mail code and the passkey, passes a step-up before adding a
// destination, and a signed answer sent again (same challenge, or against a new one) is refused.
// In Portuguese and in English; screenshots at 375 and 1280 px land in test-output/screenshots/.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { createAdjustableClock } from '../../src/clock.ts'
import { launchChromium, screenshotsIn, skipWithoutChromium as skip } from '../support/browser.ts'
import { freePort } from '../support/free-port.ts'
import { startTestService, T0, type TestService } from '../support/harness.ts'

let browser: Browser
let screenshot: ReturnType<typeof screenshotsIn>
before(async () => {
  if (skip) return
  screenshot = screenshotsIn('second-factors')
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
})

/** A page whose browser has a platform passkey authenticator (user verified, resident keys). */
async function pageWithAuthenticator(context: BrowserContext): Promise<Page> {
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  })
  return page
}

const texts = {
  'pt-BR': { email: 'E-mail', send: 'Enviar código', code: 'Código de 6 dígitos', confirm: 'Confirmar', addPasskey: 'Adicionar chave de acesso', kept: 'Já guardei', usePasskey: 'Usar minha chave de acesso', signOut: 'Sair', stepUp: 'Confirmar com meu segundo fator', checkTitle: 'Confirme que é você' },
  en: { email: 'E-mail', send: 'Send code', code: '6-digit code', confirm: 'Confirm', addPasskey: 'Add a passkey', kept: 'I have kept them', usePasskey: 'Use my passkey', signOut: 'Sign out', stepUp: 'Confirm with my second factor', checkTitle: 'Confirm it is you' },
} as const

async function journey(service: TestService, clock: ReturnType<typeof createAdjustableClock>, base: string, lang: 'pt-BR' | 'en') {
  const t = texts[lang]
  const email = `passkey-${lang.toLowerCase()}@example.com`
  const taxNumber = generateCpf()
  const opened = await service.request({ method: 'POST', url: '/sandbox/accounts', body: { email, tax_number: taxNumber, name: 'Dona Chave' } })
  assert.equal(opened.status, 200, JSON.stringify(opened.body))
  const codeFor = async () => ((await (await fetch(`${base}/sandbox/outbox?email=${encodeURIComponent(email)}`)).json()) as { mails: Array<{ code: string | null }> }).mails.find((mail) => mail.code)!.code!
  const context = await browser.newContext({ locale: lang })
  const page = await pageWithAuthenticator(context)
  const prefix = lang === 'en' ? 'en' : 'pt'
  try {
    if (lang === 'en') await page.goto(`${base}/wallet/lang/en`)
    const signIn = async () => {
      await page.goto(`${base}/wallet`)
      await page.getByLabel(t.email).fill(email)
      await page.getByRole('button', { name: t.send }).click()
      await page.getByLabel(t.code).fill(await codeFor())
      await page.getByRole('button', { name: t.confirm }).click()
    }
    await signIn()
    await page.getByRole('heading', { name: email }).waitFor()
    assert.equal(await page.locator('[data-factors]').first().getAttribute('data-factors'), 'off', 'the invitation to add a passkey')
    await screenshot(page, `${prefix}-1-invitation`)

    // Enrol: the service's own script asks for options, the authenticator makes the passkey.
    await page.goto(`${base}/wallet/factors`)
    await page.getByRole('button', { name: t.addPasskey }).waitFor()
    await page.waitForSelector('[data-passkey-button]:not([disabled])')
    await screenshot(page, `${prefix}-2-factors`)
    await page.getByRole('button', { name: t.addPasskey }).click()
    await page.waitForURL(`${base}/wallet/recovery-codes`, { timeout: 5000 }).catch(async (error: unknown) => {
      throw new Error(`${String(error)}\n${await page.locator('main').innerText()}`)
    })
    assert.equal(await page.locator('[data-recovery-codes] li').count(), 10)
    await screenshot(page, `${prefix}-3-recovery-codes`)
    await page.getByRole('link', { name: t.kept }).click()
    assert.equal(await page.locator('p[data-factors]').getAttribute('data-factors'), 'on')
    assert.match(await page.locator('tbody').innerText(), lang === 'en' ? /Passkey/ : /Chave de acesso/)

    // Sign in again: the e-mail code, then the passkey.
    await page.getByRole('button', { name: t.signOut }).click()
    await signIn()
    await page.getByRole('heading', { name: t.checkTitle }).waitFor()
    await screenshot(page, `${prefix}-4-check`)
    let answered: string | null = null
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url() === `${base}/wallet/check/passkey`) answered = request.postData()
    })
    await page.getByRole('button', { name: t.usePasskey }).click()
    await page.getByRole('heading', { name: email }).waitFor()
    assert.ok(answered, 'the passkey answer went out as a form')

    // The same signed answer again: its challenge was taken by the first.
    const replay = await page.request.post(`${base}/wallet/check/passkey`, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, data: answered!, maxRedirects: 0 })
    assert.equal(replay.status(), 400)
    assert.equal(replay.headers()['x-error-code'], 'second_factor_invalid')
    // Against a new challenge too: it signed another one.
    const csrf = new URLSearchParams(answered!).get('_csrf')!
    const options = await page.request.post(`${base}/wallet/check/passkey/options`, { data: { _csrf: csrf } })
    assert.equal(options.status(), 200)
    const again = await page.request.post(`${base}/wallet/check/passkey`, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, data: answered!, maxRedirects: 0 })
    assert.equal(again.headers()['x-error-code'], 'second_factor_invalid')

    // A step-up: six minutes on, adding a destination asks for the passkey first.
    clock.advance(6 * 60)
    await page.goto(`${base}/wallet/destinations`)
    await page.locator('input[name=value]').first().fill(taxNumber)
    await page.locator('form[action="/wallet/destinations"] button[type=submit]').first().click()
    assert.equal(await page.locator('[data-code]').getAttribute('data-code'), 'step_up_required')
    await screenshot(page, `${prefix}-5-step-up-refused`)
    await page.getByRole('link', { name: t.stepUp }).click()
    await page.getByRole('button', { name: t.usePasskey }).click()
    await page.waitForURL(`${base}/wallet/destinations`)
    await page.locator('input[name=value]').first().fill(taxNumber)
    await page.locator('form[action="/wallet/destinations"] button[type=submit]').first().click()
    await page.waitForURL(/\/wallet\/destinations\/dst_/)
    await screenshot(page, `${prefix}-6-step-up-passed`)
    const counters = await service.database.db.selectFrom('second_factors').select(['counter', 'last_used_at']).where('kind', '=', 'passkey').execute()
    assert.ok(counters.every((row) => row.last_used_at !== null))
  } finally {
    await context.close()
  }
}

test('passkeys in Chromium: enrol, sign in with it, a step-up passed, a replayed answer refused; pt-BR and English', { skip, timeout: 300_000 }, async () => {
  const port = await freePort()
  // WebAuthn needs a host name (not an IP) and a secure context: localhost is both.
  const base = `http://localhost:${port}`
  const clock = createAdjustableClock(T0)
  const service = await startTestService({ BASE_URL: base, PORT: String(port) }, { clock })
  try {
    await journey(service, clock, base, 'pt-BR')
    await journey(service, clock, base, 'en')
  } finally {
    await service.close()
  }
})

test('an operator in Chromium: can only enrol at first, enrols a passkey under the console\'s CSP, signs in with it', { skip, timeout: 120_000 }, async () => {
  const port = await freePort()
  const base = `http://localhost:${port}`
  const service = await startTestService({ BASE_URL: base, PORT: String(port), OPERATORS: 'ana@example.com:admin' })
  const context = await browser.newContext({ locale: 'pt-BR' })
  try {
    const page = await pageWithAuthenticator(context)
    const codeFor = async () => ((await (await fetch(`${base}/sandbox/outbox?email=ana%40example.com`)).json()) as { mails: Array<{ code: string | null }> }).mails.find((mail) => mail.code)!.code!
    const signIn = async () => {
      await page.goto(`${base}/console`)
      await page.getByLabel('E-mail').fill('ana@example.com')
      await page.getByRole('button', { name: 'Enviar código' }).click()
      await page.getByLabel('Código de 6 dígitos').fill(await codeFor())
      await page.getByRole('button', { name: 'Confirmar' }).click()
    }
    await signIn()
    await page.waitForURL(`${base}/console/factors`)
    await page.waitForSelector('[data-passkey-button]:not([disabled])')
    await screenshot(page, 'console-1-factor-required')
    await page.getByRole('button', { name: 'Adicionar chave de acesso' }).click()
    await page.waitForURL(`${base}/console/recovery-codes`)
    assert.equal(await page.locator('[data-recovery-codes] li').count(), 10)
    await page.getByRole('link', { name: 'Já guardei' }).click()
    await page.getByRole('button', { name: 'Sair' }).click()
    await signIn()
    await page.waitForURL(`${base}/console/check`)
    await screenshot(page, 'console-2-check')
    await page.getByRole('button', { name: 'Usar minha chave de acesso' }).click()
    await page.getByRole('heading', { name: 'Filas' }).waitFor()
    await screenshot(page, 'console-3-home')
  } finally {
    await context.close()
    await service.close()
  }
})
