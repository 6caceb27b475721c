// The public pages a payer reads (docs/payment-pages.md): the payment page of a charge. The
// Wallet's shell and stylesheet, the one escaping template, every text from the catalogue; phone
// first, and whole without JavaScript (a no-script refresh follows the status; the script only
// adds the copy button, the ticking countdown and a quicker follow).
import { formatBrl } from '../domain/money.ts'
import { countdownText, refreshSeconds, showsQr, type PagePhase } from '../domain/payment-page.ts'
import { html, href, type Html } from '../html/template.ts'
import { shell } from '../html/shell.ts'
import { catalogues, formatDateTime, payText, type Lang, type PayKey } from '../i18n/catalogue.ts'
import type { PaymentPageView } from '../app/payment-page.ts'
import type { LinkView } from '../app/payment-links.ts'

export function texts(lang: Lang) {
  return (key: PayKey, values: Record<string, string> = {}) => payText(lang, key, values)
}

/** A public page: the merchant's name where the Wallet has its own, and the language switch. */
export function publicLayout(lang: Lang, page: { title: string; brand: string | null; path: string; body: Html; refresh?: number | null }): string {
  const t = texts(lang)
  const other: Lang = lang === 'en' ? 'pt-BR' : 'en'
  const switchTo = other === 'en' ? `${page.path}?lang=en` : page.path
  return shell({
    lang,
    title: page.brand === null ? page.title : `${page.title} · ${page.brand}`,
    brand: html`<span class="brand">${page.brand ?? t('title')}</span>`,
    navLabel: catalogues[lang].otherLanguage,
    nav: html`<a href="${href(switchTo)}" lang="${other}">${catalogues[lang].otherLanguage}</a>`,
    // Only without a script: with one, wallet.js follows the status and reloads when it changes.
    head: page.refresh ? html`\n<noscript><meta http-equiv="refresh" content="${page.refresh}"></noscript>` : null,
    body: page.body,
  })
}

const phaseClass: Record<PagePhase, string> = {
  waiting: 'guidance', paidWaiting: 'guidance', underReview: 'guidance', held: 'guidance', paid: 'ok',
  expired: 'error', canceled: 'error', refunding: 'error', refunded: 'error', failed: 'error',
}

export function paymentPageHtml(lang: Lang, view: PaymentPageView): string {
  const t = texts(lang)
  const path = `/pay/${view.id}`
  const langQuery = lang === 'en' ? '?lang=en' : ''
  const refresh = refreshSeconds(view.phase)
  const qr = showsQr(view.phase) && html`
<p>${t('scanOrCopy')}</p>
<img class="qr" src="${href(`/api/qr/${view.id}.png`)}" alt="${t('qrAlt')}" width="240" height="240">
<label for="copy-paste">${t('copyPaste')}</label>
<textarea id="copy-paste" readonly rows="4">${view.qrCopyPaste}</textarea>
<button type="button" data-copy="copy-paste" data-copied="${t('copied')}" hidden>${t('copy')}</button>
<p>${t('expiresIn')} <strong data-countdown="${view.secondsLeft}">${countdownText(view.secondsLeft)}</strong><br><small>${t('expiresAt', { when: formatDateTime(lang, view.expiresAt) })}</small></p>`
  const receipt = view.receipt && html`
<section class="card receipt" aria-labelledby="receipt"><h2 id="receipt">${t('receipt')}</h2>
<dl>
  <dt>${t('paidAmount')}</dt><dd>${formatBrl(view.receipt.paidCents)}</dd>
  <dt>${t('paidAt')}</dt><dd><time datetime="${view.receipt.paidAt.toISOString()}">${formatDateTime(lang, view.receipt.paidAt)}</time></dd>
  ${(view.receipt.payerName !== null || view.receipt.payerTaxNumber !== null) && html`<dt>${t('payer')}</dt><dd>${[view.receipt.payerName, view.receipt.payerTaxNumber].filter((part) => part !== null).join(' · ')}</dd>`}
  <dt>${t('transactionId')}</dt><dd><code class="id">${view.receipt.transactionId}</code></dd>
</dl>
</section>`
  const over = refresh === null || view.phase === 'held'
  return publicLayout(lang, {
    title: t('title'),
    brand: view.merchantName,
    path,
    refresh,
    body: html`
<div class="pay">
<h1>${view.merchantName === null ? t('title') : t('payTo', { name: view.merchantName })}</h1>
<p class="amount">${formatBrl(view.valueCents)}</p>
<p class="${phaseClass[view.phase]}" role="status" data-phase="${view.phase}" ${refresh !== null && html`data-follow="${href(`${path}/status${langQuery}`)}"`}>${t(view.phase)}</p>${qr}${receipt}
${over && view.returnUrl !== null && html`<p><a class="button" href="${href(view.returnUrl)}">${t('backToStore')}</a></p>`}
${refresh !== null && html`<p><small>${t('refreshing')} <a href="${href(path + langQuery)}">${t('refresh')}</a></small></p>`}
<p><small>${t('chargeId')}: <code class="id">${view.id}</code></small></p>
</div>`,
  })
}

