// The Wallet's "Destinos" and "Sacar" pages (docs/rules.md#withdrawal-requests), through the same
// template and catalogue as every other page.
import { currencies, formatAmount, type Currency } from '../domain/money.ts'
import { isCancelable, pixPayoutFee, type WithdrawalStatus } from '../domain/withdrawal.ts'
import { html, href, type Html } from '../html/template.ts'
import { catalogues, formatDateTime, type Lang } from '../i18n/catalogue.ts'
import { csrfField, layout, texts, time, type Page } from './pages.ts'

export type DestinationRow = { id: string; type: 'pix' | 'liquid'; masked: string; label: string | null; state: 'unconfirmed' | 'cooling_down' | 'active'; usableAt: Date | null }

const destinationName = (row: Pick<DestinationRow, 'type' | 'masked' | 'label'>) => `${row.label === null ? '' : `${row.label} · `}${row.type === 'pix' ? 'Pix' : 'Liquid'} ${row.masked}`

function stateText(lang: Lang, row: DestinationRow): string {
  const t = texts(lang)
  if (row.state === 'cooling_down') return t('destinationState_cooling_down', { when: row.usableAt === null ? '' : formatDateTime(lang, row.usableAt) })
  return t(row.state === 'active' ? 'destinationState_active' : 'destinationState_unconfirmed')
}

export function destinationsPage(page: Page, rows: DestinationRow[], ownTaxNumber: string, cooldownHours: number, notice: 'confirmed' | 'canceled' | null): string {
  const t = texts(page.lang)
  const list = rows.length === 0
    ? html`<p>${t('noDestinations')}</p>`
    : html`<ul class="destinations">${rows.map((row) => html`<li data-state="${row.state}"><span>${destinationName(row)}</span> — <span>${stateText(page.lang, row)}</span>
  ${row.state === 'unconfirmed' && html`<a href="${href(`/wallet/destinations/${encodeURIComponent(row.id)}`)}">${t('confirm')}</a>`}
  <form method="post" action="${href(`/wallet/destinations/${encodeURIComponent(row.id)}/cancel`)}" class="inline">${csrfField(page.csrf)}<button type="submit" class="link">${t('cancel')}</button></form></li>`)}</ul>`
  return layout({ ...page, title: 'destinations', signedIn: true }, html`
<h1>${t('destinations')}</h1>
<p>${t('destinationsLead', { hours: String(cooldownHours) })}</p>
${notice !== null && html`<p class="ok" role="status">${t(notice === 'confirmed' ? 'destinationConfirmed' : 'destinationCanceled')}</p>`}
${list}
<section aria-labelledby="add"><h2 id="add">${t('addDestination')}</h2>
<form method="post" action="/wallet/destinations" class="card">
  ${csrfField(page.csrf)}
  <fieldset><legend>${t('destinationType')}</legend>
    <label class="check"><input type="radio" name="type" value="pix" checked> ${t('pixKey')}</label>
    <label class="check"><input type="radio" name="type" value="liquid"> ${t('liquidAddress')}</label>
  </fieldset>
  <label>${t('destinationValue')}<input type="text" name="value" required maxlength="200" autocomplete="off" spellcheck="false" placeholder="${ownTaxNumber}"></label>
  <label>${t('label')}<input type="text" name="label" maxlength="40" autocomplete="off"></label>
  <button type="submit">${t('addDestination')}</button>
</form>
</section>`)
}

export function confirmDestinationPage(page: Page, row: DestinationRow, email: string): string {
  const t = texts(page.lang)
  return layout({ ...page, title: 'confirmDestinationTitle', signedIn: true }, html`
<h1>${t('confirmDestinationTitle')}</h1>
<p>${t('confirmDestinationLead', { email, destination: destinationName(row) })}</p>
<form method="post" action="${href(`/wallet/destinations/${encodeURIComponent(row.id)}/confirm`)}" class="card">
  ${csrfField(page.csrf)}
  <label>${t('code')}<input type="text" name="code" required inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code"></label>
  <button type="submit">${t('confirm')}</button>
</form>
<p><a href="/wallet/destinations">${t('destinations')}</a></p>`)
}

/** The page an e-mail's cancel link opens: a button, so a link preview or a mail scanner cancels nothing. */
export function cancelDestinationPage(page: Page & { signedIn: boolean }, row: DestinationRow, token: string, done: boolean): string {
  const t = texts(page.lang)
  return layout({ ...page, title: 'cancelDestinationTitle' }, html`
<h1>${t('cancelDestinationTitle')}</h1>
${done ? html`<p class="ok" role="status">${t('destinationCanceled')}</p>` : html`<p>${t('cancelDestinationLead', { destination: destinationName(row) })}</p>
<form method="post" action="${href(`/wallet/destinations/cancel/${encodeURIComponent(token)}`)}" class="card">
  ${csrfField(page.csrf)}
  <button type="submit">${t('cancel')}</button>
</form>`}`)
}

export type WithdrawalRow = {
  id: string
  status: WithdrawalStatus
  currency: Currency
  amount: number
  fee: number
  net: number
  payoutCents: number | null
  destination: Pick<DestinationRow, 'type' | 'masked' | 'label'>
  txid: string | null
  /** A Pix withdrawal's receipt, as the provider gives it once the Pix is paid. */
  receiptUrl: string | null
  reason: string | null
  createdAt: Date
}

