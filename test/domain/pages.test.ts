// Issue 22, point 1: every page renders through the one template, and no value a user (or a
// stored row, or a forwarded URL) controls can add markup, an attribute or a script URL.
import { refundPreviewPage } from '../../src/wallet/refund-pages.ts'
import { test } from 'node:test'
import { pagePhases } from '../../src/domain/payment-page.ts'
import { linkPageHtml, payErrorHtml, paymentPageHtml } from '../../src/pay/pages.ts'
import { linkPage as linkChargesPage, linksPage } from '../../src/wallet/link-pages.ts'

const linkRecord = (value: string) => ({
  id: value, url: value, title: value, description: value, amount_cents: null, min_cents: 1000, max_cents: 2000, swap_to: 'DEPIX' as const, expires_at: null, max_uses: null, active: true, notify_sales: true,
  created_at: value, sales: { paid: 1, paid_cents: 1000, open: 1 },
})
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { href, html, raw } from '../../src/html/template.ts'
import { renderDocs } from '../../src/http/docs-page.ts'
import { langs, type Lang } from '../../src/i18n/catalogue.ts'
import {
  chargePage, chargesPage, codePage, dashboardPage, deliveriesPage, errorPage, purchasePage, signInPage, signUpPage, tokenPage, tokenShownPage,
} from '../../src/wallet/pages.ts'
import type { Overview } from '../../src/app/account-overview.ts'
import { statementPage } from '../../src/wallet/statement-pages.ts'

const hostile = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "' autofocus onfocus='alert(1)",
  '`${alert(1)}`',
  'javascript:alert(1)',
  ' JaVaScRiPt:alert(1)',
  '//evil.example/x',
  'data:text/html,<script>alert(1)</script>',
]

/** Every page, each field a user or a stored row controls filled with `value`. */
function everyPage(lang: Lang, value: string) {
  const page = { lang, csrf: value }
  const overview = (kyc: Overview['kyc']): Overview => ({
    email: value, displayName: value, notifySales: true, ownerTaxNumber: value, kyc, euid: value,
    available: { DEPIX: 1, BTC: 2, USDt: 3 }, held: { DEPIX: 0, BTC: 0, USDt: 0 },
    token: { last4: value, createdAt: new Date(0), lastUsedAt: null },
  })
  const when = new Date('2026-11-23T12:00:00Z')
  const charge = { id: value, status: 'depix_sent', valueCents: 1000, paidCents: 1000, feeCents: 100, currency: 'DEPIX', creditedUnits: 900, takenBackCents: 0, createdAt: when, role: 'received' } as const
  return {
    signIn: signInPage(page),
    signUp: signUpPage(page),
    code: codePage(page, value, true),
    dashboardVerified: dashboardPage(page, overview('verified'), value, value),
    dashboardUnidentified: dashboardPage(page, overview('unidentified'), value, value),
    dashboardNone: dashboardPage(page, overview('none'), value, value),
    purchase: purchasePage(page, { id: value, status: 'waiting_payment', qrCopyPaste: value, qrImageUrl: value, expiresAt: when, valueCents: 1000, ownerTaxNumber: value }, true),
    token: tokenPage(page, value),
    tokenShown: tokenShownPage(page, overview('verified')),
    charges: chargesPage(page, [charge], null, value),
    charge: chargePage(page, { ...charge, payerName: value, payerTaxNumber: value, confirmedAt: when, releaseAt: when, quoteMicros: 1, purchaseHref: value, lines: [{ type: 'credit', currency: 'DEPIX', amount: 1, at: when }], refunds: { rows: [], leftCents: 1, made: true } }),
    refundPreview: refundPreviewPage(page, { chargeId: value, currency: 'BTC', leftCents: 1, amountCents: 1, feeCents: 1, units: 1, heldUnits: 1, quoteMicros: 1 }, 'code', value),
    statement: statementPage(page, {
      query: { month: value, from: value, to: value, currency: null }, zone: value, zones: [value], more: true, csvQuery: value,
      summary: [{ currency: 'DEPIX', opening: 1, in: 1, out: 1, fees: 1, closing: 1, availableClosing: 1 }],
      lines: [{ id: value, type: 'credit', currency: 'DEPIX', amount: 0, available: 1, balanceAfter: 1, chargeId: value, withdrawalId: value, local: value, at: when }],
    }),
    deliveries: deliveriesPage(page, [{ id: value, subjectId: value, event: value, state: 'failed', attempts: [{ at: when, statusCode: 500, error: value }] }], true),
    error: errorPage({ ...page, signedIn: true }, value, value, false),
    docs: renderDocs(lang, { baseUrl: value, supportEmail: value }),
    ...Object.fromEntries(pagePhases.map((phase) => [`pay_${phase}`, paymentPageHtml(lang, {
      id: value, phase, merchantName: value, valueCents: 1000, qrCopyPaste: value, expiresAt: when, secondsLeft: 42, returnUrl: value,
      receipt: phase === 'paid' ? { paidCents: 1000, paidAt: when, payerName: value, payerTaxNumber: value, transactionId: value } : null,
    })])),
    payError: payErrorHtml(lang, false, value, value),
    ...Object.fromEntries(([null, 'inactive', 'sold_out'] as const).map((closed) => [`link_${closed}`, linkPageHtml(lang, {
      slug: value, title: value, description: value, merchantName: value, amountCents: null, minCents: 1000, maxCents: 2000, currency: 'DEPIX', closed, newPayerLimitCents: 1000, knownPayerLimitCents: 49_900,
    }, { name: value, taxNumber: value, amount: value, error: { code: value, message: value } })])),
    walletLinks: linksPage(page, [linkRecord(value)], true),
    walletLink: linkChargesPage(page, linkRecord(value), [{ id: value, status: 'depix_sent', valueCents: 1000, paidCents: null, createdAt: when, payerName: value }]),
  }
}

