// Seven calendar days after a third-party payment, its held balance is released.
import type { Clock } from '../clock.ts'
import type { Store } from '../store/store.ts'
import { releaseCredit } from './charge-effects.ts'

export async function releaseHold(deps: { store: Store; clock: Clock }, chargeId: string): Promise<void> {
  await deps.store.transaction(async (store) => {
    const charge = await store.charges.lockById(chargeId)
    const now = deps.clock.now()
    if (!charge || charge.status !== 'after7d' || charge.release_at === null || charge.release_at.getTime() > now.getTime()) return
    await releaseCredit(store, charge, now)
  })
}
