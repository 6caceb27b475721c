// A payment link's rules (docs/payment-pages.md): what an owner may publish, when a link still
// sells, and what a payer may ask of it. No I/O.
import { DomainError } from './errors.ts'
import { chargeBoundsCents, currencies, isWithinChargeBounds, parseBrlToCents, type Currency } from './money.ts'
import { LIMIT_WITHOUT_EUID_CENTS } from './payer-limits.ts'

export const LINK_TITLE_MAX_LENGTH = 80
export const LINK_DESCRIPTION_MAX_LENGTH = 500
export const LINK_MAX_USES_LIMIT = 1_000_000

export type PaymentLinkInput = {
  title: string
  description?: string | undefined
  amount?: string | number | undefined
  min_amount?: string | number | undefined
  max_amount?: string | number | undefined
  swap_to?: string | undefined
  expires_at?: string | undefined
  max_uses?: number | undefined
  notify_sales?: boolean | undefined
}

export type PaymentLinkTerms = {
  title: string
  description: string | null
  amountCents: number | null
  minCents: number | null
  maxCents: number | null
  currency: Currency
  expiresAt: Date | null
  maxUses: number | null
  /** Whether the owner hears by e-mail of each sale through the link (on unless turned off). */
  notifySales: boolean
}

const control = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/u

function text(value: string | undefined, max: number, param: string, multiline: boolean): string | null {
  if (value === undefined) return null
  const trimmed = multiline ? value.trim() : value.trim().replace(/\s+/gu, ' ')
  if (trimmed === '') return null
  if ([...trimmed].length > max || control.test(trimmed) || (!multiline && /[\r\n]/.test(trimmed))) throw new DomainError('payment_link_invalid', { param, message: `${param} must be printable text of at most ${max} characters.` })
  return trimmed
}

function amount(value: string | number | undefined, currency: Currency, param: string): number | null {
  if (value === undefined || value === '') return null
  const cents = parseBrlToCents(typeof value === 'string' ? value.replace(',', '.') : value)
  if (cents === null) throw new DomainError('value_invalid', { param })
  if (!isWithinChargeBounds(cents, currency)) {
    const { min, max } = chargeBoundsCents[currency]
    throw new DomainError('value_out_of_range', { param, message: `${param} for ${currency} must be from ${(min / 100).toFixed(2)} to ${(max / 100).toFixed(2)} BRL.` })
  }
  return cents
}

/** An owner's new link: a title, a fixed amount or an open one between bounds, and optional expiry and uses. */
export function parsePaymentLink(input: PaymentLinkInput, now: Date): PaymentLinkTerms {
  const title = text(input.title, LINK_TITLE_MAX_LENGTH, 'title', false)
  if (title === null) throw new DomainError('payment_link_invalid', { param: 'title', message: 'title is required.' })
  const description = text(input.description, LINK_DESCRIPTION_MAX_LENGTH, 'description', true)
  const currency = (input.swap_to ?? 'DEPIX') as Currency
  if (!currencies.includes(currency)) throw new DomainError('swap_to_invalid', { param: 'swap_to' })
  const fixed = amount(input.amount, currency, 'amount')
  const open = { min: amount(input.min_amount, currency, 'min_amount'), max: amount(input.max_amount, currency, 'max_amount') }
  if (fixed !== null && (open.min !== null || open.max !== null)) {
    throw new DomainError('payment_link_invalid', { param: 'amount', message: 'Send amount for a fixed price, or min_amount and max_amount for an open one, not both.' })
  }
  const bounds = chargeBoundsCents[currency]
  const minCents = fixed !== null ? null : (open.min ?? bounds.min)
  const maxCents = fixed !== null ? null : (open.max ?? bounds.max)
  if (minCents !== null && maxCents !== null && minCents > maxCents) throw new DomainError('payment_link_invalid', { param: 'min_amount', message: 'min_amount must not be above max_amount.' })

  let expiresAt: Date | null = null
  if (input.expires_at !== undefined && input.expires_at !== '') {
    expiresAt = new Date(input.expires_at)
    if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= now.getTime()) throw new DomainError('payment_link_invalid', { param: 'expires_at', message: 'expires_at must be a date-time in the future.' })
  }
  const maxUses = input.max_uses ?? null
  if (maxUses !== null && (!Number.isInteger(maxUses) || maxUses < 1 || maxUses > LINK_MAX_USES_LIMIT)) {
    throw new DomainError('payment_link_invalid', { param: 'max_uses', message: `max_uses must be an integer from 1 to ${LINK_MAX_USES_LIMIT}.` })
  }
  return { title, description, amountCents: fixed, minCents, maxCents, currency, expiresAt, maxUses, notifySales: input.notify_sales ?? true }
}

export type LinkState = { active: boolean; expiresAt: Date | null; maxUses: number | null }

/** Why a link sells no more, or null while it does. Uses are its paid charges and its QRs still open. */
export function linkClosedReason(link: LinkState, uses: number, now: Date): 'inactive' | 'expired' | 'sold_out' | null {
  if (!link.active) return 'inactive'
  if (link.expiresAt !== null && now.getTime() >= link.expiresAt.getTime()) return 'expired'
  if (link.maxUses !== null && uses >= link.maxUses) return 'sold_out'
  return null
}

/**
 * The most one payer may pay through a link: the link's own ceiling, and the payer limits of a
 * charge (a payer the provider does not know yet: R$ 10,00; one it knows: its ladder).
 */
export function payerCeilingCents(link: { amountCents: number | null; maxCents: number | null }, payerLimitCents: number): number {
  return Math.min(link.amountCents ?? link.maxCents ?? Number.MAX_SAFE_INTEGER, payerLimitCents)
}

/** What a payer asks of a link: its fixed amount, or the amount typed within the link's bounds. */
export function chosenAmountCents(link: { amountCents: number | null; minCents: number | null; maxCents: number | null }, typed: string | undefined): number {
  if (link.amountCents !== null) return link.amountCents
  const cents = typed === undefined ? null : parseBrlToCents(brazilianAmount(typed))
  if (cents === null) throw new DomainError('value_invalid', { param: 'amount' })
  if (cents < link.minCents! || cents > link.maxCents!) throw new DomainError('value_out_of_range', { param: 'amount' })
  return cents
}

/** "R$ 1.234,56", "12,50" or "12.50" as the API's "1234.56". */
function brazilianAmount(typed: string): string {
  const bare = typed.replace(/^\s*R\$\s*/i, '').trim()
  return bare.includes(',') ? bare.replace(/\./g, '').replace(',', '.') : bare
}

export { LIMIT_WITHOUT_EUID_CENTS }
