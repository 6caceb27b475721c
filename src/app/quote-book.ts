// The BRL price a BTC or USDt credit is converted at: "the quote at the moment" of confirmation
// (spec section 1). The operator's override (PUT /ops/quotes) wins while it is set; otherwise the
// price source is asked now, and when it cannot answer, its last answer serves while younger than
// the maximum age. No fresh quote: the payment is held (quote_unavailable), never converted at a
// stale price. Asked before the confirming transaction, so no HTTP call holds database locks.
import type { Clock } from '../clock.ts'
import type { PriceSource, Prices } from '../prices/ticker.ts'
import type { Currency } from '../domain/money.ts'
import type { Store } from '../store/store.ts'

export type Quote = { cents: number; source: 'override' | 'ticker'; at: Date }

/** The quote a credit in `currency` converts at; null for DEPIX, which needs none, or when none is fresh. */
export type QuoteBook = { at(currency: Currency): Promise<Quote | null> }

export function createQuoteBook(deps: {
  store: Store
  clock: Clock
  priceSource: PriceSource
  maxAgeMs: number
  log?: { warn: (details: object, message: string) => void }
}): QuoteBook {
  let last: { prices: Prices; at: Date } | null = null
  return {
    async at(currency) {
      if (currency === 'DEPIX') return null
      const override = await deps.store.quotes.find(currency)
      if (override) return { cents: override.brl_cents, source: 'override', at: override.updated_at }
      const now = deps.clock.now()
      try {
        last = { prices: await deps.priceSource.prices(), at: now }
      } catch (error) {
        deps.log?.warn({ err: error }, 'the price source did not answer')
      }
      const cents = last?.prices[currency]
      if (last === null || cents === undefined || now.getTime() - last.at.getTime() > deps.maxAgeMs) return null
      return { cents, source: 'ticker', at: last.at }
    },
  }
}
