// What the payment page (docs/payment-pages.md) says of a charge: one phase per way a payer must
// read it, whether the page keeps following it, and the payer as a receipt may show them.
import type { ChargeStatus } from './charge.ts'
import { DomainError } from './errors.ts'

export const pagePhases = ['waiting', 'paidWaiting', 'underReview', 'held', 'paid', 'expired', 'canceled', 'refunding', 'refunded', 'failed'] as const
export type PagePhase = (typeof pagePhases)[number]

/**
 * The phase of a charge at `now`. A QR past its expiry is expired for the payer even before the
 * expiry job has moved the charge: paying it then is what the page must stop.
 */
export function pagePhase(status: ChargeStatus, expiresAt: Date, now: Date): PagePhase {
  switch (status) {
    case 'waiting_payment': return now.getTime() >= expiresAt.getTime() ? 'expired' : 'waiting'
    case 'pending': return 'paidWaiting'
    case 'under_review': return 'underReview'
    case 'security_hold': return 'held'
    case 'depix_sent':
    case 'after7d': return 'paid'
    case 'expired': return 'expired'
    case 'canceled': return 'canceled'
    case 'will_refund': return 'refunding'
    case 'refunded': return 'refunded'
    case 'error': return 'failed'
  }
}

/**
 * How often, in seconds, the page reloads itself in this phase (without JavaScript); null when
 * nothing more will happen that the payer waits for. A QR being paid is followed closely; money
 * already received, at a slower pace.
 */
export function refreshSeconds(phase: PagePhase): number | null {
  if (phase === 'waiting') return 5
  if (phase === 'paidWaiting' || phase === 'underReview' || phase === 'held') return 30
  return null
}

/** The phases where the QR and the copy-and-paste code may still be paid, and are shown. */
export function showsQr(phase: PagePhase): boolean {
  return phase === 'waiting'
}

/** The payer's name as a public receipt shows it: the first name and the others' initials ("Maria S."). */
export function maskPayerName(name: string | null): string | null {
  if (name === null) return null
  const [first, ...others] = name.trim().split(/\s+/u)
  if (!first) return null
  return [first, ...others.map((part) => `${[...part][0]!.toUpperCase()}.`)].join(' ')
}

/** Minutes and seconds left ("9:58"), for the countdown. */
export function countdownText(secondsLeft: number): string {
  const left = Math.max(0, Math.floor(secondsLeft))
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`
}

export const DISPLAY_NAME_MAX_LENGTH = 60

/** The merchant's name for payers, as the owner typed it: trimmed, printable, up to 60 characters; blank is none. */
export function parseDisplayName(raw: string): string | null {
  const name = raw.trim().replace(/\s+/gu, ' ')
  if (name === '') return null
  if ([...name].length > DISPLAY_NAME_MAX_LENGTH || /[\u0000-\u001f\u007f-\u009f]/u.test(name)) throw new DomainError('display_name_invalid', { param: 'display_name' })
  return name
}