export function payErrorHtml(lang: Lang, notFound: boolean, message: string, path: string): string {
  const t = texts(lang)
  return publicLayout(lang, {
    title: notFound ? t('notFoundTitle') : t('errorTitle'),
    brand: null,
    path,
    body: html`
<div class="pay">
<h1>${notFound ? t('notFoundTitle') : t('errorTitle')}</h1>
<p class="error">${notFound ? t('notFound') : message}</p>
</div>`,
  })
}

export type LinkForm = { name: string; taxNumber: string; amount: string; error: { code: string; message: string } | null }
export const emptyLinkForm: LinkForm = { name: '', taxNumber: '', amount: '', error: null }

/** A payment link: what is sold, the payer limits said before anything is typed, and the form whose submit alone makes a QR. */
export function linkPageHtml(lang: Lang, view: LinkView, form: LinkForm = emptyLinkForm): string {
  const t = texts(lang)
  const path = `/l/${view.slug}`
  const action = lang === 'en' ? `${path}?lang=en` : path
  const open = view.amountCents === null
  const closed = view.closed !== null && html`<p class="error" role="status" data-code="payment_link_closed">${t(`linkClosed_${view.closed}`)}</p>`
  const sell = view.closed === null && html`
<p class="guidance">${t('linkLimits', { newLimit: formatBrl(view.newPayerLimitCents), knownLimit: formatBrl(view.knownPayerLimitCents) })}</p>
${form.error !== null && html`<p class="error" role="alert" data-code="${form.error.code}">${form.error.message}</p>`}
<form method="post" action="${href(action)}" class="card">
  ${open && html`<label>${t('linkAmount')}<input type="text" name="amount" value="${form.amount}" required inputmode="decimal" pattern="[0-9.,]+" maxlength="12" autocomplete="off"></label>`}
  <label>${t('linkPayerName')}<input type="text" name="name" value="${form.name}" required maxlength="100" autocomplete="name"></label>
  <label>${t('linkTaxNumber')}<input type="text" name="tax_number" value="${form.taxNumber}" required maxlength="18" inputmode="numeric" autocomplete="off"></label>
  <p><small>${t('linkWhy')}</small></p>
  <button type="submit">${t('linkGenerate')}</button>
  <p><small>${t('linkGenerateNote')}</small></p>
</form>`
  return publicLayout(lang, {
    title: view.title,
    brand: view.merchantName,
    path,
    body: html`
<div class="pay">
<h1>${view.title}</h1>
${view.merchantName !== null && html`<p>${t('linkBy', { name: view.merchantName })}</p>`}
${view.description !== null && html`<p class="description">${view.description}</p>`}
${open
    ? html`<p>${t('linkOpenPrice', { min: formatBrl(view.minCents!), max: formatBrl(view.maxCents!) })}</p>`
    : html`<p class="amount">${formatBrl(view.amountCents!)}</p>`}
${closed}${sell}
</div>`,
  })
}
