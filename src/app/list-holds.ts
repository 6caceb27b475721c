// The support queue of held payments (docs/rules.md#hold-review): oldest first, with why each is
// held, what arrived, every claw-back the provider reported on it, and the decisions it allows.
import { reviewDecisionsFor, type ReviewDecision } from '../domain/charge.ts'
import type { RowKey } from '../store/keyset.ts'
import type { Charge, ChargeClawback } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { chargeView } from './apply-charge-decision.ts'

export type HeldPayment = { charge: Charge; clawbacks: ChargeClawback[]; decisions: ReviewDecision[] }

/** Every held payment, or one page of them (the console's queue). */
export async function listHolds(deps: { store: Store }, page?: { after: RowKey | null; limit: number }): Promise<HeldPayment[]> {
  const held = await deps.store.charges.listHeld(page)
  const reports = await deps.store.clawbacks.forCharges(held.map((charge) => charge.id))
  return held.map((charge) => ({
    charge,
    clawbacks: reports.filter((report) => report.charge_id === charge.id),
    decisions: reviewDecisionsFor(chargeView(charge, undefined)),
  }))
}
