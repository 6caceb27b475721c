// BRL prices of BTC and USDt from public tickers, over HTTP, as micro-reais. Two formats: Binance's
// public spot ticker (`GET /api/v3/ticker/price?symbols=["BTCBRL","USDTBRL"]` → [{symbol, price}])
// and Mercado Bitcoin's (`GET /api/v4/tickers?symbols=BTC-BRL,USDT-BRL` → [{pair, last}]), so a
// second, independent source can check the first (docs/rules.md#quotes).
import { parsePriceMicros, type QuotedCurrency } from '../domain/quotes.ts'

export type Prices = Partial<Record<QuotedCurrency, number>>

export type PriceSource = {
  /** Where the prices come from, for logs and the record. */
  name: string
  /** BRL micro-reais per one BTC / one USDt, now; throws when the source cannot say. */
  prices(): Promise<Prices>
}

export const priceFormats = ['binance', 'mercadobitcoin'] as const
export type PriceFormat = (typeof priceFormats)[number]

const formats: Record<PriceFormat, { query: (url: URL) => void; symbols: Record<QuotedCurrency, string>; symbolKey: string; priceKey: string }> = {
  binance: {
    symbols: { BTC: 'BTCBRL', USDt: 'USDTBRL' },
    query: (url) => url.searchParams.set('symbols', JSON.stringify(['BTCBRL', 'USDTBRL'])),
    symbolKey: 'symbol',
    priceKey: 'price',
  },
  mercadobitcoin: {
    symbols: { BTC: 'BTC-BRL', USDt: 'USDT-BRL' },
    query: (url) => url.searchParams.set('symbols', 'BTC-BRL,USDT-BRL'),
    symbolKey: 'pair',
    priceKey: 'last',
  },
}

/** The symbols a format names the two pairs with (the sandbox's fake ticker answers both). */
export const tickerSymbols = (format: PriceFormat): Record<QuotedCurrency, string> => formats[format].symbols

/** "mercadobitcoin:https://…" names the format; a bare URL speaks Binance's. */
export function parsePriceSource(text: string): { format: PriceFormat; url: string } {
  const prefix = /^([a-z]+):(https?:\/\/.*)$/.exec(text)
  if (prefix && (priceFormats as readonly string[]).includes(prefix[1]!)) return { format: prefix[1] as PriceFormat, url: prefix[2]! }
  return { format: 'binance', url: text }
}

export function createTickerPriceSource(options: { url: string; format: PriceFormat; timeoutMs: number }): PriceSource {
  const format = formats[options.format]
  return {
    name: new URL(options.url).host,
    async prices() {
      const url = new URL(options.url)
      format.query(url)
      const response = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs), redirect: 'error', headers: { accept: 'application/json' } })
      if (!response.ok) throw new Error(`price source answered HTTP ${response.status}`)
      const body = (await response.json()) as unknown
      if (!Array.isArray(body)) throw new Error('price source reply is not a list')
      const prices: Prices = {}
      for (const [currency, symbol] of Object.entries(format.symbols) as Array<[QuotedCurrency, string]>) {
        const entry = body.find((item: unknown) => typeof item === 'object' && item !== null && (item as Record<string, unknown>)[format.symbolKey] === symbol) as Record<string, unknown> | undefined
        const price = entry?.[format.priceKey]
        const micros = typeof price === 'string' ? parsePriceMicros(price) : null
        if (micros !== null) prices[currency] = micros
      }
      return prices
    },
  }
}
