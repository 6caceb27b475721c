// What the provider reports, in the domain's words: the adapter (provider/eulen-replies.ts) reads
// each webhook and each answer to our polling once into these, with the event it is for a charge
// or a payout, so no use case reads the provider's own strings.

/** The provider's deposit statuses (docs/rules.md#provider-statuses); the adapter reads its strings into these once. */
export const providerStatuses = ['pending', 'delayed', 'approved', 'under_review', 'depix_sent', 'will_refund', 'refunded', 'canceled', 'expired', 'error'] as const
export type ProviderStatus = (typeof providerStatuses)[number]

/** A provider status string as ours; null for one we do not know (reported, kept, never acted on). */
export function parseProviderStatus(text: string): ProviderStatus | null {
  return (providerStatuses as readonly string[]).includes(text) ? (text as ProviderStatus) : null
}

/**
 * A provider report as the moves it causes record it: a claw-back keeps its key and body, a block
 * its reason (docs/rules.md#clawbacks).
 */
export type ProviderReport = {
  /** What makes it the same report when delivered again: a claw-back counts once per key. */
  key: string
  /** Why a claw-back it brings blocks the payer, as support reads it. */
  blockReason: string
  /** The report as the provider sent it (a webhook's body, a status reply), kept for support. */
  body: unknown
}

/** What a deposit report is for its charge: the delivery of the money, or another status. */
export type DepositEvent =
  | { kind: 'money_arrived' }
  | { kind: 'provider_status'; status: Exclude<ProviderStatus, 'depix_sent'> }

/** The provider's deposit status object, as far as we read it. */
export type ProviderDeposit = {
  qrId: string
  /** The event it is for the charge; null for a status string we do not know (kept, never acted on). */
  event: DepositEvent | null
  /** The status in the domain's words (what the sweep lists by); null for a string we do not know. */
  status: ProviderStatus | null
  /** The status as the provider wrote it: kept on the charge it moves, and for support. */
  statusText: string
  valueInCents: number | null
  payerName: string | null
  payerTaxNumber: string | null
  payerEuid: string | null
  bankTxId: string | null
  blockchainTxId: string | null
  report: ProviderReport
}

/** A refund dispute (MED) the provider reports on a deposit: whom it names, what it took back. */
export type ProviderMed = {
  qrId: string
  /** The payer it names; null: the charge's own payer. */
  euid: string | null
  taxNumber: string | null
  /** What the provider took back (centavos); null when the report does not say (all of it). */
  principalCents: number | null
  report: ProviderReport
}

/**
 * Where the provider says a Pix-out stands: still on its way (waiting for our DePix, paying, or a
 * status we do not know), paid, or failed for good (support looks).
 */
export type ProviderPayoutState = 'on_its_way' | 'paid' | 'failed'

/** The provider's payout object (POST /withdraw's reply, GET /withdraw-status, the withdraw webhook), as far as we read it. */
export type ProviderPayout = {
  withdrawalId: string
  state: ProviderPayoutState
  /** The status as the provider wrote it, kept on the payout for support. */
  statusText: string | null
  /** Where to send the DePix, how much, and until when. */
  depositAddress: string | null
  depositAmountInCents: number | null
  payoutAmountInCents: number | null
  expiration: Date | null
  receiptUrl: string | null
  blockchainTxId: string | null
}
