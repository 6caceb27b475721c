// BRL prices of BTC and USDt and the rules that keep a conversion sane
// (docs/rules.md#quotes): a price far from the last accepted one, or from a second public
// source, is not used; no charge credits more than what arrived converted at the accepted
// price, plus 1 %; an operator's override expires.
import { unitsPerWhole, type Currency } from './money.ts'

export type QuotedCurrency = Exclude<Currency, 'DEPIX'>
export const quotedCurrencies = ['BTC', 'USDt'] as const satisfies readonly QuotedCurrency[]

/** Decimals a price keeps: micro-reais. */
export const PRICE_DECIMALS = 6

/**
 * The price a conversion uses: the ticker's (once it passed the checks) or the operator's override,
 * with the last price accepted before it, which caps what one charge may credit.
 */
export type Quote = { micros: number; source: 'override' | 'ticker'; at: Date; referenceMicros: number }

/** How far (percent) a fetched price may stray from the last accepted one, or from a second source. */
export const DEFAULT_QUOTE_BAND_PERCENT = 10
/** What a credit may exceed what arrived, converted without fees at the accepted price. */
export const CREDIT_CAP_MARGIN_PERCENT = 1
/** An operator override lasts this long unless told otherwise, and never longer than the maximum. */
export const DEFAULT_OVERRIDE_SECONDS = 3_600
export const MAX_OVERRIDE_SECONDS = 86_400

const pricePattern = new RegExp(`^(\\d{1,12})(?:\\.(\\d+))?$`)

/**
 * "350123.456789" → 350123456789 micro-reais. Digits beyond the sixth decimal are rounded half up
 * (a ticker may send eight); null when it is not a positive plain decimal.
 */
export function parsePriceMicros(text: string): number | null {
  const match = pricePattern.exec(text)
  if (!match) return null
  const fraction = (match[2] ?? '').padEnd(PRICE_DECIMALS + 1, '0')
  const micros = Number(match[1]) * 10 ** PRICE_DECIMALS + Number(fraction.slice(0, PRICE_DECIMALS)) + (Number(fraction[PRICE_DECIMALS]) >= 5 ? 1 : 0)
  return micros > 0 && Number.isSafeInteger(micros) ? micros : null
}

/** A price as people read it: two decimals at least, more only where they carry something ("5.4321"). */
export function formatPrice(micros: number): string {
  const whole = Math.trunc(micros / 10 ** PRICE_DECIMALS)
  const fraction = (micros % 10 ** PRICE_DECIMALS).toString().padStart(PRICE_DECIMALS, '0').replace(/0+$/, '').padEnd(2, '0')
  return `${whole}.${fraction}`
}

/** Is `price` within `bandPercent` of `reference`? */
export function withinBand(price: number, reference: number, bandPercent: number): boolean {
  return Math.abs(price - reference) * 100 <= bandPercent * reference
}

/**
 * Why a fetched price may not be used, or null when it may: away from the last accepted price, or
 * from the second source when one answered. `second` is the second source's price, `'silent'` when
 * one is configured but did not answer, null when none is configured. With no accepted price yet
 * and no second source configured, the first price is used and anchors the band; when a second
 * source is configured, a first price waits until it answers (or an operator gives the price).
 */
export function priceRejection(price: number, checks: { reference: number | null; second: number | 'silent' | null; bandPercent: number }): 'away_from_last_accepted' | 'away_from_second_source' | 'nothing_to_check_against' | null {
  if (checks.reference === null && checks.second === 'silent') return 'nothing_to_check_against'
  if (checks.reference !== null && !withinBand(price, checks.reference, checks.bandPercent)) return 'away_from_last_accepted'
  if (typeof checks.second === 'number' && !withinBand(price, checks.second, checks.bandPercent)) return 'away_from_second_source'
  return null
}

/**
 * The most one charge may credit (docs/rules.md#quotes): what arrived, converted without any fee at
 * the last price accepted before this one, plus 1 %. Within the band a price may still fall a few
 * percent below the last one: the fees absorb some of that (6 % for BTC, 2 % for USDt), the rest
 * waits for support.
 */
export function creditCapUnits(arrivedCents: number, currency: QuotedCurrency, quoteMicros: number): number {
  const perWhole = unitsPerWhole[currency]
  // arrived_cents / 100 reais ÷ (micros / 10^6) reais per whole × units per whole × 101 / 100
  return Number((BigInt(arrivedCents) * 10n ** 4n * perWhole * BigInt(100 + CREDIT_CAP_MARGIN_PERCENT)) / (BigInt(quoteMicros) * 100n))
}

/** When an override set now for `seconds` ends (at most a day, docs/rules.md#quotes). */
export function overrideExpiry(now: Date, seconds: number): Date {
  return new Date(now.getTime() + Math.min(Math.max(seconds, 1), MAX_OVERRIDE_SECONDS) * 1000)
}
