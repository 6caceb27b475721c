// Integration runner: pglite only (every test here skips on PostgreSQL).
// Withdrawals ("Sacar", docs/rules.md#withdrawal-requests) in a real browser (Debian's Chromium, driven by
// playwright-core), by visible labels and roles: an owner with a credited balance opens
// "Destinos", adds a Liquid address and a Pix key of the own CPF, confirms each with the e-mail
// code and sees them cooling down; once the cool-down has passed (the clock is moved, never waited
// for) withdraws by Pix and on Liquid, sees our fee, the provider's and what arrives, confirms
// each with the code mailed for that withdrawal and follows its page to "Concluído". In
// production mode (SMTP server, fake provider and fake Elements treasury started here; no
// /sandbox route), where a third destination is canceled by its e-mail's link; and in sandbox
// mode (outbox, sandbox clock, mine and payout controls), where forged cross-site POSTs then
// change nothing. Screenshots of every withdrawal page, phone and desktop, land in
// test-output/screenshots/wallet-withdrawals/ for a person to look at.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { createAdjustableClock } from '../../src/clock.ts'
import type { FakeElements } from '../../src/sandbox/fake-elements.ts'
import { newLiquidAddress, parseLiquidAddress } from '../../src/treasury/liquid-address.ts'
import { ok } from '../support/api.ts'
import { launchChromium, screenshotsIn, skipWithoutChromium as skip } from '../support/browser.ts'
import { freePort } from '../support/free-port.ts'
import { startTestService, T0, type TestService } from '../support/harness.ts'
import { startProductionRig } from '../support/production-rig.ts'
import { mailText } from '../support/smtp.ts'
import { ownerWithBalance } from '../support/withdrawals.ts'

const BLINDING_KEY = Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')
const confidentialAddress = () => newLiquidAddress('elementsregtest', randomBytes(20), BLINDING_KEY)
const plainAddress = () => newLiquidAddress('elementsregtest', randomBytes(20))
const COOLDOWN_SECONDS = 24 * 3600

let browser: Browser
let screenshot: (page: Page, name: string) => Promise<void>
before(async () => {
  if (skip) return
  screenshot = screenshotsIn('wallet-withdrawals')
  browser = await launchChromium()
})
after(async () => {
  await browser?.close()
})


/** The newest mail in the sandbox outbox to `email` whose text matches `pattern`. */
async function fromOutbox(service: TestService, email: string, pattern: RegExp): Promise<RegExpExecArray> {
  const mails = (await service.request({ method: 'GET', url: `/sandbox/outbox?email=${encodeURIComponent(email)}` })).body.mails as Array<{ text: string }>
  for (const mail of mails) {
    const found = pattern.exec(mail.text)
    if (found) return found
  }
  assert.fail(`no mail to ${email} matches ${pattern}`)
}

/** On a failure, what each open page showed. */
async function explainFailure(context: BrowserContext): Promise<void> {
  for (const open of context.pages()) console.log(`${open.url()}:\n${await open.locator('body').innerText().catch(() => '(unreadable)')}\n`)
}

/** A page's <dl> read by role: each term (dt) with its definition (dd). */
async function breakdown(page: Page): Promise<Record<string, string>> {
  const terms = await page.getByRole('term').allInnerTexts()
  const values = await page.getByRole('definition').allInnerTexts()
  return Object.fromEntries(terms.map((term, index) => [term.trim(), values[index]!.trim()]))
}

/** Picks the option of the select labelled `label` whose text matches `option`. */
async function choose(page: Page, label: string, option: RegExp): Promise<string> {
  // A select's accessible name is its label's text followed by the chosen option's.
  const select = page.getByRole('combobox', { name: new RegExp(`^${label}\\b`) })
  // A closed <select>'s options are hidden to getByRole: their texts are read from the element.
  const texts = await select.evaluate((element) => Array.from((element as unknown as { options: ArrayLike<{ text: string }> }).options, (item) => item.text))
  const text = texts.find((candidate) => option.test(candidate))
  assert.ok(text, `no option of ${label} matches ${option}: ${JSON.stringify(texts)}`)
  await select.selectOption({ label: text })
  return text
}

