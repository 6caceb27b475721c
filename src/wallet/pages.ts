// The Wallet's HTML: server-rendered, every value escaped, no inline script or style (the CSP
// forbids them), forms that work without JavaScript. wallet.js only adds copy buttons and status
// refresh.
import { chargeStatuses, type ChargeStatus } from '../domain/charge.ts'
import { formatBrl, formatBtc, formatUsdt } from '../domain/money.ts'
import { maskTaxNumber } from '../domain/tax-number.ts'
import { statusLabel, translate, type Lang, type MessageKey } from './i18n.ts'

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

type Page = { lang: Lang; title: MessageKey; csrf: string; signedIn: boolean }

function when(lang: Lang, date: Date | null): string {
  if (date === null) return translate(lang, 'never')
  return new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'short', timeZone: 'America/Sao_Paulo' }).format(date)
}

function layout(page: Page, body: string): string {
  const t = (key: MessageKey) => escapeHtml(translate(page.lang, key))
  const other = page.lang === 'en' ? 'pt-BR' : 'en'
  return `<!doctype html>
<html lang="${page.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t(page.title)} · ${t('title')}</title>
<link rel="stylesheet" href="/wallet/assets/wallet.css">
<script src="/wallet/assets/wallet.js" defer></script>
</head>
<body>
<header class="top">
  <a class="brand" href="/wallet">Pix · ${t('title')}</a>
  <nav aria-label="${t('nav')}">
    ${page.signedIn ? `<a href="/wallet/charges">${t('charges')}</a><a href="/wallet/deliveries">${t('deliveries')}</a>` : ''}
    <a href="/wallet/lang/${other}" lang="${other}">${t('language')}</a>
    ${page.signedIn ? `<form method="post" action="/wallet/sign-out" class="inline">${csrfField(page.csrf)}<button type="submit" class="link">${t('signOut')}</button></form>` : ''}
  </nav>
</header>
<main>
${body}
</main>
</body>
</html>`
}

function csrfField(csrf: string): string {
  return `<input type="hidden" name="_csrf" value="${escapeHtml(csrf)}">`
}

export function signInPage(page: Omit<Page, 'title' | 'signedIn'>): string {
  const t = (key: MessageKey) => escapeHtml(translate(page.lang, key))
  return layout({ ...page, title: 'signInTitle', signedIn: false }, `
<h1>${t('signInTitle')}</h1>
<p>${t('signInLead')}</p>
<form method="post" action="/wallet/sign-in" class="card">
  ${csrfField(page.csrf)}
  <label>${t('email')}<input type="email" name="email" required maxlength="254" autocomplete="email"></label>
  <button type="submit">${t('sendCode')}</button>
</form>
<p>${t('noAccount')} <a href="/wallet/sign-up">${t('signUpLink')}</a></p>`)
}

