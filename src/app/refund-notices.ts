// What a merchant's refund tells (docs/rules.md#merchant-refund-statuses): its record, as the API
// answers it and its webhooks carry it; an e-mail to the owner at each change of status; and the
// opt-in webhooks refund.created, refund.completed and refund.failed to the charge's webhook_url.
import type { RefundRecord } from '../contract/api.ts'
import type { RefundWebhookEvent } from '../domain/charge.ts'
import { formatAmount, formatBrl, formatUnits } from '../domain/money.ts'
import { formatPrice } from '../domain/quotes.ts'
import { catalogues, fill } from '../i18n/catalogue.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { MerchantRefund } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { queueChargeWebhook } from './apply-charge-decision.ts'
import { queueMail } from './queue-mail.ts'

export function refundRecord(refund: MerchantRefund): RefundRecord {
  return {
    id: refund.id,
    payment_id: refund.charge_id,
    status: refund.status,
    amount: formatUnits(refund.amount_cents, 2),
    amount_cents: refund.amount_cents,
    fee_cents: refund.fee_cents,
    currency: refund.currency,
    debit_amount: refund.units,
    held_amount: refund.held_units,
    quote: refund.quote_micros === null ? null : formatPrice(refund.quote_micros),
    reason: refund.reason,
    failure_code: refund.failure_code,
    review_reason: refund.review_reason,
    created_at: refund.created_at.toISOString(),
    updated_at: refund.updated_at.toISOString(),
  }
}

/** The event a refund's status announces, if any: made, paid, or failed (a refund sent is still on its way). */
function eventOf(refund: MerchantRefund, created: boolean): RefundWebhookEvent | null {
  if (created) return 'refund.created'
  if (refund.status === 'completed') return 'refund.completed'
  if (refund.status === 'failed') return 'refund.failed'
  return null
}

/**
 * In the transaction that wrote the refund's new status: the owner's e-mail, and the charge's
 * webhook when it opted into the event. `created`: the refund was just made.
 */
export async function announceRefund(deps: { store: Store; mailSeal: MailSeal; baseUrl: string }, refund: MerchantRefund, now: Date, created = false): Promise<void> {
  const { store } = deps
  const charge = await store.charges.findById(refund.charge_id)
  const account = charge ? await store.accounts.findById(charge.account_id) : undefined
  if (!charge || !account) return
  const texts = catalogues[refund.lang]
  const values = {
    id: refund.id,
    payment: refund.charge_id,
    amount: formatBrl(refund.amount_cents),
    fee: formatBrl(refund.fee_cents),
    debit: formatAmount(refund.currency, refund.units),
    status: texts.refundStatuses[refund.status],
    detail: refund.failure_code === null ? '' : ` ${texts.refundFailures[refund.failure_code]}`,
    url: `${deps.baseUrl}/wallet/charges/${refund.charge_id}`,
  }
  await queueMail(deps, {
    to: account.email, subject: fill(texts.mail.refundStatusSubject, values), text: fill(texts.mail.refundStatusText, values),
    codeId: null, now, sendBefore: new Date(now.getTime() + 24 * 3_600_000),
  })
  const event = eventOf(refund, created)
  if (event !== null && charge.webhook_events.includes(event)) await queueChargeWebhook(store, charge, account, event, now, refundRecord(refund))
}
