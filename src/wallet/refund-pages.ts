// The Wallet's "Devolver" (docs/rules.md#merchant-refunds): the page that shows what the payer
// receives and what the account pays before the owner confirms (the charge's page lists its
// refunds and has the form that leads here), through the same template and catalogue as every other page.
import type { RefundPreview } from '../app/merchant-refunds.ts'
import { formatAmount, formatBrl, formatUnits } from '../domain/money.ts'
import { html, href } from '../html/template.ts'
import { csrfField, layout, texts, type Page } from './pages.ts'

/** `confirm`: the owner's factor was checked, one button confirms; `send`: no factor, a code is mailed first; `code`: the code was sent. */
export type RefundStep = 'confirm' | 'send' | 'code'

export function refundPreviewPage(page: Page, preview: RefundPreview, step: RefundStep, email: string): string {
  const t = texts(page.lang)
  const base = `/wallet/charges/${encodeURIComponent(preview.chargeId)}`
  const amount = formatUnits(preview.amountCents, 2)
  return layout({ ...page, title: 'refundTitle', signedIn: true }, html`
<h1>${t('refundTitle')} · ${formatBrl(preview.amountCents)}</h1>
<dl class="breakdown" data-refund-preview>
  <dt>${t('refundPayerReceives')}</dt><dd data-payer-receives>${formatBrl(preview.amountCents)}</dd>
  <dt>${t('providerFee')}</dt><dd data-provider-fee>${formatBrl(preview.feeCents)}</dd>
  <dt>${t('refundAccountPays')}</dt><dd data-account-pays>${formatAmount(preview.currency, preview.units)}</dd>
  ${preview.heldUnits > 0 && html`<dt>${t('refundFromHold')}</dt><dd>${formatAmount(preview.currency, preview.heldUnits)}</dd>`}
  ${preview.quoteMicros !== null && html`<dt>${t('quote')}</dt><dd>R$ ${formatUnits(preview.quoteMicros, 6).replace('.', ',')}</dd>`}
</dl>
<p>${t('refundToPayer')}</p>
${step === 'send' && html`<form method="post" action="${href(`${base}/refund/code`)}" class="card">
  ${csrfField(page.csrf)}<input type="hidden" name="amount" value="${amount}">
  <p>${t('refundCodeFirst', { email })}</p>
  <button type="submit">${t('sendCode')}</button>
</form>`}
${step !== 'send' && html`<form method="post" action="${href(`${base}/refunds`)}" class="card">
  ${csrfField(page.csrf)}<input type="hidden" name="amount" value="${amount}">
  ${step === 'code' && html`<p>${t('refundCodeLead', { email })}</p><label>${t('code')}<input type="text" name="code" required inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code"></label>`}
  <button type="submit">${t('confirmRefund')}</button>
</form>`}
<p><a href="${href(base)}">${t('charge')}</a></p>`)
}
