// The Wallet's payment links (docs/payment-pages.md): the owner's links with their sales, a form
// to publish one, and each link's charges. Through the one template, every text from the catalogue.
import type { PaymentLinkRecord } from '../contract/api.ts'
import type { ChargeStatus } from '../domain/charge.ts'
import { currencies } from '../domain/money.ts'
import { formatAmount, formatBrl } from '../domain/money.ts'
import { html, href } from '../html/template.ts'
import { statusLabel } from '../i18n/catalogue.ts'
import { csrfField, layout, texts, time, type Page } from './pages.ts'

function price(page: Page, link: PaymentLinkRecord): string {
  const t = texts(page.lang)
  return link.amount_cents !== null ? formatBrl(link.amount_cents) : t('linkOpen', { min: formatBrl(link.min_cents!), max: formatBrl(link.max_cents!) })
}

export function linksPage(page: Page, links: PaymentLinkRecord[], canCreate: boolean, nextHref: string | null = null): string {
  const t = texts(page.lang)
  const rows = links.map((link) => html`<tr>
<td><a href="${href(`/wallet/links/${encodeURIComponent(link.id)}`)}">${link.title}</a><br><a class="id" href="${href(link.url)}">${link.url}</a></td>
<td>${price(page, link)}<br><small>${link.swap_to}</small></td>
<td>${t('linkSold', { paid: String(link.sales.paid), total: formatBrl(link.sales.paid_cents) })}${link.sales.open > 0 && html`<br><small>${t('linkOpenQrs', { open: String(link.sales.open) })}</small>`}</td>
<td>${link.active ? t('linkActive') : t('linkInactive')}${link.active && html`<form method="post" action="${href(`/wallet/links/${encodeURIComponent(link.id)}/deactivate`)}">${csrfField(page.csrf)}<button type="submit" class="link">${t('deactivate')}</button></form>`}</td>
</tr>`)
  const body = links.length === 0
    ? html`<p>${t('noLinks')}</p>`
    : html`<table><thead><tr><th scope="col">${t('linkTitle')}</th><th scope="col">${t('linkPrice')}</th><th scope="col">${t('linkSales')}</th><th scope="col">${t('linkState')}</th></tr></thead><tbody>${rows}</tbody></table>`
  const options = currencies.map((currency) => html`<option value="${currency}">${currency}</option>`)
  const form = canCreate
    ? html`<form method="post" action="/wallet/links" class="card">
  ${csrfField(page.csrf)}
  <label>${t('linkTitle')}<input type="text" name="title" required maxlength="80"></label>
  <label>${t('linkDescription')}<textarea name="description" rows="2" maxlength="500"></textarea></label>
  <label>${t('linkAmount')}<input type="text" name="amount" inputmode="decimal" maxlength="12" placeholder="10,00"></label>
  <p><small>${t('linkOpenHint')}</small></p>
  <label>${t('linkMin')}<input type="text" name="min_amount" inputmode="decimal" maxlength="12"></label>
  <label>${t('linkMax')}<input type="text" name="max_amount" inputmode="decimal" maxlength="12"></label>
  <label>${t('linkSwapTo')}<select name="swap_to">${options}</select></label>
  <label>${t('linkExpires')}<input type="datetime-local" name="expires_at"></label>
  <label>${t('linkMaxUses')}<input type="number" name="max_uses" min="1" max="1000000"></label>
  <label class="check"><input type="checkbox" name="notify_sales" value="yes" checked> ${t('linkNotify')}</label>
  <button type="submit">${t('createLink')}</button>
</form>`
    : html`<p class="guidance" data-code="kyc_purchase_required">${t('linksNeedIdentity')}</p>`
  return layout({ ...page, title: 'links', signedIn: true }, html`
<h1>${t('links')}</h1>
<p>${t('linksLead')}</p>
${body}
${nextHref !== null && html`<p><a href="${href(nextHref)}" rel="next">${t('next')}</a></p>`}
<h2>${t('newLink')}</h2>
${form}`)
}

export type LinkChargeRow = { id: string; status: ChargeStatus; valueCents: number; paidCents: number | null; createdAt: Date; payerName: string | null }

export function linkPage(page: Page, link: PaymentLinkRecord, charges: LinkChargeRow[]): string {
  const t = texts(page.lang)
  const rows = charges.map((charge) => html`<tr><td>${time(page.lang, charge.createdAt)}</td><td>${formatAmount('DEPIX', charge.paidCents ?? charge.valueCents)}</td><td>${statusLabel(page.lang, charge.status)}<br><code>${charge.status}</code></td><td>${charge.payerName ?? ''}</td><td><a class="id" href="${href(`/pay/${charge.id}`)}">${charge.id}</a></td></tr>`)
  return layout({ ...page, title: 'links', signedIn: true }, html`
<h1>${link.title}</h1>
<p><a href="${href(link.url)}">${link.url}</a></p>
<dl>
  <dt>${t('linkPrice')}</dt><dd>${price(page, link)} · ${link.swap_to}</dd>
  <dt>${t('linkSales')}</dt><dd>${t('linkSold', { paid: String(link.sales.paid), total: formatBrl(link.sales.paid_cents) })}</dd>
  <dt>${t('linkState')}</dt><dd>${link.active ? t('linkActive') : t('linkInactive')}</dd>
  <dt>${t('linkNotifyTitle')}</dt><dd>${link.notify_sales ? t('linkNotifyOn') : t('linkNotifyOff')}</dd>
</dl>
<form method="post" action="${href(`/wallet/links/${encodeURIComponent(link.id)}/notices`)}" class="card">
  ${csrfField(page.csrf)}
  <label class="check"><input type="checkbox" name="notify_sales" value="yes" ${link.notify_sales && 'checked'}> ${t('linkNotify')}</label>
  <button type="submit">${t('save')}</button>
</form>
<h2>${t('linkCharges')}</h2>
${charges.length === 0
    ? html`<p>${t('noCharges')}</p>`
    : html`<table><thead><tr><th scope="col">${t('created')}</th><th scope="col">${t('amount')}</th><th scope="col">${t('status')}</th><th scope="col">${t('payer')}</th><th scope="col">id</th></tr></thead><tbody>${rows}</tbody></table>`}
<p><a href="/wallet/links">${t('backToLinks')}</a></p>`)
}
