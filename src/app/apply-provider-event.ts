// The provider says something about a deposit (webhook, reconciliation or sweep). In one
// transaction, with the charge locked: keep what it says about the payer, gather the facts, ask
// the state machine (domain/charge.ts#decideCharge) what follows, and let the executor write it.
// Duplicates and stale reports change nothing.
import type { Clock } from '../clock.ts'
import { decideCharge, taxNumberMatches, type ChargeStatus } from '../domain/charge.ts'
import { isMaskedTaxNumber, stripTaxNumber } from '../domain/tax-number.ts'
import type { ProviderDeposit } from '../provider/provider.ts'
import type { Charge } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { applyChargeDecision, chargeView } from './apply-charge-decision.ts'
import type { Quote, QuoteBook } from './quote-book.ts'

export type ProviderEventOutcome = { chargeId: string | null; status: ChargeStatus | null; changed: boolean }

/** The payer's full tax number: as reported, or the informed one when a masked report matches it. */
function payerTaxNumber(charge: Charge, reported: string | null): string | null {
  if (reported === null) return charge.payer_tax_number
  if (!isMaskedTaxNumber(reported)) return stripTaxNumber(reported)
  if (charge.informed_tax_number !== null && taxNumberMatches(reported, charge.informed_tax_number)) return charge.informed_tax_number
  return charge.payer_tax_number ?? reported
}

/** The quote for a report that may credit a conversion, asked before the transaction (an HTTP call). */
async function quoteForReport(deps: { store: Store; quotes: QuoteBook }, report: ProviderDeposit): Promise<Quote | null> {
  if (report.status !== 'depix_sent') return null
  const [charge] = await deps.store.charges.findByDepositIds([report.qrId])
  return charge ? deps.quotes.at(charge.currency) : null
}

export async function applyProviderEvent(deps: { store: Store; clock: Clock; quotes: QuoteBook }, report: ProviderDeposit): Promise<ProviderEventOutcome> {
  const quote = await quoteForReport(deps, report)
  return deps.store.transaction(async (store) => {
    const locked = await store.charges.lockByDepositId(report.qrId)
    const now = deps.clock.now()
    if (!locked) {
      // Not ours, or ours but lost: kept for support, never only logged.
      await store.unknownDeposits.record(report, 'webhook', now)
      return { chargeId: null, status: null, changed: false }
    }

    // What the provider tells us about the payer is kept as soon as it is known.
    let charge = locked
    const reported = {
      payer_name: report.payerName ?? charge.payer_name,
      payer_tax_number: payerTaxNumber(charge, report.payerTaxNumber),
      payer_euid: report.payerEuid ?? charge.payer_euid,
      bank_tx_id: report.bankTxId ?? charge.bank_tx_id,
      blockchain_tx_id: report.blockchainTxId ?? charge.blockchain_tx_id,
      // What arrived, as the report that delivers the money states it: the credit is computed from it.
      paid_cents: report.status === 'depix_sent' && report.valueInCents !== null && charge.paid_cents === null ? report.valueInCents : charge.paid_cents,
    }
    if ((Object.keys(reported) as Array<keyof typeof reported>).some((key) => reported[key] !== charge[key])) {
      charge = await store.charges.update(charge.id, { ...reported, updated_at: now })
    }

    const account = await store.accounts.findById(charge.account_id)
    const blocked = await store.identities.blockedKinds({ email: account?.email, taxNumber: charge.payer_tax_number, euid: charge.payer_euid })
    const boundTo = [
      charge.payer_euid === null ? undefined : await store.identities.boundAccount('euid', charge.payer_euid),
      charge.payer_tax_number === null ? undefined : await store.identities.boundAccount('tax_number', charge.payer_tax_number),
    ]
    const decision = decideCharge(
      chargeView(charge),
      { kind: 'provider_report', report: { status: report.status, valueInCents: report.valueInCents, payerEuid: charge.payer_euid, payerTaxNumber: charge.payer_tax_number } },
      { blocked: blocked.length > 0, boundElsewhere: boundTo.some((id) => id !== undefined && id !== charge.account_id), quoteAvailable: charge.currency === 'DEPIX' || quote !== null },
    )
    if (decision.kind !== 'move') return { chargeId: charge.id, status: charge.status, changed: charge !== locked }
    const updated = await applyChargeDecision(store, charge, decision, {
      now,
      quote,
      providerStatus: report.status,
      dispute: { taxNumber: charge.payer_tax_number, euid: charge.payer_euid, reason: 'refunded by the provider after credit', by: 'provider' },
    })
    return { chargeId: charge.id, status: updated.status, changed: true }
  })
}
