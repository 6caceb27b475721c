// The Wallet's HTML: server-rendered through the one template (html/template.ts: every value
// escaped), no inline script or style (the CSP forbids them), forms that work without JavaScript.
// wallet.js only adds copy buttons and status refresh. Every text comes from the catalogue.
import { chargeStatuses, type ChargeStatus, type WebhookEventState } from '../domain/charge.ts'
import { formatAmount, formatBrl, formatUnits, type Currency } from '../domain/money.ts'
import type { StatementLineType } from '../domain/statement.ts'
import { maskTaxNumber } from '../domain/tax-number.ts'
import { html, href, type Html } from '../html/template.ts'
import { csrfField, shell, time } from '../html/shell.ts'
import type { MerchantRefund } from '../store/schema.ts'
import type { ChargeRow } from '../app/account-charges.ts'
import type { Overview } from '../app/account-overview.ts'
import { catalogues, deliveryStateLabel, formatDateTime, statusLabel, texts, translate, type Lang, type WalletKey } from '../i18n/catalogue.ts'

export { csrfField, texts, time }

/** `timeZone`: the owner's, on the pages that show the owner's money (São Paulo when absent). */
export type Page = { lang: Lang; csrf: string; timeZone?: string }
type Layout = Page & { title: WalletKey; signedIn: boolean }

function when(lang: Lang, date: Date | null): string {
  return date === null ? translate(lang, 'never') : formatDateTime(lang, date)
}

