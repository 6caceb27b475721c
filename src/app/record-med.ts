// A MED (refund dispute) on a payment: the receiving e-mail and the payer's tax number and EUID
// are blocked from then on; value already credited is taken back in its own currency. The state
// machine decides (domain/charge.ts, event `med`); a MED for a deposit we do not know still
// blocks the payer it names.
import type { Clock } from '../clock.ts'
import { decideCharge } from '../domain/charge.ts'
import type { Store } from '../store/store.ts'
import { applyChargeDecision, blockIdentities, chargeView } from './apply-charge-decision.ts'

export type MedReport = { qrId: string; euid: string | null; taxNumber: string | null }

export async function recordMed(deps: { store: Store; clock: Clock }, med: MedReport): Promise<{ chargeId: string | null }> {
  return deps.store.transaction(async (store) => {
    const now = deps.clock.now()
    const charge = (await store.charges.lockByDepositId(med.qrId)) ?? null
    const dispute = {
      taxNumber: med.taxNumber ?? charge?.payer_tax_number ?? null,
      euid: med.euid ?? charge?.payer_euid ?? null,
      reason: `MED on payment ${charge?.id ?? med.qrId}`,
      by: 'provider',
    }
    if (!charge) {
      await blockIdentities(store, null, dispute, now)
      return { chargeId: null }
    }
    const decision = decideCharge(chargeView(charge), { kind: 'med' }, { blocked: true, boundElsewhere: false, quoteAvailable: true })
    if (decision.kind === 'move') await applyChargeDecision(store, charge, decision, { now, quote: null, dispute })
    return { chargeId: charge.id }
  })
}
