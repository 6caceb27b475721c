// A MED (refund dispute) on a payment: the receiving e-mail and the payer's tax number and EUID
// are blocked from then on; the part the provider took back (`principalValueInCents`, all of it
// when unstated) is debited from what the payment credited, or recorded on a held charge, or
// settles a refund owed. Each report counts once, however often it is delivered. A MED for a
// deposit we do not know still blocks the payer it names.
import type { Clock } from '../clock.ts'
import { requestHash } from './request-hash.ts'
import type { Store } from '../store/store.ts'
import { blockIdentities } from './apply-charge-decision.ts'
import { moveCharge, type MoveResult } from './move-charge.ts'

export type MedReport = {
  qrId: string
  euid: string | null
  taxNumber: string | null
  /** What the provider took back (centavos); null when the report does not say. */
  principalCents: number | null
  /** The report as it came: what makes it the same report when delivered again, kept for support. */
  body: unknown
}

/**
 * The same MED delivered again has the same key; a second MED on the payment (another date,
 * another amount, anything the provider says differently) has another. The body's fields, in
 * any order, are the report.
 */
export function medReportKey(med: MedReport): string {
  return `med:${requestHash(med.body)}`
}

export async function recordMed(deps: { store: Store; clock: Clock }, med: MedReport): Promise<MoveResult> {
  const key = medReportKey(med)
  const dispute = { taxNumber: med.taxNumber, euid: med.euid, reason: `MED on deposit ${med.qrId}` }
  const result = await moveCharge(deps, { depositId: med.qrId }, {
    event: async (store, charge) => ((await store.clawbacks.has(charge.id, key)) ? null : { kind: 'med', principalCents: med.principalCents }),
    context: { dispute, clawbackReport: { key, principalCents: med.principalCents, body: med.body } },
  })
  if (result.kind === 'not_found') await blockIdentities(deps.store, null, { ...dispute, by: 'provider' }, deps.clock.now())
  return result
}
