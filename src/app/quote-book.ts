// The BRL price a BTC or USDt credit is converted at: "the quote at the moment" of confirmation
// (docs/rules.md#conversions), kept sane (docs/rules.md#quotes). The operator's override wins until
// it expires; otherwise the price source is asked now (its last answer serves while younger than
// the maximum age), and a price more than the band away from the last accepted one, or from the
// second source when one answers, is not used; with neither, the first price is used and anchors
// the band (docs/design.md, "Quotes"). No usable price: the payment is held (quote_unavailable),
// never converted at a stale or wild price. Asked before the confirming transaction, so no HTTP
// call holds database locks.
import type { Clock } from '../clock.ts'
import { priceRejection, type Quote, type QuotedCurrency } from '../domain/quotes.ts'
import type { Currency } from '../domain/money.ts'
import type { PriceSource, Prices } from '../prices/ticker.ts'
import type { Store } from '../store/store.ts'

/** The quote a credit in `currency` converts at; null for DEPIX, which needs none, or when none may be used. */
export type QuoteBook = { at(currency: Currency): Promise<Quote | null> }

type Log = { warn: (details: object, message: string) => void }

/** A source's prices, with its last answer standing in while younger than `maxAgeMs`. */
function remembered(source: PriceSource, clock: Clock, maxAgeMs: number, log: Log | undefined) {
  let last: { prices: Prices; at: Date } | null = null
  return async (currency: QuotedCurrency): Promise<{ micros: number; at: Date } | null> => {
    const now = clock.now()
    try {
      last = { prices: await source.prices(), at: now }
    } catch (error) {
      log?.warn({ err: error, source: source.name }, 'a price source did not answer')
    }
    const micros = last?.prices[currency]
    if (last === null || micros === undefined || now.getTime() - last.at.getTime() > maxAgeMs) return null
    return { micros, at: last.at }
  }
}

export function createQuoteBook(deps: {
  store: Store
  clock: Clock
  /** The primary source first; a second one, when configured, checks it. */
  sources: readonly PriceSource[]
  maxAgeMs: number
  bandPercent: number
  log?: Log
}): QuoteBook {
  const [primary, second] = deps.sources.map((source) => remembered(source, deps.clock, deps.maxAgeMs, deps.log))
  return {
    async at(currency) {
      if (currency === 'DEPIX') return null
      const now = deps.clock.now()
      const override = await deps.store.quotes.findOverride(currency, now)
      // The operator's word is the reference too (setting it made it so).
      if (override) return { micros: override.brl_micros, source: 'override', at: override.updated_at, referenceMicros: override.brl_micros }
      const fetched = primary ? await primary(currency) : null
      if (fetched === null) return null
      const reference = await deps.store.quotes.reference(currency)
      const checked = second ? ((await second(currency))?.micros ?? 'silent') : null
      const rejection = priceRejection(fetched.micros, { reference: reference?.brl_micros ?? null, second: checked, bandPercent: deps.bandPercent })
      if (rejection !== null) {
        deps.log?.warn({ currency, price: fetched.micros, reference: reference?.brl_micros, second: checked, rejection }, 'a fetched price was not used')
        return null
      }
      if (reference === undefined && checked === null) deps.log?.warn({ currency, price: fetched.micros }, 'the first price, checked against nothing (no PRICE_CHECK_SOURCE_URL), now anchors the band')
      if (reference?.brl_micros !== fetched.micros) await deps.store.quotes.accept(currency, fetched.micros, 'ticker', now)
      // A first price (confirmed by the second source, or alone when there is none) caps at itself.
      return { micros: fetched.micros, source: 'ticker', at: fetched.at, referenceMicros: reference?.brl_micros ?? fetched.micros }
    },
  }
}
