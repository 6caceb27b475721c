// A MED (refund dispute) on a payment: the receiving e-mail and the payer's tax number and EUID
// are blocked from then on; the part the provider took back (`principalValueInCents`, all of it
// when unstated) is debited from what the payment credited, or recorded on a held charge, or
// settles a refund owed. Each report counts once, however often it is delivered (its key, read by
// the provider adapter). A MED for a deposit we do not know still blocks the payer it names.
import type { Clock } from '../clock.ts'
import type { ProviderMed } from '../domain/provider-report.ts'
import type { Store } from '../store/store.ts'
import { blockIdentities } from './apply-charge-decision.ts'
import { moveCharge, type MoveResult } from './move-charge.ts'

export async function recordMed(deps: { store: Store; clock: Clock }, med: ProviderMed): Promise<MoveResult> {
  const { qrId, report, ...event } = med
  const result = await moveCharge(deps, { depositId: qrId }, {
    event: async (store, charge) => ((await store.clawbacks.has(charge.id, report.key)) ? null : { kind: 'med', ...event, report }),
  })
  if (result.kind === 'not_found') await blockIdentities(deps.store, null, { taxNumber: med.taxNumber, euid: med.euid, reason: report.blockReason, by: 'provider' }, deps.clock.now())
  return result
}
