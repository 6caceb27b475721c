// The merchant withdraws a charge nobody has paid yet (POST /api/payments/{id}/cancel).
// Eulen has no call that voids a QR, so the payer's bank may still pay it until it expires:
// such a payment is processed as any late one (docs/rules.md#charge-statuses), because
// money that arrived is never dropped.
import type { Clock } from '../clock.ts'
import type { ChargeRecord } from '../contract/api.ts'
import { isChargeId } from '../domain/charge.ts'
import { DomainError } from '../domain/errors.ts'
import type { Store } from '../store/store.ts'
import { toChargeRecord } from './get-charge.ts'
import { moveCharge } from './move-charge.ts'

export async function cancelCharge(deps: { store: Store; clock: Clock }, request: { merchantAccountId: number; chargeId: string }): Promise<ChargeRecord> {
  const own = isChargeId(request.chargeId) ? await deps.store.charges.findForMerchant(request.chargeId, request.merchantAccountId) : undefined
  if (!own) throw new DomainError('payment_not_found', { param: 'payment_id' })
  const result = await moveCharge(deps, { id: own.id }, { event: async () => ({ kind: 'merchant_cancel' }) })
  if (result.kind === 'not_found') throw new DomainError('payment_not_found', { param: 'payment_id' })
  if (result.kind === 'refused') throw new DomainError(result.code, { param: 'payment_id', message: `Only a charge still waiting_payment can be canceled; this one is ${result.charge.status}.` })
  return toChargeRecord(result.charge)
}
