// The public payment page of a charge (docs/payment-pages.md): what the payer sees at /pay/{id},
// read in one statement. The id is the charge's 128 random bits, as in its public QR image.
import type { Clock } from '../clock.ts'
import { isChargeId } from '../domain/charge.ts'
import { DomainError } from '../domain/errors.ts'
import { maskPayerName, pagePhase, type PagePhase } from '../domain/payment-page.ts'
import { maskTaxNumber } from '../domain/tax-number.ts'
import type { Store } from '../store/store.ts'

export type PaymentPageView = {
  id: string
  phase: PagePhase
  merchantName: string | null
  valueCents: number
  qrCopyPaste: string
  expiresAt: Date
  /** Whole seconds until the QR expires (0 once it has). */
  secondsLeft: number
  /** Shown once the charge is over ("Voltar à loja"). */
  returnUrl: string | null
  /** After payment: what arrived, when, from whom (masked), and the provider's transaction id. */
  receipt: { paidCents: number; paidAt: Date; payerName: string | null; payerTaxNumber: string | null; transactionId: string } | null
}

/** How many charges this process has written: a page rendered before the count moved may be stale (pay/page-cache.ts). */
export function chargeWritesSoFar(deps: { store: Store }): number {
  return deps.store.charges.writes()
}

export async function paymentPage(deps: { store: Store; clock: Clock }, chargeId: string): Promise<PaymentPageView> {
  const row = isChargeId(chargeId) ? await deps.store.charges.forPaymentPage(chargeId) : undefined
  if (!row) throw new DomainError('payment_not_found', { param: 'payment_id' })
  const now = deps.clock.now()
  const phase = pagePhase(row.status, row.expires_at, now)
  return {
    id: row.id,
    phase,
    merchantName: row.display_name,
    valueCents: row.value_cents,
    qrCopyPaste: row.qr_copy_paste,
    expiresAt: row.expires_at,
    secondsLeft: Math.max(0, Math.floor((row.expires_at.getTime() - now.getTime()) / 1000)),
    returnUrl: row.return_url,
    receipt: phase !== 'paid' ? null : {
      paidCents: row.paid_cents ?? row.value_cents,
      paidAt: row.confirmed_at ?? row.updated_at,
      payerName: maskPayerName(row.payer_name),
      payerTaxNumber: row.payer_tax_number === null ? null : maskTaxNumber(row.payer_tax_number),
      transactionId: row.bank_tx_id ?? row.provider_deposit_id,
    },
  }
}
