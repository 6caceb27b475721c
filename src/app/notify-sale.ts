// The owner hears about a sale (docs/payment-pages.md): an e-mail, through the queued mail, when
// a charge is paid, held for review, or released to the balance. Charges from a payment link
// tell the owner unless the link says not to; any other charge, when the owner's Wallet says so.
import type { Clock } from '../clock.ts'
import { formatBrl } from '../domain/money.ts'
import { maskPayerName } from '../domain/payment-page.ts'
import type { SaleNotice } from '../domain/sale-notice.ts'
import { maskTaxNumber } from '../domain/tax-number.ts'
import { catalogues, fill } from '../i18n/catalogue.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { Store } from '../store/store.ts'
import { queueMail } from './queue-mail.ts'

/** A sale's news is worth sending for three days; the mail server down longer, it is dropped. */
const SEND_WITHIN_MS = 3 * 24 * 3_600_000

export async function notifySale(deps: { store: Store; clock: Clock; mailSeal: MailSeal; baseUrl: string }, chargeId: string, notice: SaleNotice): Promise<void> {
  const charge = await deps.store.charges.findById(chargeId)
  if (!charge) return
  const link = charge.payment_link_id === null ? undefined : await deps.store.paymentLinks.findById(charge.payment_link_id)
  const wanted = link ? link.notify_sales : await deps.store.accounts.notifiesSales(charge.merchant_account_id)
  const owner = await deps.store.accounts.findById(charge.merchant_account_id)
  if (!wanted || !owner) return
  const texts = catalogues[owner.language].mail
  const payer = [maskPayerName(charge.payer_name ?? charge.informed_payer_name), charge.payer_tax_number === null ? null : maskTaxNumber(charge.payer_tax_number)].filter((part) => part !== null).join(' · ')
  const values = {
    amount: formatBrl(charge.paid_cents ?? charge.value_cents),
    what: texts[`saleWhat_${notice}`],
    id: charge.id,
    payer: payer === '' ? '—' : payer,
    link: link ? fill(texts.saleLink, { title: link.title }) : '',
    url: `${deps.baseUrl}${link ? `/wallet/links/${link.id}` : '/wallet/charges'}`,
  }
  const now = deps.clock.now()
  await queueMail(deps, {
    to: owner.email, subject: fill(texts[`saleSubject_${notice}`], values), text: fill(texts.saleText, values),
    codeId: null, now, sendBefore: new Date(now.getTime() + SEND_WITHIN_MS),
  })
}
