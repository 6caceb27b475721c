// The Wallet's HTML: server-rendered through the one template (html/template.ts: every value
// escaped), no inline script or style (the CSP forbids them), forms that work without JavaScript.
// wallet.js only adds copy buttons and status refresh. Every text comes from the catalogue.
import { chargeStatuses, type ChargeStatus, type WebhookEventState } from '../domain/charge.ts'
import { formatAmount, formatBrl } from '../domain/money.ts'
import { maskTaxNumber } from '../domain/tax-number.ts'
import { html, href, type Html } from '../html/template.ts'
import { shell } from '../html/shell.ts'
import { catalogues, deliveryStateLabel, formatDateTime, statusLabel, translate, type Lang, type WalletKey } from '../i18n/catalogue.ts'

export type Page = { lang: Lang; csrf: string }
type Layout = Page & { title: WalletKey; signedIn: boolean }

export function texts(lang: Lang) {
  return (key: WalletKey, values: Record<string, string> = {}) => translate(lang, key, values)
}

function when(lang: Lang, date: Date | null): string {
  return date === null ? translate(lang, 'never') : formatDateTime(lang, date)
}

/** A moment as a <time>: the São Paulo reading for people, the exact instant for machines. */
export function time(lang: Lang, date: Date): Html {
  return html`<time datetime="${date.toISOString()}">${formatDateTime(lang, date)}</time>`
}

export function layout(page: Layout, body: Html): string {
  const t = texts(page.lang)
  const other = page.lang === 'en' ? 'pt-BR' : 'en'
  return shell({
    lang: page.lang,
    title: `${t(page.title)} · ${t('title')}`,
    brand: html`<a class="brand" href="/wallet">Pix · ${t('title')}</a>`,
    navLabel: t('nav'),
    nav: html`${page.signedIn && html`<a href="/wallet/charges">${t('charges')}</a><a href="/wallet/links">${t('links')}</a><a href="/wallet/withdrawals">${t('withdrawals')}</a><a href="/wallet/destinations">${t('destinations')}</a><a href="/wallet/deliveries">${t('deliveries')}</a>`}
    <a href="/wallet/lang/${other}" lang="${other}">${catalogues[page.lang].otherLanguage}</a>
    ${page.signedIn && html`<form method="post" action="/wallet/sign-out" class="inline">${csrfField(page.csrf)}<button type="submit" class="link">${t('signOut')}</button></form>`}`,
    body,
  })
}

export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`
}

export function signInPage(page: Page): string {
  const t = texts(page.lang)
  return layout({ ...page, title: 'signInTitle', signedIn: false }, html`
<h1>${t('signInTitle')}</h1>
<p>${t('signInLead')}</p>
<form method="post" action="/wallet/sign-in" class="card">
  ${csrfField(page.csrf)}
  <label>${t('email')}<input type="email" name="email" required maxlength="254" autocomplete="email"></label>
  <button type="submit">${t('sendCode')}</button>
</form>
<p>${t('noAccount')} <a href="/wallet/sign-up">${t('signUpLink')}</a></p>`)
}

export function signUpPage(page: Page): string {
  const t = texts(page.lang)
  return layout({ ...page, title: 'signUpTitle', signedIn: false }, html`
<h1>${t('signUpTitle')}</h1>
<p>${t('signUpLead')}</p>
<form method="post" action="/wallet/sign-up" class="card">
  ${csrfField(page.csrf)}
  <label>${t('email')}<input type="email" name="email" required maxlength="254" autocomplete="email"></label>
  <label>${t('fullName')}<input type="text" name="name" required maxlength="100" autocomplete="name"></label>
  <label>${t('taxNumber')}<input type="text" name="tax_number" required maxlength="18" inputmode="text" autocomplete="off"></label>
  <button type="submit">${t('createAccount')}</button>
</form>
<p>${t('haveAccount')} <a href="/wallet">${t('signInLink')}</a></p>`)
}

export function codePage(page: Page, email: string, mailFailing: boolean): string {
  const t = texts(page.lang)
  return layout({ ...page, title: 'codeTitle', signedIn: false }, html`
