// A QR not paid within its 10 minutes expires. A payment that arrives later is still processed.
import type { Clock } from '../clock.ts'
import { decideCharge } from '../domain/charge.ts'
import type { Store } from '../store/store.ts'
import { applyChargeDecision, chargeView } from './apply-charge-decision.ts'

export async function expireCharge(deps: { store: Store; clock: Clock }, chargeId: string): Promise<void> {
  await deps.store.transaction(async (store) => {
    const charge = await store.charges.lockById(chargeId)
    if (!charge) return
    const now = deps.clock.now()
    const decision = decideCharge(chargeView(charge), { kind: 'expiry_due', now, expiresAt: charge.expires_at }, { blocked: false, boundElsewhere: false, quoteAvailable: true })
    if (decision.kind === 'move') await applyChargeDecision(store, charge, decision, { now, quote: null })
  })
}
