// What the provider reports about a deposit, in the domain's words: its statuses, read from
// Eulen's strings once by the adapter, and the deposit object as far as the service reads it.

/** The provider's deposit statuses (docs/rules.md#provider-statuses); the adapter reads its strings into these once. */
export const providerStatuses = ['pending', 'delayed', 'approved', 'under_review', 'depix_sent', 'will_refund', 'refunded', 'canceled', 'expired', 'error'] as const
export type ProviderStatus = (typeof providerStatuses)[number]

/** A provider status string as ours; null for one we do not know (reported, kept, never acted on). */
export function parseProviderStatus(text: string): ProviderStatus | null {
  return (providerStatuses as readonly string[]).includes(text) ? (text as ProviderStatus) : null
}

/** The provider's deposit status object, as far as we read it. */
export type ProviderDeposit = {
  qrId: string
  /** The status in the domain's words; null for a status string we do not know. */
  status: ProviderStatus | null
  /** The status as the provider wrote it, kept for support. */
  statusText: string
  valueInCents: number | null
  payerName: string | null
  payerTaxNumber: string | null
  payerEuid: string | null
  bankTxId: string | null
  blockchainTxId: string | null
  /** The report as the provider sent it (a webhook's body, a status reply), kept for support's timeline. */
  raw?: unknown
}

/** The provider's payout (withdraw) statuses: waiting for our DePix, paying the Pix, paid, or not. */
export const payoutStatuses = ['unsent', 'sending', 'sent', 'error', 'canceled', 'refunded'] as const
export type PayoutStatus = (typeof payoutStatuses)[number]

export function parsePayoutStatus(text: string): PayoutStatus | null {
  return (payoutStatuses as readonly string[]).includes(text) ? (text as PayoutStatus) : null
}

/** The provider's payout object (POST /withdraw's reply, GET /withdraw-status, the withdraw webhook), as far as we read it. */
export type ProviderPayout = {
  withdrawalId: string
  /** Null for a status string we do not know; `statusText` keeps it. */
  status: PayoutStatus | null
  statusText: string | null
  /** Where to send the DePix, how much, and until when. */
  depositAddress: string | null
  depositAmountInCents: number | null
  payoutAmountInCents: number | null
  expiration: Date | null
  receiptUrl: string | null
  blockchainTxId: string | null
}