<h1>${t('codeTitle')}</h1>
<p>${t('codeSent', { email })}</p>${mailFailing && html`
<p class="guidance" role="status" data-code="mail_failing">${t('mailFailing')}</p>`}
<form method="post" action="/wallet/code" class="card">
  ${csrfField(page.csrf)}
  <input type="hidden" name="email" value="${email}">
  <label>${t('code')}<input type="text" name="code" required inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code"></label>
  <button type="submit">${t('confirm')}</button>
</form>
<p><a href="/wallet">${t('newCode')}</a></p>`)
}

export type Overview = {
  email: string
  displayName: string | null
  /** Mail the owner about every charge paid, held or released. */
  notifySales: boolean
  ownerTaxNumber: string | null
  kyc: 'none' | 'unidentified' | 'verified'
  euid: string | null
  available: { DEPIX: number; BTC: number; USDt: number }
  held: { DEPIX: number; BTC: number; USDt: number }
  token: { last4: string | null; createdAt: Date; lastUsedAt: Date | null } | null
}


/** What the Wallet says of the account's current token: never its value. */
function currentToken(lang: Lang, overview: Overview): Html {
  const t = texts(lang)
  return overview.token
    ? html`<p>${t('tokenCurrent', { last4: overview.token.last4 ?? '····', created: when(lang, overview.token.createdAt), lastUsed: when(lang, overview.token.lastUsedAt) })}</p>`
    : html`<p>${t('tokenNone')}</p>`
}

export function dashboardPage(page: Page, overview: Overview, supportEmail: string, tokenNonce: string, saved = false): string {
  const t = texts(page.lang)
  const rows = (['DEPIX', 'BTC', 'USDt'] as const).map(
    (currency) => html`<tr><th scope="row">${currency}</th><td>${formatAmount(currency, overview.available[currency])}</td><td>${formatAmount(currency, overview.held[currency])}</td></tr>`,
  )
  const taxNumber = overview.ownerTaxNumber === null ? '' : maskTaxNumber(overview.ownerTaxNumber)
  const identity =
    overview.kyc === 'verified'
      ? html`<p class="ok">${t('identityVerified', { euid: overview.euid ?? '' })}</p>`
      : overview.kyc === 'unidentified'
        ? html`<p class="guidance" data-code="kyc_identity_unidentified">${t('identityUnidentified', { support: supportEmail })}</p>`
        : html`<p class="guidance" data-code="kyc_purchase_required">${t('identityNone', { taxNumber })}</p>`
  const canIssue = overview.kyc === 'verified'
  return layout({ ...page, title: 'account', signedIn: true }, html`
<h1>${overview.email}</h1>
<section aria-labelledby="balances"><h2 id="balances">${t('balances')}</h2>
<table><thead><tr><th scope="col">${t('currency')}</th><th scope="col">${t('available')}</th><th scope="col">${t('held')}</th></tr></thead><tbody>${rows}</tbody></table>
</section>
<section aria-labelledby="identity"><h2 id="identity">${t('identity')}</h2>${identity}</section>
<section aria-labelledby="buy"><h2 id="buy">${t('buyTitle')}</h2>
<p>${t('buyLead')}</p>
<form method="post" action="/wallet/purchases" class="card row">
  ${csrfField(page.csrf)}
  <label>${t('value')}<input type="text" name="value" value="${page.lang === 'en' ? '10.00' : '10,00'}" required inputmode="decimal" pattern="[0-9]+([.,][0-9]{1,2})?" maxlength="10"></label>
  <button type="submit">${t('buy')}</button>