/** What differs between the modes: where mail is read, how the clock moves, what makes a payout go on. */
type Mode = {
  name: 'production' | 'sandbox'
  base: string
  /** A mail to `email` whose text matches `pattern`: the next such from the SMTP server, the newest in the outbox. */
  mail: (email: string, pattern: RegExp) => Promise<RegExpExecArray>
  advance: (seconds: number) => Promise<void>
  /** Called while the page waits for a Liquid withdrawal that was sent: the chain confirms it. */
  confirmOnChain: (withdrawalId: string) => Promise<void>
  /** Called while the page waits for a Pix withdrawal that was sent: the provider pays the Pix. */
  payPix: (withdrawalId: string) => Promise<void>
  shoot: (page: Page, name: string) => Promise<void>
}

const SIGN_IN_CODE = /Seu código para entrar na Carteira é (\d{6})/
const DESTINATION_CODE = /Código para confirmá-lo: (\d{6})[\s\S]*?(https?:\/\/\S+\/wallet\/destinations\/cancel\/[\w-]+)/

async function signIn(page: Page, mail: Mode['mail'], email: string): Promise<void> {
  await page.getByLabel('E-mail').fill(email)
  await page.getByRole('button', { name: 'Enviar código' }).click()
  await page.getByLabel('Código de 6 dígitos').fill((await mail(email, SIGN_IN_CODE))[1]!)
  await page.getByRole('button', { name: 'Confirmar' }).click()
  await page.getByRole('heading', { name: email }).waitFor()
}

/** Adds a destination on the "Destinos" page and confirms it with the mailed code; answers its e-mail's cancel link. */
async function addDestination(page: Page, mode: Mode, email: string, kind: 'Chave Pix (seu CPF/CNPJ)' | 'Endereço Liquid', value: string, label: string, screenshots = false): Promise<string> {
  await page.getByLabel(kind).check()
  await page.getByLabel('Chave ou endereço').fill(value)
  await page.getByLabel('Apelido (opcional)').fill(label)
  if (screenshots) await mode.shoot(page, `${mode.name}-01-add-destination`)
  await page.getByRole('button', { name: 'Adicionar destino' }).click()
  await page.getByRole('heading', { name: 'Confirmar destino' }).waitFor()
  assert.match(await page.getByText(/Enviamos um código para/).innerText(), new RegExp(`${email}. Digite-o para confirmar ${label} · `))
  if (screenshots) await mode.shoot(page, `${mode.name}-02-confirm-destination`)
  const [, code, cancelLink] = await mode.mail(email, DESTINATION_CODE)
  await page.getByLabel('Código de 6 dígitos').fill(code!)
  await page.getByRole('button', { name: 'Confirmar' }).click()
  await page.getByRole('status').filter({ hasText: 'Destino confirmado.' }).waitFor()
  assert.match(await page.getByRole('listitem').filter({ hasText: label }).innerText(), /Confirmado; recebe a partir de \d{2}\/\d{2}\/\d{4}/)
  return cancelLink!
}