export function layout(page: Layout, body: Html): string {
  const t = texts(page.lang)
  const other = page.lang === 'en' ? 'pt-BR' : 'en'
  return shell({
    lang: page.lang,
    title: `${t(page.title)} · ${t('title')}`,
    brand: html`<a class="brand" href="/wallet">Pix · ${t('title')}</a>`,
    navLabel: t('nav'),
    nav: html`${page.signedIn && html`<a href="/wallet/charges">${t('charges')}</a><a href="/wallet/statement">${t('statement')}</a><a href="/wallet/links">${t('links')}</a><a href="/wallet/withdrawals">${t('withdrawals')}</a><a href="/wallet/destinations">${t('destinations')}</a><a href="/wallet/deliveries">${t('deliveries')}</a><a href="/wallet/factors">${t('factorsNav')}</a>`}
    <a href="/wallet/lang/${other}" lang="${other}">${catalogues[page.lang].otherLanguage}</a>
    ${page.signedIn && html`<form method="post" action="/wallet/sign-out" class="inline">${csrfField(page.csrf)}<button type="submit" class="link">${t('signOut')}</button></form>`}`,
    body,
  })
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

/** What the Wallet says of the account's current token: never its value. */
function currentToken(lang: Lang, overview: Overview): Html {
  const t = texts(lang)
  return overview.token
    ? html`<p>${t('tokenCurrent', { last4: overview.token.last4 ?? '····', created: when(lang, overview.token.createdAt), lastUsed: when(lang, overview.token.lastUsedAt) })}</p>`
    : html`<p>${t('tokenNone')}</p>`
}

export function dashboardPage(page: Page, overview: Overview, supportEmail: string, tokenNonce: string, factors: Html | null = null, saved = false): string {
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
${factors}
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

export function chargesPage(page: Page, rows: ChargeRow[], filter: ChargeStatus | null, nextHref: string | null): string {
  const t = texts(page.lang)
  const options = chargeStatuses.map((status) => html`<option value="${status}" ${status === filter && 'selected'}>${statusLabel(page.lang, status)}</option>`)
  const body = rows.length === 0
    ? html`<p>${t('noCharges')}</p>`
    : html`<ol class="lines charges">${rows.map((row) => html`<li data-charge="${row.id}" data-status="${row.status}">
<a class="what" href="${href(`/wallet/charges/${encodeURIComponent(row.id)}`)}"><span class="kind">${statusLabel(page.lang, row.status)}</span> · ${t(row.role)}<br>${time(page.lang, row.createdAt, page.timeZone)}</a>
<span class="money"><b>${formatBrl(row.valueCents)}</b>${row.creditedUnits !== null && html`<br><small>${t('net')} ${formatAmount(row.currency, row.creditedUnits)}</small>`}</span>
</li>`)}</ol>`
  return layout({ ...page, title: 'charges', signedIn: true }, html`
<h1>${t('charges')}</h1>
<p>${t('chargesLead')}</p>
<form method="get" action="/wallet/charges" class="card row">
  <label>${t('status')}<select name="status"><option value="">${t('allStatuses')}</option>${options}</select></label>
  <button type="submit">${t('filter')}</button>
</form>
${body}
${nextHref !== null && html`<p><a href="${href(nextHref)}" rel="next">${t('next')}</a></p>`}
<p class="downloads"><a href="/wallet/charges.csv" download>${t('exportCharges')}</a></p>`)
}

/** What a received charge's page shows of refunds: those made, and what is left to refund (null: none can be made now). */
export type ChargeRefunds = { rows: MerchantRefund[]; leftCents: number | null; made: boolean }

/** The refunds of a charge and, while some is left, the form that asks for the price of one. */
export function chargeRefundsSection(page: Page, chargeId: string, refunds: ChargeRefunds): Html | null {
  if (refunds.rows.length === 0 && refunds.leftCents === null) return null
  const t = texts(page.lang)
  const catalogue = catalogues[page.lang]
  return html`<section aria-labelledby="refunds"><h2 id="refunds">${t('refunds')}</h2>
${refunds.made && html`<p class="ok" role="status">${t('refundMade')}</p>`}
${refunds.rows.length > 0 && html`<ol class="lines refunds">${refunds.rows.map((row) => html`<li data-refund="${row.id}" data-status="${row.status}"><span class="what">${catalogue.refundStatuses[row.status]}${row.failure_code !== null && html`<br><small>${catalogue.refundFailures[row.failure_code]}</small>`}<br>${time(page.lang, row.created_at, page.timeZone)}</span><span class="money">${formatBrl(row.amount_cents)}<br><small>${t('refundAccountPays')} ${formatAmount(row.currency, row.units)}</small></span></li>`)}</ol>`}
${refunds.leftCents !== null && html`<form method="get" action="${href(`/wallet/charges/${encodeURIComponent(chargeId)}/refund`)}" class="card" aria-label="${t('refundTitle')}">
  <p>${t('refundLead', { left: formatBrl(refunds.leftCents) })}</p>
  <label>${t('refundAmount')}<input type="text" name="amount" required inputmode="decimal" maxlength="16" value="${formatUnits(refunds.leftCents, 2).replace('.', ',')}"></label>
  <button type="submit">${t('refundTitle')}</button>
</form>`}
</section>`
}

export type ChargeDetail = ChargeRow & {
  payerName: string | null
  payerTaxNumber: string | null
  confirmedAt: Date | null
  releaseAt: Date | null
  quoteMicros: number | null
  /** An identity purchase still waiting: its page shows the QR. */
  purchaseHref: string | null
  lines: Array<{ type: StatementLineType; currency: Currency; amount: number; at: Date }>
  refunds: ChargeRefunds
}

export function chargePage(page: Page, charge: ChargeDetail): string {
  const t = texts(page.lang)
  const types = catalogues[page.lang].statementTypes
  const row = (label: Html | string, value: Html | string) => html`<dt>${label}</dt><dd>${value}</dd>`
  return layout({ ...page, title: 'charge', signedIn: true }, html`
<h1>${t('charge')} · ${formatBrl(charge.valueCents)}</h1>
<dl class="breakdown" data-charge="${charge.id}">
  ${row(t('status'), html`<span data-status="${charge.status}">${statusLabel(page.lang, charge.status)}</span>`)}
  ${row(t('role'), t(charge.role))}
  ${row(t('chargedValue'), html`<span data-gross>${formatBrl(charge.valueCents)}</span>`)}
  ${row(t('paidValue'), charge.paidCents === null ? '—' : formatBrl(charge.paidCents))}
  ${row(t('fee'), html`<span data-fee>${charge.feeCents === null ? '—' : formatBrl(charge.feeCents)}</span>`)}
  ${row(t('net'), html`<span data-net>${charge.creditedUnits === null ? '—' : formatAmount(charge.currency, charge.creditedUnits)}</span>`)}
  ${charge.quoteMicros !== null && row(t('quote'), `R$ ${formatUnits(charge.quoteMicros, 6).replace('.', ',')} / ${charge.currency === 'BTC' ? 'L-BTC' : charge.currency}`)}
  ${charge.takenBackCents > 0 && row(t('takenBack'), formatBrl(charge.takenBackCents))}
  ${charge.payerName !== null && row(t('payer'), `${charge.payerName}${charge.payerTaxNumber === null ? '' : ` · ${maskTaxNumber(charge.payerTaxNumber)}`}`)}
  ${row(t('created'), time(page.lang, charge.createdAt, page.timeZone))}
  ${charge.confirmedAt !== null && row(t('confirmedAt'), time(page.lang, charge.confirmedAt, page.timeZone))}
  ${charge.releaseAt !== null && charge.status === 'after7d' && row(t('releaseAt'), time(page.lang, charge.releaseAt, page.timeZone))}
  ${row('id', html`<code class="id">${charge.id}</code>`)}
</dl>
${charge.purchaseHref !== null && html`<p><a href="${href(charge.purchaseHref)}">${t('showQr')}</a></p>`}
${chargeRefundsSection(page, charge.id, charge.refunds)}
${charge.lines.length > 0 && html`<h2>${t('statement')}</h2><ol class="lines">${charge.lines.map((line) => html`<li data-type="${line.type}"><span class="what">${types[line.type]}<br>${time(page.lang, line.at, page.timeZone)}</span><span class="money">${line.amount > 0 ? '+' : ''}${formatAmount(line.currency, line.amount)}</span></li>`)}</ol>`}
<p><a href="/wallet/charges">${t('charges')}</a> · <a href="/wallet/statement">${t('statement')}</a></p>`)
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
    row.attempts.map((attempt) => html`<li>${time(page.lang, attempt.at, page.timeZone)}: ${attempt.statusCode ?? '—'}${attempt.error !== null && html` (${attempt.error})`}</li>`)
  const body = rows.length === 0
    ? html`<p>${t('noDeliveries')}</p>`
    : html`<ol class="lines deliveries">${rows.map((row) => html`<li data-delivery="${row.id}" data-state="${row.state}">
<span class="what"><code>${row.event}</code> · <span class="state">${deliveryStateLabel(page.lang, row.state)}</span><br><code class="id">${row.subjectId}</code><ul class="attempts">${attempts(row)}</ul></span>
<form method="post" action="${href(`/wallet/deliveries/${encodeURIComponent(row.id)}/redeliver`)}">${csrfField(page.csrf)}<button type="submit">${t('redeliver')}</button></form>
</li>`)}</ol>`
  return layout({ ...page, title: 'deliveries', signedIn: true }, html`
<h1>${t('deliveries')}</h1>
<p>${t('deliveriesLead')}</p>
${queued && html`<p class="ok" role="status">${t('redeliverQueued')}</p>`}
${body}`)
}

export function errorPage(page: Page & { signedIn: boolean }, message: string, code: string, csrfFailure: boolean, stepUpNext: string | null = null): string {
  const t = texts(page.lang)
  return layout({ ...page, title: csrfFailure ? 'csrfTitle' : 'errorTitle' }, html`
<h1>${csrfFailure ? t('csrfTitle') : t('errorTitle')}</h1>
<p class="error" data-code="${code}">${csrfFailure ? t('csrfText') : message}</p>
${stepUpNext !== null && html`<p><a href="${href(`/wallet/check?next=${encodeURIComponent(stepUpNext)}`)}">${t('stepUpLink')}</a></p>`}
<p><a href="/wallet">${t('backToWallet')}</a></p>`)
}