/** The page's structure: every tag with its attribute names, in order. A value that adds markup or an attribute changes it. */
function structure(page: string): string[] {
  return [...page.matchAll(/<([a-zA-Z][\w-]*)((?:\s+[\w:-]+(?:="[^"]*")?)*)\s*\/?>/g)].map(
    ([, tag, attributes]) => `${tag} ${[...attributes!.matchAll(/([\w:-]+)(?:="[^"]*")?/g)].map((match) => match[1]).join(' ')}`,
  )
}

const urlAttributes = /\b(?:href|src|action|data-poll|data-follow)="([^"]*)"/g

test('issue 22 (point 1): hostile values in every field leave every page as it was built, with no script URL', () => {
  for (const lang of langs) {
    const benign = everyPage(lang, 'plain')
    for (const value of hostile) {
      const pages = everyPage(lang, value)
      for (const [name, page] of Object.entries(pages) as Array<[keyof typeof pages, string]>) {
        const where = `${lang} ${name} with ${JSON.stringify(value)}`
        assert.deepEqual(structure(page), structure(benign[name]), `${where}: the markup changed`)
        assert.doesNotMatch(page, /<script>alert|"><img|' autofocus|`\$\{/, where)
        for (const [, url] of page.matchAll(urlAttributes)) {
          assert.doesNotMatch(url!, /^\s*(javascript|data|vbscript):|^\/\//i, `${where}: a script or foreign URL reached an attribute: ${url}`)
        }
      }
    }
  }
})

test('issue 22 (point 1): the template escapes by default and trusts only what is marked', () => {
  const value = `<b a="1" b='2'>&\``
  assert.equal(html`<p title="${value}">${value}</p>`.toString(), '<p title="&lt;b a=&quot;1&quot; b=&#39;2&#39;&gt;&amp;&#96;">&lt;b a=&quot;1&quot; b=&#39;2&#39;&gt;&amp;&#96;</p>')
  assert.equal(html`<p>${raw('<b>ours</b>')}</p>`.toString(), '<p><b>ours</b></p>')
  assert.equal(html`<ul>${['<a>', html`<li>b</li>`]}</ul>`.toString(), '<ul>&lt;a&gt;<li>b</li></ul>')
  assert.equal(html`${null}${undefined}${false}${true}${0}`.toString(), '0')
  assert.equal(href('/wallet/x?a=1&b=2').toString(), '/wallet/x?a=1&amp;b=2')
  assert.equal(href('https://example.com/"x').toString(), 'https://example.com/&quot;x')
  assert.equal(href('mailto:help@example.com').toString(), 'mailto:help@example.com')
  for (const url of ['javascript:alert(1)', '  javascript:alert(1)', 'JAVASCRIPT:x', 'data:text/html,x', 'vbscript:x', '//evil.example', '/\\evil.example', 'relative/path']) {
    assert.equal(href(url).toString(), '#', url)
  }
})

test('issue 22 (point 1): no module escapes HTML by hand; pages go through the template', () => {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []))
  const handMade = files('src')
    .filter((file) => file !== join('src', 'html', 'template.ts'))
    .filter((file) => /&(amp|lt|gt|quot|#3[89]|#\$\{);|escapeHtml/.test(readFileSync(file, 'utf8')))
  assert.deepEqual(handMade, [])
})