/** Clicks "Atualizar" until the status reads `status`, calling `nudge` once the withdrawal is `sent`. */
async function follow(page: Page, status: string, nudge?: () => Promise<void>): Promise<Record<string, string>> {
  let nudged = false
  for (let attempt = 0; attempt < 200; attempt++) {
    const shown = await breakdown(page)
    if (shown['Situação'] === status) return shown
    assert.ok(!/Falhou|Cancelado|Em revisão/.test(shown['Situação']!), `the withdrawal ended ${shown['Situação']}: ${JSON.stringify(shown)}`)
    if (nudge && !nudged && shown['Situação'] === 'Enviado') {
      nudged = true
      await nudge()
    } else {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await page.getByRole('link', { name: 'Atualizar' }).click()
    await page.waitForLoadState()
  }
  assert.fail(`the withdrawal never showed ${status}: ${JSON.stringify(await breakdown(page))}`)
}

/** On "Saques": asks for a withdrawal, checks the fees and what arrives, confirms it with its code, follows it to "Concluído". */
async function withdraw(page: Page, mode: Mode, email: string, options: {
  destination: RegExp
  amount: string
  expect: Record<string, string>
  nudge: (id: string) => Promise<void>
  screenshots?: boolean
}): Promise<void> {
  await page.getByRole('navigation').getByRole('link', { name: 'Saques' }).click()
  await page.getByRole('heading', { name: 'Sacar' }).waitFor()
  await choose(page, 'Destino', options.destination)
  await choose(page, 'Moeda', /^DEPIX \(Disponível: R\$ [\d.,]+\)$/)
  await page.getByLabel('Valor', { exact: true }).fill(options.amount)
  if (options.screenshots) await mode.shoot(page, `${mode.name}-07-withdraw-form`)
  await page.getByRole('button', { name: 'Continuar' }).click()
  await page.getByRole('heading', { name: `Saque · R$ ${options.amount}` }).waitFor()
  const id = /wd_[0-9a-f]{24}/.exec(page.url())![0]
  const asked = await breakdown(page)
  for (const [term, value] of Object.entries(options.expect)) assert.equal(asked[term], value, `${term}: ${JSON.stringify(asked)}`)
  assert.equal(asked['Situação'], 'Aguardando o código')
  if (options.screenshots) await mode.shoot(page, `${mode.name}-08-withdrawal-code`)
  // The code mailed for this withdrawal, naming its amount and what arrives.
  const mailed = await mode.mail(email, new RegExp(`Código para confirmar o saque de R\\$ ${options.amount} para [^\\n]*: (\\d{6})\\s+Taxa: (R\\$ [\\d.,]+?)\\. Chega ao destino: (R\\$ [\\d.,]+?)\\. `))
  assert.deepEqual([mailed[2], mailed[3]], [options.expect.Taxa, options.expect['Chega ao destino']])
  await page.getByLabel('Código de 6 dígitos').fill(mailed[1]!)
  await page.getByRole('button', { name: 'Confirmar saque' }).click()
  await page.getByRole('heading', { name: `Saque · R$ ${options.amount}` }).waitFor()
  assert.equal(await page.getByLabel('Código de 6 dígitos').count(), 0, 'the code form is gone once confirmed')
  const done = await follow(page, 'Concluído', () => options.nudge(id))
  for (const [term, value] of Object.entries(options.expect)) assert.equal(done[term], value)
  assert.equal(await page.getByRole('button', { name: 'Cancelar saque' }).count(), 0, 'a completed withdrawal cannot be canceled')
}

/**
 * The journey from an owner signed in with R$ 8,00 or more available: two destinations (and in
 * production a third, canceled by its e-mail's link), the cool-down, a Pix withdrawal and a
 * Liquid one.
 */
async function withdrawalJourney(page: Page, mode: Mode, email: string, taxNumber: string, available: number): Promise<{ liquid: string }> {
  const prefix = mode.name
  await page.getByRole('navigation').getByRole('link', { name: 'Destinos' }).click()
  await page.getByRole('heading', { name: 'Destinos' }).waitFor()
  assert.match(await page.getByText(/só recebe depois de/).innerText(), new RegExp(`depois de ${COOLDOWN_SECONDS / 3600} horas`))
  await page.getByText('Nenhum destino ainda.').waitFor()

  const liquid = confidentialAddress()
  await addDestination(page, mode, email, 'Endereço Liquid', liquid, 'Carteira fria', true)
  // The key typed as people write it: the own CPF, formatted.
  await addDestination(page, mode, email, 'Chave Pix (seu CPF/CNPJ)', taxNumber.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4'), 'Minha chave Pix')
  if (mode.name === 'production') {
    // A third destination that was not the owner's doing: its e-mail's link cancels it, on another device, signed out.
    const cancelLink = await addDestination(page, mode, email, 'Endereço Liquid', plainAddress(), 'Endereço errado')
    assert.equal(await page.getByRole('listitem').count(), 3)
    await mode.shoot(page, `${prefix}-03-destinations-cooling-down`)
    assert.ok(cancelLink.startsWith(`${mode.base}/wallet/destinations/cancel/`), cancelLink)
    const elsewhere = await browser.newContext({ locale: 'pt-BR' })
    try {
      const phone = await elsewhere.newPage()
      await phone.goto(cancelLink)
      await phone.getByRole('heading', { name: 'Cancelar destino' }).waitFor()
      assert.match(await phone.getByText(/Cancelar o destino/).innerText(), /Endereço errado · Liquid .+\? Ele deixa de poder receber saques\./)
      await mode.shoot(phone, `${prefix}-04-cancel-link`)
      await phone.getByRole('button', { name: 'Cancelar' }).click()
      await phone.getByRole('status').filter({ hasText: 'Destino cancelado.' }).waitFor()
      await mode.shoot(phone, `${prefix}-05-cancel-link-done`)
    } finally {
      await elsewhere.close()
    }
    assert.equal((await fetch(cancelLink)).status, 404, 'the link cancels once')
    await page.reload()
    assert.equal(await page.getByRole('listitem').filter({ hasText: 'Endereço errado' }).count(), 0)
  }
  assert.equal(await page.getByRole('listitem').count(), 2)

  // While they cool down, nothing can be withdrawn to them.
  await page.getByRole('navigation').getByRole('link', { name: 'Saques' }).click()
  await page.getByText('Nenhum destino ativo: adicione um em Destinos.').waitFor()
  assert.equal(await page.getByRole('button', { name: 'Continuar' }).count(), 0)

  // A day later on the service clock: the session, measured on the wall clock, goes on (the
  // owner is not signed out by the cool-down's wait), and both destinations are active.
  await mode.advance(COOLDOWN_SECONDS + 1)
  await page.getByRole('navigation').getByRole('link', { name: 'Destinos' }).click()
  for (const label of ['Carteira fria', 'Minha chave Pix']) assert.match(await page.getByRole('listitem').filter({ hasText: label }).innerText(), / — Ativo/)
  await mode.shoot(page, `${prefix}-06-destinations-active`)

  // R$ 5,00 by Pix: our 2 % (R$ 0,10), then the provider's 1 % of R$ 4,90, at least R$ 1,00: R$ 3,90 arrive.
  await withdraw(page, mode, email, {
    destination: /^Minha chave Pix · Pix /, amount: '5,00', screenshots: true,
    expect: { Valor: 'R$ 5,00', Taxa: 'R$ 0,10', 'Taxa do provedor do Pix': 'R$ 1,00', 'Chega ao destino': 'R$ 3,90' },
    nudge: mode.payPix,
  })
  await mode.shoot(page, `${prefix}-09-pix-completed`)
  // R$ 3,00 on Liquid: our 2 % (R$ 0,06); the network fee is the service's: R$ 2,94 arrive.
  await withdraw(page, mode, email, {
    destination: /^Carteira fria · Liquid /, amount: '3,00',
    expect: { Valor: 'R$ 3,00', Taxa: 'R$ 0,06', 'Chega ao destino': 'R$ 2,94' },
    nudge: mode.confirmOnChain,
  })
  const shown = await breakdown(page)
  assert.equal(shown['Taxa do provedor do Pix'], undefined, 'no provider fee on Liquid')
  assert.match(shown['Transação']!, /^[0-9a-f]{64}$/)
  await mode.shoot(page, `${prefix}-10-liquid-completed`)

  await page.getByRole('navigation').getByRole('link', { name: 'Saques' }).click()
  // Issue 52 (point 6): each row links to its withdrawal and says what arrived, not only the gross amount.
  for (const [label, amount, arrived] of [['Minha chave Pix', 'R$ 5,00', 'R$ 3,90'], ['Carteira fria', 'R$ 3,00', 'R$ 2,94']] as const) {
    const row = page.getByRole('listitem').filter({ hasText: label })
    assert.match(await row.innerText(), new RegExp(`^Concluído\\s+${label} · [\\s\\S]+${amount.replace('$', '\\$')}[\\s\\S]+Chega ao destino: ${arrived.replace('$', '\\$')}$`))
    assert.match(await row.getByRole('link').getAttribute('href') ?? '', /^\/wallet\/withdrawals\/wd_/)
  }
  await mode.shoot(page, `${prefix}-11-withdrawals`)
  await page.getByRole('link', { name: 'Pix · Carteira' }).click()
  assert.match(await page.getByRole('row', { name: /^DEPIX/ }).innerText(), new RegExp(`R\\$ ${((available - 800) / 100).toFixed(2).replace('.', ',')}`))
  return { liquid }
}

/** Each withdrawal was one payment: one transaction to the Liquid address, one provider payout. */
async function paidOnce(elements: FakeElements, liquid: string, payouts: () => Promise<unknown[]>): Promise<void> {
  const script = parseLiquidAddress(liquid, 'elementsregtest')!.scriptHex
  assert.equal(elements.transactions().filter((tx) => tx.outputs.some((output) => output.scriptHex === script)).length, 1)
  assert.equal((await payouts()).length, 1)
}

test('production mode: destinations confirmed by e-mail code, one canceled by its link, the cool-down on the clock, a Pix and a Liquid withdrawal followed to "Concluído"', { skip, timeout: 300_000 }, async () => {
  // One clock for the service and the provider: a payout's expiry is the provider's, checked by the service.
  const clock = createAdjustableClock(T0)
  const rig = await startProductionRig({ clock, smtp: true, watchPayouts: true })
  const { provider, treasury, smtp } = rig
  const { service, base, config } = await rig.serve({ clock, runJobs: true })
  const context = await browser.newContext({ locale: 'pt-BR' })
  context.setDefaultTimeout(10_000)
  const page = await context.newPage()
  const mode: Mode = {
    name: 'production',
    base,
    async mail(email, pattern) {
      for (;;) {
        const found = pattern.exec(mailText(await smtp.next(email)))
        if (found) return found
      }
    },
    advance: async (seconds) => void clock.advance(seconds),
    // Two blocks; the worker looks again after TREASURY_POLL_SECONDS on the service clock.
    confirmOnChain: async () => {
      treasury.elements.mine(2)
      clock.advance(config.treasury.pollMs / 1000)
    },
    // The provider pays the Pix and says so by its withdraw webhook.
    payPix: async (id) => {
      const payout = (await service.store.payouts.latestOf({ withdrawalId: id }))!.provider_withdrawal_id!
      // The provider sees the DePix arrive at its deposit address (and starts the Pix) as the node reports it.
      for (let tries = 0; (await provider.payout(payout))!.status !== 'sending'; tries++) {
        assert.ok(tries < 100, 'the provider never received the DePix')
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      assert.equal(await provider.finishPayout(payout, 'sent'), 200)
    },
    shoot: screenshot,
  }
  try {
    assert.equal((await fetch(`${base}/sandbox/clock`, { method: 'POST' })).status, 404, 'no sandbox in production')
    // The quickest honest way to a balance in production: join, buy DePix with the own CPF, the provider confirms it.
    const email = 'saque@example.com'
    const taxNumber = generateCpf()
    await page.goto(`${base}/wallet`)
    await page.getByRole('link', { name: 'Criar conta' }).click()
    await page.getByLabel('E-mail').fill(email)
    await page.getByLabel('Nome completo').fill('Ana Saque')
    await page.getByLabel('CPF ou CNPJ').fill(taxNumber)
    await page.getByRole('button', { name: 'Criar conta' }).click()
    await page.getByLabel('Código de 6 dígitos').fill((await mode.mail(email, SIGN_IN_CODE))[1]!)
    await page.getByRole('button', { name: 'Confirmar' }).click()
    await page.getByLabel('Valor (R$)').fill('10,00')
    await page.getByRole('button', { name: 'Comprar DePix' }).click()
    await page.getByRole('img', { name: 'QR Code do Pix' }).waitFor()
    const charge = (await service.store.charges.findById(page.url().split('/').pop()!))!
    assert.equal(await provider.settle(charge.provider_deposit_id, { payerName: 'Ana Saque', payerTaxNumber: taxNumber, outcome: 'depix_sent' }), 200)
    await page.getByRole('link', { name: 'Voltar para a Carteira' }).click()
    const row = await page.getByRole('row', { name: /^DEPIX/ }).innerText()
    const available = Number(/R\$ ([\d.]+,\d{2})/.exec(row)![1]!.replace(/\./g, '').replace(',', ''))
    assert.ok(available >= 800, row)

    const { liquid } = await withdrawalJourney(page, mode, email, taxNumber, available)
    await paidOnce(treasury.elements, liquid, () => provider.payouts())
    assert.equal((await service.store.withdrawals.list((await service.store.accounts.findByEmail(email))!.id, { status: 'completed', before: null, limit: 10 })).length, 2)
  } catch (error) {
    await explainFailure(context)
    throw error
  } finally {
    await context.close()
    await rig.close()
  }
})

test('sandbox mode: the same journey with the outbox, the sandbox clock, "mine" and the payout control; then forged cross-site POSTs change nothing', { skip, timeout: 300_000 }, async () => {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const service = await startTestService({ BASE_URL: base, PORT: String(port) })
  // As main.ts does in sandbox mode too: the runner pays the withdrawals.
  service.jobs.start(50)
  const context = await browser.newContext({ locale: 'pt-BR' })
  context.setDefaultTimeout(10_000)
  const page = await context.newPage()
  const sandboxPost = async (url: string, body: unknown) => {
    const response = await service.request({ method: 'POST', url, body })
    assert.equal(response.status, 200, JSON.stringify(response.body))
    return response.body
  }
  const mode: Mode = {
    name: 'sandbox',
    base,
    mail: (email, pattern) => fromOutbox(service, email, pattern),
    advance: (seconds) => service.advance(seconds),
    confirmOnChain: async () => {
      await sandboxPost('/sandbox/treasury/mine', { blocks: 2 })
    },
    payPix: async (id) => {
      assert.deepEqual(await sandboxPost(`/sandbox/withdrawals/${id}/payout`, { outcome: 'sent' }), { id, status: 'completed' })
    },
    shoot: async () => {},
  }
  try {
    // The quickest honest way to a balance in the sandbox: an identified owner pays a charge of their own.
    const owner = await ownerWithBalance(service, 'sandbox-saque@example.com', '10.00')
    const available = async () => ok(await service.api.get('/api/get-balance', { token: owner.token })).balances.DEPIX.available_cents
    const credited = await available()
    await page.goto(`${base}/wallet`)
    await signIn(page, mode.mail, owner.email)
    const { liquid } = await withdrawalJourney(page, mode, owner.email, owner.taxNumber, credited)
    await paidOnce(service.sandbox!.elements, liquid, () => service.sandbox!.fake.payouts())

    // Issue 23: a page on another site posts the forms the Wallet would, while the owner is signed
    // in: a withdrawal of what is left to an active destination, a destination of its own, the
    // cancellation of the owner's. Nothing changes.
    const accountId = (await service.store.accounts.findByEmail(owner.email))!.id
    const state = async () => ({
      withdrawals: (await service.store.withdrawals.list(accountId, { status: null, before: null, limit: 10 })).map((row) => row.status),
      destinations: (await service.store.withdrawals.listDestinations(accountId)).map((row) => `${row.label}: ${row.state}`).sort(),
      available: await available(),
    })
    const before = await state()
    assert.deepEqual(before, { withdrawals: ['completed', 'completed'], destinations: ['Carteira fria: confirmed', 'Minha chave Pix: confirmed'], available: credited - 800 })
    const destination = (await service.store.withdrawals.listDestinations(accountId)).find((row) => row.type === 'liquid')!.id
    const forms = {
      withdrawal: { action: '/wallet/withdrawals', fields: { destination_id: destination, currency: 'DEPIX', amount: '1,00' } },
      destination: { action: '/wallet/destinations', fields: { type: 'liquid', value: plainAddress(), label: 'ladrão' } },
      cancel: { action: `/wallet/destinations/${destination}/cancel`, fields: {} as Record<string, string> },
    }
    const attacker = await context.newPage()
    await attacker.route('http://evil.test/**', (route) => {
      const form = forms[new URL(route.request().url()).pathname.slice(1) as keyof typeof forms]
      const inputs = Object.entries(form.fields).map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`).join('')
      return route.fulfill({ contentType: 'text/html; charset=utf-8', body: `<!doctype html><form method="post" action="${base}${form.action}">${inputs}<button>Ganhe um prêmio</button></form>` })
    })
    for (const [name, { action }] of Object.entries(forms)) {
      await attacker.goto(`http://evil.test/${name}`)
      const posted = attacker.waitForResponse((response) => response.request().method() === 'POST' && response.url() === `${base}${action}`)
      await attacker.getByRole('button', { name: 'Ganhe um prêmio' }).click()
      // The browser keeps the session cookie (SameSite=Lax) to itself: the request is nobody's,
      // sent to the Wallet's front page with nothing done.
      const response = await posted
      assert.deepEqual([response.status(), response.headers().location], [303, '/wallet'], name)
      assert.equal((await response.request().allHeaders()).cookie, undefined, 'no cookie on a cross-site POST')
      await attacker.waitForURL(`${base}/wallet`)
    }
    assert.deepEqual(await state(), before)

    // A browser that did send the cookie (or any other road from a signed-in session): without the
    // form's CSRF token, or with a made-up one, each is refused with 403 csrf_invalid.
    for (const { action, fields } of Object.values(forms)) {
      for (const token of [null, 'made-up-token']) {
        const response = await context.request.post(`${base}${action}`, {
          form: { ...fields, ...(token === null ? {} : { _csrf: token }) }, headers: { origin: 'http://evil.test', referer: 'http://evil.test/' }, maxRedirects: 0,
        })
        assert.deepEqual([response.status(), response.headers()['x-error-code']], [403, 'csrf_invalid'], action)
        assert.match(await response.text(), /Formulário expirado/)
      }
    }
    assert.deepEqual(await state(), before)
  } catch (error) {
    await explainFailure(context)
    throw error
  } finally {
    await context.close()
    await service.close()
  }
})
