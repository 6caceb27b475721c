// A QR not paid within its 10 minutes expires. A payment that arrives later is still processed.
import type { Clock } from '../clock.ts'
import type { Store } from '../store/store.ts'

export async function expireCharge(deps: { store: Store; clock: Clock }, chargeId: string): Promise<void> {
  await deps.store.transaction(async (store) => {
    const charge = await store.charges.lockById(chargeId)
    const now = deps.clock.now()
    if (!charge || charge.status !== 'waiting_payment' || charge.expires_at.getTime() > now.getTime()) return
    await store.charges.update(charge.id, { status: 'expired', updated_at: now })
  })
}
