// The provider says something about a deposit (webhook, reconciliation or sweep), read by its
// adapter into the event it is for the charge: keep what it says about the payer and the amount,
// gather the facts of the checks under the identity's lock, and let the state machine decide
// (app/move-charge.ts). Duplicates and stale reports change nothing; a deposit that matches no
// charge is kept for support.
import type { Clock } from '../clock.ts'
import { awaitsArrival, taxNumberMatches, type ChargeEvent } from '../domain/charge.ts'
import { isMaskedTaxNumber, stripTaxNumber } from '../domain/tax-number.ts'
import type { ProviderDeposit } from '../domain/provider-report.ts'
import type { Account, Charge } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { moveCharge, type Learnt, type MoveResult } from './move-charge.ts'
import type { QuoteBook } from './quote-book.ts'
import type { Quote } from '../domain/quotes.ts'

/** The payer's full tax number: as reported, or the informed one when a masked report matches it. */
function payerTaxNumber(charge: Charge, reported: string | null): string | null {
  if (reported === null) return charge.payer_tax_number
  if (!isMaskedTaxNumber(reported)) return stripTaxNumber(reported)
  if (charge.informed_tax_number !== null && taxNumberMatches(reported, charge.informed_tax_number)) return charge.informed_tax_number
  return charge.payer_tax_number ?? reported
}

/** The quote for a delivery that may credit a conversion, asked before the transaction (an HTTP call). */
async function quoteForDelivery(deps: { store: Store; quotes: QuoteBook }, report: ProviderDeposit): Promise<Quote | null> {
  if (report.event?.kind !== 'money_arrived') return null
  const [charge] = await deps.store.charges.findByDepositIds([report.qrId])
  return charge && charge.currency !== 'DEPIX' && awaitsArrival(charge.status) ? deps.quotes.at(charge.currency) : null
}

/** What the provider tells us about the payer, and what arrived, that the charge does not know yet. */
function learntFrom(charge: Charge, report: ProviderDeposit): Learnt['values'] {
  const arrivedNow = report.event?.kind === 'money_arrived' && report.valueInCents !== null && charge.paid_cents === null
  const reported = {
    payer_name: report.payerName ?? charge.payer_name,
    payer_tax_number: payerTaxNumber(charge, report.payerTaxNumber),
    payer_euid: report.payerEuid ?? charge.payer_euid,
    bank_tx_id: report.bankTxId ?? charge.bank_tx_id,
    blockchain_tx_id: report.blockchainTxId ?? charge.blockchain_tx_id,
    // What arrived, as the report that delivers the money states it: the credit is computed from it.
    paid_cents: arrivedNow ? report.valueInCents : charge.paid_cents,
    paid_source: arrivedNow ? 'provider' as const : charge.paid_source,
  }
  return Object.fromEntries(Object.entries(reported).filter(([key, value]) => value !== charge[key as keyof typeof reported]))
}

/** The event a report is, with the checks' facts when it delivers the money. */
async function eventOf(store: Store, charge: Charge, account: Account, report: ProviderDeposit, quote: Quote | null): Promise<ChargeEvent | null> {
  if (report.event === null) return null
  const said = { statusText: report.statusText, report: report.report }
  if (report.event.kind === 'provider_status') return { ...report.event, said }
  const payer = await store.identities.payerFacts({ email: account.email, taxNumber: charge.payer_tax_number, euid: charge.payer_euid })
  return {
    kind: 'money_arrived',
    // What arrived as kept on the charge: the first delivery's word.
    report: { valueInCents: charge.paid_cents, payerEuid: charge.payer_euid, payerTaxNumber: charge.payer_tax_number },
    facts: { blocked: payer.blocked.length > 0, boundElsewhere: [payer.euidBoundTo, payer.taxNumberBoundTo].some((id) => id !== undefined && id !== charge.account_id), quote },
    said,
  }
}

export async function applyProviderEvent(deps: { store: Store; clock: Clock; quotes: QuoteBook }, report: ProviderDeposit, seenBy: 'webhook' | 'sweep' = 'webhook'): Promise<MoveResult> {
  const quote = await quoteForDelivery(deps, report)
  const result = await moveCharge(deps, { depositId: report.qrId }, {
    // The report is kept for the charge's timeline (the console) as the provider said it.
    learn: (charge) => ({ values: learntFrom(charge, report), report: { source: seenBy, body: report.report.body } }),
    event: (store, charge, _now, account) => eventOf(store, charge, account, report, quote),
  })
  // Not ours, or ours but lost: kept for support, never only logged.
  if (result.kind === 'not_found') await deps.store.unknownDeposits.record(report, seenBy, deps.clock.now())
  return result
}
