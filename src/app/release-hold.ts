// Seven calendar days after a third-party payment, what is still held is released.
import type { Clock } from '../clock.ts'
import type { Store } from '../store/store.ts'
import { moveCharge, type MoveResult } from './move-charge.ts'

export function releaseHold(deps: { store: Store; clock: Clock }, chargeId: string): Promise<MoveResult> {
  return moveCharge(deps, { id: chargeId }, { event: async (_store, charge, now) => ({ kind: 'release_due', now, releaseAt: charge.release_at }) })
}