</form>
</section>
<section aria-labelledby="token"><h2 id="token">${t('tokenTitle')}</h2>
${currentToken(page.lang, overview)}
<form method="post" action="/wallet/token" class="card">
  ${csrfField(page.csrf)}
  <input type="hidden" name="nonce" value="${tokenNonce}">
  <label class="check"><input type="checkbox" name="confirm" value="yes" required ${!canIssue && 'disabled'}> ${t('tokenConfirm')}</label>
  <button type="submit" ${!canIssue && 'disabled'}>${t('newToken')}</button>
</form>
</section>
<section aria-labelledby="display-name"><h2 id="display-name">${t('displayNameTitle')}</h2>
<p>${t('displayNameLead')}</p>
${saved && html`<p class="ok" role="status">${t('saved')}</p>`}
<form method="post" action="/wallet/settings" class="card">
  ${csrfField(page.csrf)}
  <label>${t('displayName')}<input type="text" name="display_name" value="${overview.displayName ?? ''}" maxlength="60" autocomplete="organization"></label>
  <label class="check"><input type="checkbox" name="notify_sales" value="yes" ${overview.notifySales && 'checked'}> ${t('notifySales')}</label>
  <button type="submit">${t('save')}</button>
</form>
</section>`)
}

export type PurchaseView = { id: string; status: ChargeStatus; qrCopyPaste: string; qrImageUrl: string; expiresAt: Date; valueCents: number; ownerTaxNumber: string }

export function purchasePage(page: Page, purchase: PurchaseView, sandbox: boolean): string {
  const t = texts(page.lang)
  const waiting = purchase.status === 'waiting_payment'
  const path = `/wallet/purchases/${encodeURIComponent(purchase.id)}`
  return layout({ ...page, title: 'purchaseTitle', signedIn: true }, html`
<h1>${t('purchaseTitle')} · ${formatBrl(purchase.valueCents)}</h1>
<p>${t('purchaseLead', { taxNumber: maskTaxNumber(purchase.ownerTaxNumber) })}</p>
<div class="purchase">
  <img src="${href(purchase.qrImageUrl)}" alt="${t('qrAlt')}" width="240" height="240">
  <div>
    <label for="copy-paste">${t('copyPaste')}</label>
    <textarea id="copy-paste" readonly rows="4">${purchase.qrCopyPaste}</textarea>
    <button type="button" data-copy="copy-paste" data-copied="${t('copied')}" hidden>${t('copy')}</button>
    <dl>
      <dt>${t('expiresAt')}</dt><dd>${time(page.lang, purchase.expiresAt)}</dd>
      <dt>${t('status')}</dt><dd><output id="status" data-status="${purchase.status}" data-poll="${href(`${path}/status`)}">${statusLabel(page.lang, purchase.status)}</output></dd>
    </dl>
    <p><a href="${href(path)}">${t('refresh')}</a> · <a href="/wallet">${t('backToWallet')}</a></p>
    ${sandbox && waiting && html`<form method="post" action="${href(`${path}/simulate`)}">${csrfField(page.csrf)}<button type="submit">${t('simulate')}</button></form>`}
  </div>
</div>`)
}

export function tokenPage(page: Page, token: string): string {
  const t = texts(page.lang)
  return layout({ ...page, title: 'tokenShownTitle', signedIn: true }, html`
<h1>${t('tokenShownTitle')}</h1>
<p class="guidance">${t('tokenShownLead')}</p>
<label for="token">${t('tokenTitle')}</label>
<input id="token" class="token" type="text" readonly value="${token}">
<button type="button" data-copy="token" data-copied="${t('copied')}" hidden>${t('copy')}</button>
<p><a href="/wallet">${t('backToWallet')}</a></p>`)
}

/** The token page read again (a reload, the back button): the token was shown once, and is not shown again. */
export function tokenShownPage(page: Page, overview: Overview): string {
  const t = texts(page.lang)
  return layout({ ...page, title: 'tokenAlreadyShownTitle', signedIn: true }, html`
