// Integration runner: pglite only (every test here skips on PostgreSQL).
// The support console (docs/rules.md#console) in a real browser (Debian's Chromium, driven by
// playwright-core), by visible labels and roles, in production mode (SMTP server, fake provider
// and fake Elements treasury started here; no /sandbox route): an admin signs in with the code
// that arrives by e-mail, finds a held charge in its queue, opens it, releases it with a note,
// sees it leave the queue and the audit line with her e-mail; a forged POST without the CSRF token
// changes nothing; a support operator is refused the admin's quote override. Screenshots of every
// page, phone and desktop, land in test-output/screenshots/console/ for a person to look at.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import type { Browser, Page } from 'playwright-core'
import { issueToken } from '../../src/app/issue-token.ts'
import { openAccount } from '../../src/app/open-account.ts'
import { euidForTaxNumber } from '../../src/sandbox/fake-eulen.ts'
import { launchChromium, screenshotsIn, skipWithoutChromium as skip } from '../support/browser.ts'
import { startProductionRig } from '../support/production-rig.ts'
import { totpCode } from '../support/factors.ts'

let browser: Browser
let screenshot: (page: Page, name: string) => Promise<void>
before(async () => {
  if (skip) return
  screenshot = screenshotsIn('console')
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
})

test('production mode: an operator releases a held charge from the queue, audited with her e-mail; forged and out-of-role requests change nothing', { skip, timeout: 300_000 }, async () => {
  const rig = await startProductionRig({ smtp: true })
  const { provider, providerClock, smtp } = rig
  const { service, base } = await rig.serve({ env: { OPERATORS: 'ana@example.com:admin,joao@example.com:support' }, runJobs: true })
  const contexts: Array<{ close(): Promise<void> }> = []
  try {
    // A merchant with a token (the Wallet's way to one is tested in wallet-browser.test.ts).
    const merchantTax = generateCpf()
    const merchant = await openAccount(service, { email: 'loja@example.com', taxNumber: merchantTax, name: 'Loja da Ana', kyc: 'verified', euid: euidForTaxNumber(merchantTax) })
    const { token } = await issueToken(service, { accountId: merchant.id })
    /** A charge named for one payer and paid by another: held for support (payer_mismatch). */
    const heldCharge = async (value: string): Promise<string> => {
      const created = await fetch(`${base}/api/create-payment`, {
        method: 'POST', headers: { 'x-api-token': token, 'content-type': 'application/json' },
        body: JSON.stringify({ value, email: 'cliente@example.com', tax_number: generateCpf(), payer_name: 'Cliente Informado' }),
      })
      assert.equal(created.status, 200, await created.clone().text())
      const id = ((await created.json()) as { id: string }).id
      const charge = (await service.store.charges.findById(id))!
      assert.equal(await provider.settle(charge.provider_deposit_id, { payerName: 'Outra Pessoa', payerTaxNumber: generateCpf(), outcome: 'depix_sent' }), 200)
      // Merchant charges wait the provider's delay; then it delivers, and the webhook holds the charge.
      providerClock.advance(25 * 3600)
      await provider.deliverDelayed()
      for (let tries = 0; (await service.store.charges.findById(id))!.status !== 'security_hold'; tries++) {
        assert.ok(tries < 200, `not held: ${(await service.store.charges.findById(id))!.status}`)
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      return id
    }
    /** Enrols a TOTP app from the page: the key shown, the code computed from it on the service clock. */
    const enrolTotpInBrowser = async (on: Page) => {
      await on.getByRole('link', { name: 'Configurar um aplicativo autenticador' }).click()
      const secret = (await on.locator('#totp-secret').inputValue()).replace(/ /g, '')
      await on.getByRole('img', { name: 'QR Code para o aplicativo autenticador' }).waitFor()
      if (on === page) await screenshot(on, '2c-totp-enrol')
      await on.getByLabel('Código do aplicativo autenticador').fill(totpCode(service, secret))
      await on.getByRole('button', { name: 'Adicionar aplicativo autenticador' }).click()
      assert.equal(await on.locator('[data-recovery-codes] li').count(), 10)
      await on.getByRole('link', { name: 'Já guardei' }).click()
    }
    const released = await heldCharge('10.00')
    const forgedTarget = await heldCharge('10.00')

    const context = await browser.newContext({ locale: 'pt-BR' })
    contexts.push(context)
    context.setDefaultTimeout(10_000)
    const page = await context.newPage()
    assert.equal((await fetch(`${base}/sandbox/outbox?email=x`)).status, 404, 'no sandbox in production')

    // Sign in with the code that arrives by e-mail.
    await page.goto(`${base}/console`)
    await page.getByRole('heading', { name: 'Entrar no console de suporte' }).waitFor()
    await screenshot(page, '1-sign-in')
    await page.getByLabel('E-mail').fill('ana@example.com')
    await page.getByRole('button', { name: 'Enviar código' }).click()
    await page.getByLabel('Código de 6 dígitos').waitFor()
    await screenshot(page, '2-code')
    const mail = await smtp.next('ana@example.com')
    assert.match(mail, /Subject: =?.*|Código do console/)
    await page.getByLabel('Código de 6 dígitos').fill(/\b(\d{6})\b/.exec(mail)![1]!)
    await page.getByRole('button', { name: 'Confirmar' }).click()
    // An operator without a second factor can only enrol one.
    await page.getByRole('heading', { name: 'Segundo fator' }).waitFor()
    assert.match(await page.locator('[data-factors]').innerText(), /Operadores precisam de um segundo fator/)
    await screenshot(page, '2b-factor-required')
    await enrolTotpInBrowser(page)
    await page.goto(`${base}/console`)
    await page.getByRole('heading', { name: 'Filas' }).waitFor()
    assert.equal(await page.locator('[data-queue="holds"]').innerText(), '2')
    assert.match(await page.locator('.who').innerText(), /ana@example\.com \(admin\)/)
    await screenshot(page, '3-home')

    // The held charge in its queue: why, the payer, both amounts.
    await page.getByRole('link', { name: /Pagamentos retidos/ }).click()
    await page.getByRole('heading', { name: 'Pagamentos retidos' }).waitFor()
    const row = page.getByRole('row').filter({ hasText: released })
    assert.match(await row.innerText(), /Pagador diferente do informado/)
    assert.match(await row.innerText(), /Outra Pessoa/)
    assert.match(await row.innerText(), /\*\*\*\.\d{3}\.\d{3}-\*\*/)
    await screenshot(page, '4-holds-queue')
    await row.getByRole('link', { name: 'Abrir cobrança' }).click()
    await page.getByRole('heading', { name: /Cobrança/ }).waitFor()
    assert.ok(page.url().endsWith(`/console/charges/${released}`))
    assert.equal(await page.getByRole('button', { name: 'Encerrar como devolvido' }).count(), 0, 'close only after a claw-back')
    // The provider's report as it came, on the timeline.
    await page.locator('li[data-kind="report"] summary').last().click()
    assert.match(await page.locator('li[data-kind="report"] pre').last().innerText(), /"status": "depix_sent"/)
    await screenshot(page, '5-charge-held')

    // Release with a note.
    const release = page.getByRole('form', { name: 'Liberar para a conta' })
    await release.getByLabel('Nota (obrigatória)').fill('Pagador confirmado por telefone')
    await release.getByRole('button', { name: 'Liberar para a conta' }).click()
    await page.getByRole('status').filter({ hasText: 'Feito.' }).waitFor()
    assert.match(await page.locator('dl.facts').innerText(), /after7d/)
    const audit = page.locator('li[data-kind="operator"]').filter({ hasText: 'review.release' })
    assert.match(await audit.innerText(), /ana@example\.com/)
    assert.match(await audit.innerText(), /Pagador confirmado por telefone/)
    await screenshot(page, '6-charge-released')

    // It left the queue.
    await page.getByRole('link', { name: 'Filas', exact: true }).click()
    assert.equal(await page.locator('[data-queue="holds"]').innerText(), '1')
    await page.getByRole('link', { name: /Pagamentos retidos/ }).click()
    assert.equal(await page.getByRole('row').filter({ hasText: released }).count(), 0)

    // A queue longer than a page, its rows seen at one instant: "Próxima" carries the cursor, every row shows once, and "Primeira página" goes back.
    const seenAt = service.clock.now()
    const qrIds = Array.from({ length: 23 }, (_, i) => `browser${String((i * 7) % 23).padStart(2, '0')}`)
    await service.database.db.insertInto('unknown_deposits').values(qrIds.map((qr_id) => ({ qr_id, status: 'depix_sent', value_cents: 100, seen_by: 'sweep', first_seen_at: seenAt, last_seen_at: seenAt }))).execute()
    await page.goto(`${base}/console/queues/unknown_deposits`)
    const shown = async () => page.locator('code.id').filter({ hasText: /^browser\d+$/ }).allInnerTexts()
    const firstPage = await shown()
    assert.equal(firstPage.length, 20)
    assert.equal(await page.getByRole('link', { name: 'Primeira página' }).count(), 0)
    await page.getByRole('link', { name: 'Próxima' }).click()
    await page.getByRole('link', { name: 'Primeira página' }).waitFor()
    assert.match(page.url(), /\/console\/queues\/unknown_deposits\?cursor=[\w-]+$/)
    assert.deepEqual([...firstPage, ...(await shown())], [...qrIds].sort())
    assert.equal(await page.getByRole('link', { name: 'Próxima' }).count(), 0, 'the last page')
    await screenshot(page, '4b-queue-second-page')
    await page.getByRole('link', { name: 'Primeira página' }).click()
    assert.deepEqual(await shown(), firstPage)

    // The audit log, filtered by operator and action.
    await page.getByRole('link', { name: 'Auditoria' }).click()
    await page.getByLabel('Operador', { exact: true }).selectOption('ana@example.com')
    await page.getByLabel('Ação', { exact: true }).selectOption('review.release')
    await page.getByRole('button', { name: 'Filtrar' }).click()
    const line = page.getByRole('row').filter({ hasText: `payment:${released}` })
    assert.match(await line.innerText(), /ana@example\.com/)
    await screenshot(page, '7-audit')

    // A forged POST without the CSRF token changes nothing, signed in or not.
    const forged = await page.request.post(`${base}/console/charges/${forgedTarget}/review`, { form: { decision: 'refund', note: 'forged' }, maxRedirects: 0 })
    assert.equal(forged.status(), 403)
    assert.equal(forged.headers()['x-error-code'], 'csrf_invalid')
    const crossSite = await fetch(`${base}/console/charges/${forgedTarget}/review`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' }, body: 'decision=refund&note=forged', redirect: 'manual' })
    assert.equal(crossSite.status, 303, 'no session: sent to sign in')
    assert.equal((await service.store.charges.findById(forgedTarget))!.status, 'security_hold')

    // Money, look-up and an account, as an admin sees them.
    await page.getByRole('link', { name: 'Dinheiro' }).click()
    await page.getByRole('heading', { name: 'Conferência do livro-razão' }).waitFor()
    assert.equal(await page.locator('[data-ok]').getAttribute('data-ok'), 'true')
    assert.equal(await page.getByRole('form', { name: 'Substituir cotação' }).count(), 1)
    await screenshot(page, '8-money')
    await page.getByRole('link', { name: 'Buscar' }).click()
    await page.getByLabel('E-mail, CPF/CNPJ ou EUID').fill(merchantTax)
    await page.getByRole('button', { name: 'Buscar' }).click()
    await page.getByRole('link', { name: 'loja@example.com' }).click()
    await page.getByRole('heading', { name: 'loja@example.com' }).waitFor()
    assert.ok(!(await page.content()).includes(token), 'never the token itself')
    await screenshot(page, '9-account')
    await page.getByRole('link', { name: 'English' }).click()
    await page.getByRole('heading', { name: 'Queues' }).waitFor()
    await screenshot(page, '10-home-english')
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in to the support console' }).waitFor()

    // A support operator: works the queues, but the admin's quote override is refused.
    const supportContext = await browser.newContext({ locale: 'pt-BR' })
    contexts.push(supportContext)
    supportContext.setDefaultTimeout(10_000)
    const support = await supportContext.newPage()
    await support.goto(`${base}/console`)
    await support.getByLabel('E-mail').fill('joao@example.com')
    await support.getByRole('button', { name: 'Enviar código' }).click()
    await support.getByLabel('Código de 6 dígitos').fill(/\b(\d{6})\b/.exec(await smtp.next('joao@example.com'))![1]!)
    await support.getByRole('button', { name: 'Confirmar' }).click()
    await enrolTotpInBrowser(support)
    await support.getByRole('link', { name: 'Dinheiro' }).click()
    await support.getByText('Só um admin substitui cotações.').waitFor()
    assert.equal(await support.getByRole('form', { name: 'Substituir cotação' }).count(), 0)
    // Sent anyway, with a valid CSRF token of the session: refused by role.
    const csrf = await support.locator('input[name="_csrf"]').first().getAttribute('value')
    const refused = await support.request.post(`${base}/console/quotes`, { form: { _csrf: csrf!, BTC: '350000.00', expires_in_minutes: '60', note: 'tentando' }, maxRedirects: 0 })
    assert.equal(refused.status(), 403)
    assert.equal(refused.headers()['x-error-code'], 'operator_forbidden')
    assert.equal((await service.store.quotes.overrides(service.clock.now())).length, 0)
    // The same refusal as the browser shows it (a form submitted by hand).
    type Element = { method: string; action: string; type: string; name: string; value: string; append(child: Element): void; submit(): void }
    await support.evaluate(({ token: csrfToken }) => {
      // In the page, not in Node: the DOM is there.
      const document = (globalThis as unknown as { document: { createElement(tag: string): Element; body: Element } }).document
      const form = document.createElement('form')
      form.method = 'post'
      form.action = '/console/quotes'
      for (const [name, value] of Object.entries({ _csrf: csrfToken, BTC: '350000.00', expires_in_minutes: '60', note: 'tentando' })) {
        const input = document.createElement('input')
        input.type = 'hidden'
        input.name = name
        input.value = value
        form.append(input)
      }
      document.body.append(form)
      form.submit()
    }, { token: csrf! })
    await support.getByRole('alert').filter({ hasText: 'Seu papel de operador não permite esta ação.' }).waitFor()
    await screenshot(support, '11-support-refused')
  } finally {
    for (const context of contexts) await context.close()
    await rig.close()
  }
})
