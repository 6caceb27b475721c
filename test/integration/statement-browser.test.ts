// Issue 52 (points 2 and 6): the Wallet's money views on a phone, in a real browser (Debian's
// Chromium through playwright-core): the Extrato, the charges and a charge, the withdrawals and a
// completed Pix withdrawal, the webhook deliveries. At 375 px nothing scrolls sideways, each row
// links to its detail and stays a few lines tall, the detail shows gross, fees and net, and a
// Pix withdrawal shows its Pix receipt, not a Liquid transaction. Screenshots at 375 and 1280 px
// go to /tmp/statements52-shots for a person to look at.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { ok } from '../support/api.ts'
import { launchChromium, skipWithoutChromium as skip } from '../support/browser.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { signedInOperator } from '../support/factors.ts'
import { newestCode } from '../support/wallet-client.ts'
import { confirmedDestination, ownerWithBalance, type Owner } from '../support/withdrawals.ts'

const SHOTS = '/tmp/statements52-shots'
let browser: Browser
let service: TestService
let owner: Owner
let base: string
let pixWithdrawal: string
let chargeId: string

before(async () => {
  if (skip) return
  mkdirSync(SHOTS, { recursive: true })
  browser = await launchChromium()
  service = await startTestService({ OPERATORS: 'reports-operator@example.com:support' })
  base = `http://127.0.0.1:${(service.app.server.address() as { port: number }).port}`
  owner = await ownerWithBalance(service, 'phone-views@example.com', '300.00')
  // A charge with a webhook that fails (a long URL, a long event name on the deliveries page).
  chargeId = ok(await service.api.post('/api/create-payment', { value: '45.67', email: owner.email, euid: owner.euid, swap_to: 'USDt', webhook_url: 'http://127.0.0.1:1/a/rather/long/webhook/path/that/used/to/push/the/page/wide' }, { token: owner.token })).id
  await service.pay(chargeId, owner.taxNumber)
  const destination = await confirmedDestination(service, owner, 'pix', owner.taxNumber)
  await service.advance(24 * 3600 + 1)
  await owner.wallet.get('/wallet/withdrawals')
  const asked = await owner.wallet.post('/wallet/withdrawals', { destination_id: destination, currency: 'DEPIX', amount: '100,00' })
  pixWithdrawal = /wd_[0-9a-f]{24}/.exec(asked.location!)![0]
  await owner.wallet.get(asked.location!)
  await owner.wallet.post(`/wallet/withdrawals/${pixWithdrawal}/confirm`, { code: await newestCode(service, owner.email) })
  await service.jobs.runDue()
  const finished = await service.request({ method: 'POST', url: `/sandbox/withdrawals/${pixWithdrawal}/payout`, body: { outcome: 'sent' } })
  assert.equal(finished.body.status, 'completed', JSON.stringify(finished.body))
})
after(async () => {
  await browser?.close()
  await service?.close()
})

async function signedInContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 375, height: 800 } })
  await context.addCookies([...owner.wallet.jar].map(([name, value]) => ({ name, value, url: `${base}/wallet` })))
  return context
}

async function wideness(page: Page): Promise<number> {
  return page.locator('html').evaluate((root) => (root as unknown as { scrollWidth: number }).scrollWidth)
}

async function shoot(page: Page, name: string): Promise<void> {
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 800 })
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true })
  }
  await page.setViewportSize({ width: 375, height: 800 })
}