<h1>${t('tokenAlreadyShownTitle')}</h1>
<p class="guidance" role="status">${t('tokenAlreadyShown')}</p>
${currentToken(page.lang, overview)}
<p><a href="/wallet">${t('backToWallet')}</a></p>`)
}

export type ChargeRow = { id: string; status: ChargeStatus; valueCents: number; createdAt: Date; role: 'received' | 'asMerchant' | 'identityPurchase' }

export function chargesPage(page: Page, rows: ChargeRow[], filter: ChargeStatus | null, nextHref: string | null): string {
  const t = texts(page.lang)
  const options = chargeStatuses.map((status) => html`<option value="${status}" ${status === filter && 'selected'}>${statusLabel(page.lang, status)}</option>`)
  const body = rows.length === 0
    ? html`<p>${t('noCharges')}</p>`
    : html`<table><thead><tr><th scope="col">${t('created')}</th><th scope="col">${t('amount')}</th><th scope="col">${t('status')}</th><th scope="col">${t('role')}</th><th scope="col">id</th></tr></thead><tbody>${rows.map(
        (row) => html`<tr><td>${time(page.lang, row.createdAt)}</td><td>${formatBrl(row.valueCents)}</td><td>${statusLabel(page.lang, row.status)}<br><code>${row.status}</code></td><td>${t(row.role)}</td><td><code class="id">${row.id}</code></td></tr>`,
      )}</tbody></table>`
  return layout({ ...page, title: 'charges', signedIn: true }, html`
<h1>${t('charges')}</h1>
<p>${t('chargesLead')}</p>
<form method="get" action="/wallet/charges" class="card row">
  <label>${t('status')}<select name="status"><option value="">${t('allStatuses')}</option>${options}</select></label>
  <button type="submit">${t('filter')}</button>
</form>
${body}
${nextHref !== null && html`<p><a href="${href(nextHref)}" rel="next">${t('next')}</a></p>`}`)
}

export type DeliveryRow = {
  id: string
  /** The charge or withdrawal the event is about. */
  subjectId: string
  event: string
  state: WebhookEventState
  attempts: Array<{ at: Date; statusCode: number | null; error: string | null }>
}

export function deliveriesPage(page: Page, rows: DeliveryRow[], queued: boolean): string {
  const t = texts(page.lang)
  const attempts = (row: DeliveryRow) =>
    row.attempts.map((attempt) => html`<li>${time(page.lang, attempt.at)}: ${attempt.statusCode ?? '—'}${attempt.error !== null && html` (${attempt.error})`}</li>`)
  const body = rows.length === 0
    ? html`<p>${t('noDeliveries')}</p>`
    : html`<table><thead><tr><th scope="col">${t('event')}</th><th scope="col">${t('status')}</th><th scope="col">${t('attempts')}</th><th scope="col"></th></tr></thead><tbody>${rows.map(
        (row) => html`<tr><td><code>${row.event}</code><br><code class="id">${row.subjectId}</code></td><td>${deliveryStateLabel(page.lang, row.state)}<br><code>${row.state}</code></td><td><ul class="attempts">${attempts(row)}</ul></td><td><form method="post" action="${href(`/wallet/deliveries/${encodeURIComponent(row.id)}/redeliver`)}">${csrfField(page.csrf)}<button type="submit">${t('redeliver')}</button></form></td></tr>`,
      )}</tbody></table>`
  return layout({ ...page, title: 'deliveries', signedIn: true }, html`
<h1>${t('deliveries')}</h1>
<p>${t('deliveriesLead')}</p>
${queued && html`<p class="ok" role="status">${t('redeliverQueued')}</p>`}
${body}`)
}

export function errorPage(page: Page & { signedIn: boolean }, message: string, code: string, csrfFailure: boolean): string {
  const t = texts(page.lang)
  return layout({ ...page, title: csrfFailure ? 'csrfTitle' : 'errorTitle' }, html`
<h1>${csrfFailure ? t('csrfTitle') : t('errorTitle')}</h1>
<p class="error" data-code="${code}">${csrfFailure ? t('csrfText') : message}</p>
<p><a href="/wallet">${t('backToWallet')}</a></p>`)
}
