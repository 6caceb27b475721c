// BRL prices of one BTC and one USDt as people type them ("350000.00"), for the operator's
// override (PUT /ops/quotes; null clears it and the price source counts again) and the sandbox's
// fake ticker (PUT /sandbox/quotes).
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import { formatUnits, parseBrlToCents } from '../domain/money.ts'
import type { QuotedCurrency } from '../store/quotes.ts'
import type { Store } from '../store/store.ts'

export type QuoteInput = { BTC?: string | number | null; USDt?: string | number | null }

/** The prices given, in cents; null where the input clears one. */
export function parseQuotes(input: QuoteInput): Array<[QuotedCurrency, number | null]> {
  const parsed: Array<[QuotedCurrency, number | null]> = []
  for (const currency of ['BTC', 'USDt'] as const) {
    const raw = input[currency]
    if (raw === undefined) continue
    if (raw === null) {
      parsed.push([currency, null])
      continue
    }
    const cents = parseBrlToCents(raw)
    if (cents === null || cents <= 0 || !Number.isFinite(cents)) {
      throw new DomainError('invalid_request', { param: currency, message: `${currency} must be a positive BRL price such as "350000.00".` })
    }
    parsed.push([currency, cents])
  }
  return parsed
}

export const showQuote = (cents: number | undefined) => (cents === undefined ? null : formatUnits(cents, 2))

export async function setQuoteOverrides(deps: { store: Store; clock: Clock }, input: QuoteInput) {
  const now = deps.clock.now()
  for (const [currency, cents] of parseQuotes(input)) {
    if (cents === null) await deps.store.quotes.clear(currency)
    else await deps.store.quotes.set(currency, cents, now)
  }
  const overrides = await deps.store.quotes.all()
  return { BTC: showQuote(overrides.BTC), USDt: showQuote(overrides.USDt) }
}