test('every money view fits 375 px, its rows are links a few lines tall, and the details show gross, fees and net', { skip, timeout: 120_000 }, async () => {
  const context = await signedInContext()
  const page = await context.newPage()
  try {
    for (const path of ['/wallet', '/wallet/statement', '/wallet/charges', `/wallet/charges/${chargeId}`, '/wallet/withdrawals', `/wallet/withdrawals/${pixWithdrawal}`, '/wallet/deliveries']) {
      const response = await page.goto(`${base}${path}`)
      assert.equal(response!.status(), 200, path)
      const overflowing = await page.locator('body *').evaluateAll((nodes) => nodes.filter((node) => (node as unknown as { getBoundingClientRect(): { right: number } }).getBoundingClientRect().right > 375).map((node) => `${(node as unknown as { tagName: string }).tagName}.${(node as unknown as { className: string }).className}`))
      assert.ok(await wideness(page) <= 375, `${path} is ${await wideness(page)} px wide at 375: ${overflowing.slice(0, 8).join(', ')}`)
      await shoot(page, path.split('/').slice(2).map((part) => part.slice(0, 10)).join('-') || 'wallet')
    }

    await page.goto(`${base}/wallet/statement`)
    await assert.doesNotReject(page.getByRole('heading', { name: 'Extrato' }).waitFor())
    const lines = page.locator('ol.lines li')
    assert.ok(await lines.count() >= 6)
    for (const box of await lines.evaluateAll((items) => items.map((item) => (item as unknown as { getBoundingClientRect(): { height: number } }).getBoundingClientRect().height))) {
      assert.ok(box < 110, `a statement row is ${box} px tall`)
    }
    assert.equal(await page.locator('[data-currency="DEPIX"] [data-total="fees"]').innerText(), '-R$ 3,00', 'R$ 1,00 on the deposit, R$ 2,00 on the withdrawal')

    await page.goto(`${base}/wallet/deliveries`)
    for (const box of await page.locator('ol.lines > li').evaluateAll((items) => items.map((item) => (item as unknown as { getBoundingClientRect(): { height: number } }).getBoundingClientRect().height))) {
      assert.ok(box < 300, `a delivery with two failed attempts is ${box} px tall (its errors wrap as words, not a letter a line)`)
    }

    await page.goto(`${base}/wallet/charges`)
    const row = page.locator(`li[data-charge="${chargeId}"]`)
    assert.ok((await row.boundingBox())!.height < 110, 'a charge row stays a few lines tall')
    assert.doesNotMatch(await row.innerText(), /depix_sent/, 'no raw code under the Portuguese label')
    await row.getByRole('link').click()
    await page.waitForURL(`${base}/wallet/charges/${chargeId}`)
    assert.equal(await page.locator('[data-gross]').innerText(), 'R$ 45,67')
    assert.equal(await page.locator('[data-fee]').innerText(), 'R$ 1,00')
    assert.match(await page.locator('[data-net]').innerText(), /^\d+\.\d{6} USDt$/)

    await page.goto(`${base}/wallet/withdrawals`)
    const withdrawal = page.locator(`li[data-withdrawal="${pixWithdrawal}"]`)
    assert.match(await withdrawal.locator('[data-arrives]').innerText(), /R\$ 97,00/, 'what arrived, not only the gross amount')
    await withdrawal.getByRole('link').click()
    await page.waitForURL(`${base}/wallet/withdrawals/${pixWithdrawal}`)
    assert.match(await page.locator('[data-receipt]').getAttribute('href') ?? '', /\/receipts\/.+\.pdf$/, 'a completed Pix shows its receipt')
    assert.equal(await page.getByText('Transação', { exact: true }).count(), 0, 'and no Liquid transaction')
  } finally {
    await context.close()
  }
})

test('the console\'s reports read at a desktop\'s width and on a phone, wide tables scrolling inside themselves', { skip, timeout: 60_000 }, async () => {
  // Operators sign in with the e-mail code and their second factor (enrolled the first time).
  const operator = await signedInOperator(service, 'reports-operator@example.com')
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  await context.addCookies([...operator.jar].map(([name, value]) => ({ name, value, url: `${base}/console` })))
  const page = await context.newPage()
  try {
    assert.equal((await page.goto(`${base}/console/reports`))!.status(), 200)
    await page.getByRole('heading', { name: 'Relatórios' }).waitFor()
    assert.ok(await wideness(page) <= 1280)
    assert.equal(await page.locator('tr[data-month][data-currency="DEPIX"] [data-net]').first().innerText(), 'R$ 4,00', 'the deposit fees of R$ 300,00 and R$ 45,67, and the withdrawal\'s R$ 2,00')
    await shoot(page, 'console-reports')
    assert.ok(await wideness(page) <= 375, `the reports are ${await wideness(page)} px wide at 375`)
  } finally {
    await context.close()
  }
})
