// BRL prices of BTC and USDt from a public ticker, over HTTP. The format is Binance's public
// spot ticker (`GET /api/v3/ticker/price?symbols=["BTCBRL","USDTBRL"]` → [{symbol, price}]), a
// well-known source with both pairs; PRICE_SOURCE_URL points elsewhere that speaks the same.
import type { QuotedCurrency } from '../store/quotes.ts'

export type Prices = Partial<Record<QuotedCurrency, number>>

export type PriceSource = {
  /** BRL cents per one BTC / one USDt, now; throws when the source cannot say. */
  prices(): Promise<Prices>
}

export const tickerSymbols: Record<QuotedCurrency, string> = { BTC: 'BTCBRL', USDt: 'USDTBRL' }

/** "350123.45678" → 35012346 cents, rounded half up, without floating point. */
export function decimalPriceToCents(text: string): number | null {
  const match = /^(\d{1,12})(?:\.(\d+))?$/.exec(text)
  if (!match) return null
  const fraction = (match[2] ?? '').padEnd(3, '0')
  const cents = Number(match[1]) * 100 + Number(fraction.slice(0, 2)) + (Number(fraction[2]) >= 5 ? 1 : 0)
  return cents > 0 ? cents : null
}

export function createTickerPriceSource(options: { url: string; timeoutMs: number }): PriceSource {
  return {
    async prices() {
      const url = new URL(options.url)
      url.searchParams.set('symbols', JSON.stringify(Object.values(tickerSymbols)))
      const response = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs), redirect: 'error', headers: { accept: 'application/json' } })
      if (!response.ok) throw new Error(`price source answered HTTP ${response.status}`)
      const body = (await response.json()) as unknown
      if (!Array.isArray(body)) throw new Error('price source reply is not a list')
      const prices: Prices = {}
      for (const [currency, symbol] of Object.entries(tickerSymbols) as Array<[QuotedCurrency, string]>) {
        const entry = body.find((item: unknown) => typeof item === 'object' && item !== null && (item as { symbol?: unknown }).symbol === symbol) as { price?: unknown } | undefined
        const cents = typeof entry?.price === 'string' ? decimalPriceToCents(entry.price) : null
        if (cents !== null) prices[currency] = cents
      }
      return prices
    },
  }
}
