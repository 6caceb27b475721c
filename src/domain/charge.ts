// A charge's statuses (spec section 3) and the facts fixed when it is created.

export const chargeStatuses = [
  'waiting_payment',
  'pending',
  'under_review',
  'security_hold',
  'depix_sent',
  'canceled',
  'expired',
  'will_refund',
  'refunded',
  'after7d',
  'error',
] as const
export type ChargeStatus = (typeof chargeStatuses)[number]

/** QR validity: 10 minutes after creation. */
export const QR_VALIDITY_SECONDS = 600

export function expiresAtFor(createdAt: Date): Date {
  return new Date(createdAt.getTime() + QR_VALIDITY_SECONDS * 1000)
}
