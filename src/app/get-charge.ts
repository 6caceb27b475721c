// GET /api/get-payment/{id}: the charge status record (docs/rules.md#charge-reads), for the merchant that made it.
import { DomainError } from '../domain/errors.ts'
import type { ChargeRecord } from '../contract/api.ts'
import { isChargeId } from '../domain/charge.ts'
import { maskTaxNumber } from '../domain/tax-number.ts'
import type { ChargeStatusRow } from '../store/charges.ts'
import type { Store } from '../store/store.ts'

export function toChargeRecord(charge: ChargeStatusRow): ChargeRecord {
  return {
    qrId: charge.id,
    status: charge.status,
    payerName: charge.payer_name,
    payerTaxNumber: charge.payer_tax_number === null ? null : maskTaxNumber(charge.payer_tax_number),
    payerEuid: charge.payer_euid,
    amount: charge.value_cents,
    paidAmount: charge.paid_cents,
    updatedAt: charge.updated_at.toISOString(),
    holdReason: charge.status === 'security_hold' ? charge.hold_reason : null,
    metadata: charge.metadata ?? {},
    refundedAmount: charge.refunded_cents,
  }
}

export async function getCharge(deps: { store: Store }, request: { merchantAccountId: number; chargeId: string }): Promise<ChargeRecord> {
  const charge = isChargeId(request.chargeId)
    ? await deps.store.charges.statusForMerchant(request.chargeId, request.merchantAccountId)
    : undefined
  if (!charge) throw new DomainError('payment_not_found', { param: 'payment_id' })
  return toChargeRecord(charge)
}

/** The public QR image's content (GET /api/qr/{id}.png): the charge's Pix copy-and-paste code, to anyone with its id (128 random bits). */
export async function chargeQrCode(deps: { store: Store }, chargeId: string): Promise<string> {
  const charge = isChargeId(chargeId) ? await deps.store.charges.findById(chargeId) : undefined
  if (!charge) throw new DomainError('payment_not_found', { param: 'payment_id' })
  return charge.qr_copy_paste
}
