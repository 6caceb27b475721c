// A MED (refund dispute) on a payment: the receiving e-mail and the payer's tax number and EUID
// are blocked from then on; value already credited is taken back in its own currency.
import type { Clock } from '../clock.ts'
import { isCredited } from '../domain/charge.ts'
import type { Charge } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { takeBackCredit } from './charge-effects.ts'

export type MedReport = { qrId: string; euid: string | null; taxNumber: string | null }

/** Blocks the charge's e-mail and the payer's identities; each block is recorded once per charge. */
export async function blockIdentities(
  store: Store,
  charge: Charge | null,
  payer: { taxNumber: string | null; euid: string | null },
  reason: string,
  now: Date,
  createdBy = 'provider',
): Promise<void> {
  const account = charge ? await store.accounts.findById(charge.account_id) : undefined
  const identities = [
    ['email', account?.email ?? null],
    ['tax_number', payer.taxNumber !== null && !payer.taxNumber.includes('*') ? payer.taxNumber : null],
    ['euid', payer.euid],
  ] as const
  for (const [kind, value] of identities) {
    if (value === null) continue
    const already = await store.identities.blockedKinds({ [kind === 'tax_number' ? 'taxNumber' : kind]: value })
    if (already.includes(kind)) continue
    await store.identities.addBlock({ kind, value, reason, charge_id: charge?.id ?? null, created_by: createdBy, created_at: now })
  }
}

/**
 * A disputed payment: block who was involved, and take back whatever it credited. A charge that
 * never credited anything is left as it is (decisions 13): a real payment arriving later is still
 * money, and the blocks just recorded send it to security_hold for support.
 */
export async function disputeCharge(
  store: Store,
  charge: Charge,
  payer: { taxNumber: string | null; euid: string | null },
  reason: string,
  now: Date,
): Promise<Charge> {
  await blockIdentities(store, charge, payer, reason, now)
  return isCredited(charge.status) ? takeBackCredit(store, charge, now) : charge
}

export async function recordMed(deps: { store: Store; clock: Clock }, med: MedReport): Promise<{ chargeId: string | null }> {
  return deps.store.transaction(async (store) => {
    const now = deps.clock.now()
    const charge = (await store.charges.lockByDepositId(med.qrId)) ?? null
    const payer = { taxNumber: med.taxNumber ?? charge?.payer_tax_number ?? null, euid: med.euid ?? charge?.payer_euid ?? null }
    const reason = `MED on payment ${charge?.id ?? med.qrId}`
    // A MED for a deposit we do not know still blocks the payer it names.
    if (charge) await disputeCharge(store, charge, payer, reason, now)
    else await blockIdentities(store, null, payer, reason, now)
    return { chargeId: charge?.id ?? null }
  })
}