export function signUpPage(page: Omit<Page, 'title' | 'signedIn'>): string {
  const t = (key: MessageKey) => escapeHtml(translate(page.lang, key))
  return layout({ ...page, title: 'signUpTitle', signedIn: false }, `
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

export function codePage(page: Omit<Page, 'title' | 'signedIn'>, email: string, mailFailing: boolean): string {
  const t = (key: MessageKey) => escapeHtml(translate(page.lang, key))
  return layout({ ...page, title: 'codeTitle', signedIn: false }, `
<h1>${t('codeTitle')}</h1>
<p>${escapeHtml(translate(page.lang, 'codeSent', { email }))}</p>${mailFailing ? `
<p class="guidance" role="status" data-code="mail_failing">${t('mailFailing')}</p>` : ''}
<form method="post" action="/wallet/code" class="card">
  ${csrfField(page.csrf)}
  <input type="hidden" name="email" value="${escapeHtml(email)}">
  <label>${t('code')}<input type="text" name="code" required inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code"></label>
  <button type="submit">${t('confirm')}</button>
</form>
<p><a href="/wallet">${t('newCode')}</a></p>`)
}

export type Overview = {
  email: string
  ownerTaxNumber: string | null
  kyc: 'none' | 'unidentified' | 'verified'
  euid: string | null
  available: { DEPIX: number; BTC: number; USDt: number }
  held: { DEPIX: number; BTC: number; USDt: number }
  token: { last4: string | null; createdAt: Date; lastUsedAt: Date | null } | null
}

const formats = { DEPIX: formatBrl, BTC: formatBtc, USDt: formatUsdt } as const

/** What the Wallet says of the account's current token: never its value. */
function currentToken(page: Omit<Page, 'title' | 'signedIn'>, overview: Overview): string {
  const t = (key: MessageKey, values: Record<string, string> = {}) => escapeHtml(translate(page.lang, key, values))
  return overview.token
    ? `<p>${t('tokenCurrent', { last4: overview.token.last4 ?? '····', created: when(page.lang, overview.token.createdAt), lastUsed: when(page.lang, overview.token.lastUsedAt) })}</p>`
    : `<p>${t('tokenNone')}</p>`
}

export function dashboardPage(page: Omit<Page, 'title' | 'signedIn'>, overview: Overview, supportEmail: string, tokenNonce: string): string {
  const t = (key: MessageKey, values: Record<string, string> = {}) => escapeHtml(translate(page.lang, key, values))
  const rows = (['DEPIX', 'BTC', 'USDt'] as const)
    .map((currency) => `<tr><th scope="row">${currency}</th><td>${escapeHtml(formats[currency](overview.available[currency]))}</td><td>${escapeHtml(formats[currency](overview.held[currency]))}</td></tr>`)
    .join('')
  const taxNumber = overview.ownerTaxNumber === null ? '' : maskTaxNumber(overview.ownerTaxNumber)
  const identity =
    overview.kyc === 'verified'
      ? `<p class="ok">${t('identityVerified', { euid: overview.euid ?? '' })}</p>`
      : overview.kyc === 'unidentified'
        ? `<p class="guidance" data-code="kyc_identity_unidentified">${t('identityUnidentified', { support: supportEmail })}</p>`
        : `<p class="guidance" data-code="kyc_purchase_required">${t('identityNone', { taxNumber })}</p>`
  const token = currentToken(page, overview)
  const canIssue = overview.kyc === 'verified'
  return layout({ ...page, title: 'account', signedIn: true }, `
<h1>${escapeHtml(overview.email)}</h1>
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
${token}
<form method="post" action="/wallet/token" class="card">
  ${csrfField(page.csrf)}
  <input type="hidden" name="nonce" value="${escapeHtml(tokenNonce)}">
  <label class="check"><input type="checkbox" name="confirm" value="yes" required ${canIssue ? '' : 'disabled'}> ${t('tokenConfirm')}</label>
  <button type="submit" ${canIssue ? '' : 'disabled'}>${t('newToken')}</button>
</form>
</section>`)
}

export type PurchaseView = { id: string; status: ChargeStatus; qrCopyPaste: string; qrImageUrl: string; expiresAt: Date; valueCents: number; ownerTaxNumber: string }

export function purchasePage(page: Omit<Page, 'title' | 'signedIn'>, purchase: PurchaseView, sandbox: boolean): string {
  const t = (key: MessageKey, values: Record<string, string> = {}) => escapeHtml(translate(page.lang, key, values))
  const waiting = purchase.status === 'waiting_payment'
  return layout({ ...page, title: 'purchaseTitle', signedIn: true }, `
<h1>${t('purchaseTitle')} · ${escapeHtml(formatBrl(purchase.valueCents))}</h1>
<p>${t('purchaseLead', { taxNumber: maskTaxNumber(purchase.ownerTaxNumber) })}</p>
<div class="purchase">
  <img src="${escapeHtml(purchase.qrImageUrl)}" alt="${t('qrAlt')}" width="240" height="240">
  <div>
    <label for="copy-paste">${t('copyPaste')}</label>
    <textarea id="copy-paste" readonly rows="4">${escapeHtml(purchase.qrCopyPaste)}</textarea>
    <button type="button" data-copy="copy-paste" data-copied="${t('copied')}" hidden>${t('copy')}</button>
    <dl>
      <dt>${t('expiresAt')}</dt><dd><time datetime="${purchase.expiresAt.toISOString()}">${escapeHtml(when(page.lang, purchase.expiresAt))}</time></dd>
      <dt>${t('status')}</dt><dd><output id="status" data-status="${purchase.status}" data-poll="/wallet/purchases/${purchase.id}/status">${escapeHtml(statusLabel(page.lang, purchase.status))}</output></dd>
    </dl>
    <p><a href="/wallet/purchases/${purchase.id}">${t('refresh')}</a> · <a href="/wallet">${t('backToWallet')}</a></p>
    ${sandbox && waiting ? `<form method="post" action="/wallet/purchases/${purchase.id}/simulate">${csrfField(page.csrf)}<button type="submit">${t('simulate')}</button></form>` : ''}
  </div>
</div>`)
}

export function tokenPage(page: Omit<Page, 'title' | 'signedIn'>, token: string): string {
  const t = (key: MessageKey) => escapeHtml(translate(page.lang, key))
  return layout({ ...page, title: 'tokenShownTitle', signedIn: true }, `
<h1>${t('tokenShownTitle')}</h1>
<p class="guidance">${t('tokenShownLead')}</p>
<label for="token">${t('tokenTitle')}</label>
<input id="token" class="token" type="text" readonly value="${escapeHtml(token)}">
<button type="button" data-copy="token" data-copied="${t('copied')}" hidden>${t('copy')}</button>
<p><a href="/wallet">${t('backToWallet')}</a></p>`)
}

/** The token page read again (a reload, the back button): the token was shown once, and is not shown again. */
export function tokenShownPage(page: Omit<Page, 'title' | 'signedIn'>, overview: Overview): string {
  const t = (key: MessageKey) => escapeHtml(translate(page.lang, key))
  return layout({ ...page, title: 'tokenAlreadyShownTitle', signedIn: true }, `
<h1>${t('tokenAlreadyShownTitle')}</h1>
<p class="guidance" role="status">${t('tokenAlreadyShown')}</p>
${currentToken(page, overview)}
<p><a href="/wallet">${t('backToWallet')}</a></p>`)
}

export type ChargeRow = { id: string; status: ChargeStatus; valueCents: number; createdAt: Date; role: 'received' | 'asMerchant' | 'identityPurchase' }

export function chargesPage(page: Omit<Page, 'title' | 'signedIn'>, rows: ChargeRow[], filter: ChargeStatus | null, nextHref: string | null): string {
  const t = (key: MessageKey) => escapeHtml(translate(page.lang, key))
  const options = [`<option value="">${t('allStatuses')}</option>`]
    .concat(chargeStatuses.map((status) => `<option value="${status}" ${status === filter ? 'selected' : ''}>${status}</option>`))
    .join('')
  const body = rows.length === 0
    ? `<p>${t('noCharges')}</p>`
    : `<table><thead><tr><th scope="col">${t('created')}</th><th scope="col">${t('amount')}</th><th scope="col">${t('status')}</th><th scope="col">${t('role')}</th><th scope="col">id</th></tr></thead><tbody>${rows
        .map((row) => `<tr><td>${escapeHtml(when(page.lang, row.createdAt))}</td><td>${escapeHtml(formatBrl(row.valueCents))}</td><td>${escapeHtml(statusLabel(page.lang, row.status))}<br><code>${row.status}</code></td><td>${t(row.role)}</td><td><code class="id">${row.id}</code></td></tr>`)
        .join('')}</tbody></table>`
  return layout({ ...page, title: 'charges', signedIn: true }, `
<h1>${t('charges')}</h1>
<p>${t('chargesLead')}</p>
<form method="get" action="/wallet/charges" class="card row">
  <label>${t('status')}<select name="status">${options}</select></label>
  <button type="submit">${t('filter')}</button>
</form>
${body}
${nextHref ? `<p><a href="${escapeHtml(nextHref)}" rel="next">${t('next')}</a></p>` : ''}`)
}

export type DeliveryRow = { id: string; paymentId: string; event: string; state: string; attempts: Array<{ at: string; statusCode: number | null; error: string | null }> }

export function deliveriesPage(page: Omit<Page, 'title' | 'signedIn'>, rows: DeliveryRow[], queued: boolean): string {
  const t = (key: MessageKey) => escapeHtml(translate(page.lang, key))
  const body = rows.length === 0
    ? `<p>${t('noDeliveries')}</p>`
    : `<table><thead><tr><th scope="col">${t('event')}</th><th scope="col">${t('status')}</th><th scope="col">${t('attempts')}</th><th scope="col"></th></tr></thead><tbody>${rows
        .map((row) => `<tr><td><code>${escapeHtml(row.event)}</code><br><code class="id">${row.paymentId}</code></td><td><code>${escapeHtml(row.state)}</code></td><td><ul class="attempts">${row.attempts
          .map((attempt) => `<li>${escapeHtml(attempt.at)}: ${attempt.statusCode ?? '—'}${attempt.error ? ` (${escapeHtml(attempt.error)})` : ''}</li>`)
          .join('')}</ul></td><td><form method="post" action="/wallet/deliveries/${escapeHtml(row.id)}/redeliver">${csrfField(page.csrf)}<button type="submit">${t('redeliver')}</button></form></td></tr>`)
        .join('')}</tbody></table>`
  return layout({ ...page, title: 'deliveries', signedIn: true }, `
<h1>${t('deliveries')}</h1>
<p>${t('deliveriesLead')}</p>
${queued ? `<p class="ok" role="status">${t('redeliverQueued')}</p>` : ''}
${body}`)
}

export function errorPage(page: Omit<Page, 'title'>, message: string, code: string, csrfFailure: boolean): string {
  const t = (key: MessageKey) => escapeHtml(translate(page.lang, key))
  return layout({ ...page, title: csrfFailure ? 'csrfTitle' : 'errorTitle' }, `
<h1>${csrfFailure ? t('csrfTitle') : t('errorTitle')}</h1>
<p class="error" data-code="${escapeHtml(code)}">${escapeHtml(csrfFailure ? translate(page.lang, 'csrfText') : message)}</p>
<p><a href="/wallet">${t('backToWallet')}</a></p>`)
}
