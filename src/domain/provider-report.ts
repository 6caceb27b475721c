// What the provider reports about a deposit, in the domain's words: its statuses, read from
// Eulen's strings once by the adapter, and the deposit object as far as the service reads it.

/** The provider's deposit statuses (reference/eulen-api.md); the adapter reads its strings into these once. */
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
}
