// The Wallet's "Extrato": a period's movements of the balance with its totals, and the CSV
// exports (docs/statements.md). A list of rows, not a wide table, so it reads at 375 px.
import { currencies, formatAmount, type Currency } from '../domain/money.ts'
import type { StatementLineType } from '../domain/statement.ts'
import { html, href } from '../html/template.ts'
import { catalogues, type Lang } from '../i18n/catalogue.ts'
import { csrfField, layout, texts, type Page } from './pages.ts'

export type ExtratoLine = {
  id: string
  type: StatementLineType
  currency: Currency
  amount: number
  /** What it changed in the available part: a hold released or a withdrawal set aside moves only that. */
  available: number
  balanceAfter: number
  chargeId: string | null
  withdrawalId: string | null
  /** The moment in the owner's time zone, and its instant. */
  local: string
  at: Date
}

export type ExtratoSummary = { currency: Currency; opening: number; in: number; out: number; fees: number; closing: number; availableClosing: number }

export type ExtratoQuery = { month: string; from: string; to: string; currency: Currency | null }

function signed(currency: Currency, amount: number): string {
  return amount > 0 ? `+${formatAmount(currency, amount)}` : formatAmount(currency, amount)
}

/** Where a line's charge or withdrawal is shown. */
function subjectLink(lang: Lang, line: ExtratoLine) {
  if (line.withdrawalId !== null) return html`<a href="${href(`/wallet/withdrawals/${encodeURIComponent(line.withdrawalId)}`)}">${texts(lang)('withdrawal')} ${line.withdrawalId.slice(-6)}</a>`
  if (line.chargeId !== null) return html`<a href="${href(`/wallet/charges/${encodeURIComponent(line.chargeId)}`)}">${texts(lang)('charge')} ${line.chargeId.slice(0, 6)}</a>`
  return ''
}

export function statementPage(page: Page, view: { query: ExtratoQuery; zone: string; zones: readonly string[]; lines: ExtratoLine[]; more: boolean; summary: ExtratoSummary[]; csvQuery: string }): string {
  const t = texts(page.lang)
  const types = catalogues[page.lang].statementTypes
  const { query } = view
  const csv = (flavour: 'br' | 'standard') => `/wallet/statement.csv?${view.csvQuery}${view.csvQuery ? '&' : ''}flavour=${flavour}`
  const summary = view.summary.map((sums) => html`<section class="total" data-currency="${sums.currency}"><h3>${sums.currency}</h3><dl class="totals">
<dt>${t('openingBalance')}</dt><dd>${formatAmount(sums.currency, sums.opening)}</dd>
<dt>${t('moneyIn')}</dt><dd class="in" data-total="in">${formatAmount(sums.currency, sums.in)}</dd>
<dt>${t('moneyOut')}</dt><dd class="out" data-total="out">${formatAmount(sums.currency, -sums.out)}</dd>
<dt>${t('feesPaid')}</dt><dd data-total="fees">${formatAmount(sums.currency, -sums.fees)}</dd>
<dt>${t('closingBalance')}</dt><dd data-total="closing"><b>${formatAmount(sums.currency, sums.closing)}</b></dd>
<dt>${t('availableClosing')}</dt><dd>${formatAmount(sums.currency, sums.availableClosing)}</dd>
</dl></section>`)
  const lines = view.lines.length === 0
    ? html`<p>${t('noLines')}</p>`
    : html`<ol class="lines">${view.lines.map((line) => html`<li data-type="${line.type}" data-line="${line.id}">
<span class="what"><span class="kind">${types[line.type]}</span> <span class="ref">${subjectLink(page.lang, line)}</span><br><time datetime="${line.at.toISOString()}">${line.local}</time></span>
<span class="money">${line.amount === 0 && line.available !== 0
    ? html`<span class="amount moved" data-available><small>${t('available')}</small> ${signed(line.currency, line.available)}</span>`
    : html`<span class="${line.amount < 0 ? 'amount out' : line.amount > 0 ? 'amount in' : 'amount'}">${signed(line.currency, line.amount)}</span>`}<br><small>${t('balanceAfterShort')} ${formatAmount(line.currency, line.balanceAfter)}</small></span>
</li>`)}</ol>`
  const options = currencies.map((currency) => html`<option value="${currency}" ${currency === query.currency && 'selected'}>${currency}</option>`)
  return layout({ ...page, title: 'statement', signedIn: true }, html`
<h1>${t('statement')}</h1>
<p>${t('statementLead', { zone: view.zone })}</p>
<form method="get" action="/wallet/statement" class="card period">
  <label>${t('month')}<input type="month" name="month" value="${query.month}" pattern="[0-9]{4}-[0-9]{2}"></label>
  <label>${t('fromDay')}<input type="date" name="from" value="${query.from}"></label>
  <label>${t('toDay')}<input type="date" name="to" value="${query.to}"></label>
  <label>${t('currency')}<select name="currency"><option value="">${t('allCurrencies')}</option>${options}</select></label>
  <button type="submit">${t('show')}</button>
</form>
<div class="totals-row">${summary}</div>
<p class="downloads"><a href="${href(csv('br'))}" download>${t('downloadCsv')}</a> · <a href="${href(csv('standard'))}" download>${t('downloadCsvStandard')}</a></p>
${view.more && html`<p class="guidance">${t('moreLines')}</p>`}
${lines}
<p class="downloads"><a href="/wallet/charges.csv" download>${t('exportCharges')}</a> · <a href="/wallet/withdrawals.csv" download>${t('exportWithdrawals')}</a></p>
<form method="post" action="/wallet/time-zone" class="card row">
  ${csrfField(page.csrf)}
  <label>${t('timeZone')}<select name="time_zone">${view.zones.map((zone) => html`<option value="${zone}" ${zone === view.zone && 'selected'}>${zone}</option>`)}</select></label>
  <button type="submit">${t('save')}</button>
</form>`)
}