/** What reaches the destination: the Pix key's amount after the provider's fee, or what was sent on Liquid. */
const arrives = (row: WithdrawalRow) => (row.payoutCents === null ? formatAmount(row.currency, row.net) : formatAmount('DEPIX', row.payoutCents))

function statusOf(lang: Lang, row: WithdrawalRow): Html {
  const texts = catalogues[lang]
  return html`<span data-status="${row.status}">${texts.withdrawalStatuses[row.status]}</span>`
}

export function withdrawalsPage(page: Page, rows: WithdrawalRow[], destinations: DestinationRow[], available: Record<Currency, number>): string {
  const t = texts(page.lang)
  const active = destinations.filter((row) => row.state === 'active')
  const form = active.length === 0
    ? html`<p class="guidance">${t('noActiveDestinations')} <a href="/wallet/destinations">${t('destinations')}</a></p>`
    : html`<form method="post" action="/wallet/withdrawals" class="card">
  ${csrfField(page.csrf)}
  <label>${t('destination')}<select name="destination_id">${active.map((row) => html`<option value="${row.id}">${destinationName(row)}</option>`)}</select></label>
  <label>${t('currency')}<select name="currency">${currencies.map((currency) => html`<option value="${currency}">${currency === 'BTC' ? 'L-BTC' : currency} (${t('available')}: ${formatAmount(currency, available[currency])})</option>`)}</select></label>
  <label>${t('amount')}<input type="text" name="amount" required inputmode="decimal" maxlength="24" autocomplete="off"></label>
  <button type="submit">${t('continue')}</button>
</form>`
  const list = rows.length === 0
    ? html`<p>${t('noWithdrawals')}</p>`
    : html`<ol class="lines withdrawals">${rows.map((row) => html`<li data-withdrawal="${row.id}">
<a class="what" href="${href(`/wallet/withdrawals/${encodeURIComponent(row.id)}`)}">${statusOf(page.lang, row)}<br><small>${destinationName(row.destination)}</small><br>${time(page.lang, row.createdAt, page.timeZone)}</a>
<span class="money"><b>${formatAmount(row.currency, row.amount)}</b><br><small>${t('fee')} ${formatAmount(row.currency, row.fee)}</small><br><small data-arrives>${t('arrives')}: ${arrives(row)}</small></span>
</li>`)}</ol>`
  return layout({ ...page, title: 'withdrawals', signedIn: true }, html`
<h1>${t('withdrawals')}</h1>
<section aria-labelledby="withdraw"><h2 id="withdraw">${t('withdrawTitle')}</h2>
<p>${t('withdrawLead')}</p>
${form}
</section>
${list}
<p class="downloads"><a href="/wallet/withdrawals.csv" download>${t('exportWithdrawals')}</a></p>`)
}

export function withdrawalPage(page: Page, row: WithdrawalRow, email: string): string {
  const t = texts(page.lang)
  const base = `/wallet/withdrawals/${encodeURIComponent(row.id)}`
  const providerFee = row.payoutCents === null ? null : pixPayoutFee(row.net)
  return layout({ ...page, title: 'withdrawalTitle', signedIn: true }, html`
<h1>${t('withdrawalTitle')} · ${formatAmount(row.currency, row.amount)}</h1>
<dl class="breakdown">
  <dt>${t('destination')}</dt><dd>${destinationName(row.destination)}</dd>
  <dt>${t('amount')}</dt><dd>${formatAmount(row.currency, row.amount)}</dd>
  <dt>${t('fee')}</dt><dd>${formatAmount(row.currency, row.fee)}</dd>
  ${providerFee !== null && html`<dt>${t('providerFee')}</dt><dd>${formatAmount('DEPIX', providerFee)}</dd>`}
  <dt>${t('arrives')}</dt><dd data-arrives>${arrives(row)}</dd>
  <dt>${t('status')}</dt><dd>${statusOf(page.lang, row)}</dd>
  ${row.reason !== null && html`<dt>${t('reason')}</dt><dd>${row.reason}</dd>`}
  ${row.destination.type === 'pix'
    ? row.receiptUrl !== null && html`<dt>${t('receipt')}</dt><dd><a href="${href(row.receiptUrl)}" rel="noreferrer" data-receipt>${t('receipt')}</a></dd>`
    : row.txid !== null && html`<dt>${t('transaction')}</dt><dd><code class="id">${row.txid}</code></dd>`}
</dl>
${row.status === 'requested' && html`<p>${t('withdrawalCodeLead', { email })}</p>
<form method="post" action="${href(`${base}/confirm`)}" class="card">
  ${csrfField(page.csrf)}
  <label>${t('code')}<input type="text" name="code" required inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code"></label>
  <button type="submit">${t('confirmWithdrawal')}</button>
</form>`}
${isCancelable(row.status) && html`<form method="post" action="${href(`${base}/cancel`)}">${csrfField(page.csrf)}<button type="submit" class="link">${t('cancelWithdrawal')}</button></form>`}
<p><a href="${href(base)}">${t('refresh')}</a> · <a href="/wallet/withdrawals">${t('withdrawals')}</a></p>`)
}
