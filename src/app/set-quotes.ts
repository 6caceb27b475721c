// BRL prices of one BTC and one USDt as people type them ("350000.00", "5.4321"): the operator's
// override (PUT /ops/quotes; null clears it and the price source counts again) and the sandbox's
// fake ticker (PUT /sandbox/quotes). An override expires (at most a day, docs/rules.md#quotes),
// must be within the band of the last accepted price unless forced, and becomes the price fetched
// prices are checked against: the operator's word on the market.
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import { DEFAULT_OVERRIDE_SECONDS, formatPrice, overrideExpiry, parsePriceMicros, quotedCurrencies, withinBand, type QuotedCurrency } from '../domain/quotes.ts'
import type { Store } from '../store/store.ts'

export type QuoteInput = { BTC?: string | number | null | undefined; USDt?: string | number | null | undefined }

/** The prices given, in micro-reais; null where the input clears one. */
export function parseQuotes(input: QuoteInput): Array<[QuotedCurrency, number | null]> {
  const parsed: Array<[QuotedCurrency, number | null]> = []
  for (const currency of quotedCurrencies) {
    const raw = input[currency]
    if (raw === undefined) continue
    if (raw === null) {
      parsed.push([currency, null])
      continue
    }
    const micros = parsePriceMicros(typeof raw === 'number' ? String(raw) : raw)
    if (micros === null) {
      throw new DomainError('invalid_request', { param: currency, message: `${currency} must be a positive BRL price such as "350000.00" (up to 6 decimals).` })
    }
    parsed.push([currency, micros])
  }
  return parsed
}

export const showQuote = (micros: number | undefined) => (micros === undefined ? null : formatPrice(micros))

export type OverrideView = { BTC: string | null; USDt: string | null; expires_at: { BTC: string | null; USDt: string | null } }

export async function quoteOverrides(deps: { store: Store; clock: Clock }): Promise<OverrideView> {
  const rows = await deps.store.quotes.overrides(deps.clock.now())
  const of = (currency: QuotedCurrency) => rows.find((row) => row.currency === currency)
  return {
    BTC: showQuote(of('BTC')?.brl_micros),
    USDt: showQuote(of('USDt')?.brl_micros),
    expires_at: { BTC: of('BTC')?.expires_at.toISOString() ?? null, USDt: of('USDt')?.expires_at.toISOString() ?? null },
  }
}

/** The last accepted price per currency, with its source and when (what /ops and the console show beside the overrides). */
export async function acceptedQuotes(deps: { store: Store }): Promise<Array<{ currency: string; price: string | null; source: string; acceptedAt: Date }>> {
  return (await deps.store.quotes.references()).map((row) => ({ currency: row.currency, price: showQuote(row.brl_micros), source: row.source, acceptedAt: row.accepted_at }))
}

/** Sets or clears the overrides, and writes to the audit log who did (and the console's note). */
export async function setQuoteOverrides(
  deps: { store: Store; clock: Clock; bandPercent: number },
  input: QuoteInput & { expires_in_seconds?: number | undefined; force?: boolean | undefined },
  by: { actor: string; note?: string },
): Promise<OverrideView> {
  const now = deps.clock.now()
  const parsed = parseQuotes(input)
  for (const [currency, micros] of parsed) {
    const reference = micros === null ? undefined : await deps.store.quotes.reference(currency)
    if (micros !== null && reference && !withinBand(micros, reference.brl_micros, deps.bandPercent) && !input.force) {
      throw new DomainError('quote_out_of_band', {
        param: currency,
        message: `${currency} ${formatPrice(micros)} is more than ${deps.bandPercent} % away from the last accepted price ${formatPrice(reference.brl_micros)}; send force: true if the market really moved.`,
      })
    }
  }
  const expiresAt = overrideExpiry(now, input.expires_in_seconds ?? DEFAULT_OVERRIDE_SECONDS)
  for (const [currency, micros] of parsed) {
    if (micros === null) {
      await deps.store.quotes.clear(currency)
      continue
    }
    await deps.store.quotes.set(currency, micros, now, expiresAt)
    await deps.store.quotes.accept(currency, micros, 'override', now)
  }
  const quotes = await quoteOverrides(deps)
  await deps.store.audit.record({ actor: by.actor, action: 'quotes.set', subject: 'quotes', details: { ...quotes, force: input.force ?? false, ...(by.note === undefined ? {} : { note: by.note }) }, at: deps.clock.now() })
  return quotes
}
