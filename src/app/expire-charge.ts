// A QR not paid within its 10 minutes expires. A payment that arrives later is still processed.
import type { Clock } from '../clock.ts'
import type { Store } from '../store/store.ts'
import { moveCharge, type MoveResult } from './move-charge.ts'

export function expireCharge(deps: { store: Store; clock: Clock }, chargeId: string): Promise<MoveResult> {
  return moveCharge(deps, { id: chargeId }, { event: async (_store, charge, now) => ({ kind: 'expiry_due', now, expiresAt: charge.expires_at }) })
}
