// A fake of the public price tickers (prices/ticker.ts), on its own loopback port, so the sandbox
// and the tests fetch quotes over HTTP through the real adapter: Binance's format as the primary
// source, Mercado Bitcoin's as the second one that checks it. Each has its own prices, so a test
// or a person can make one jump, or make the two disagree (PUT /sandbox/quotes).
import Fastify from 'fastify'
import { formatPrice, type QuotedCurrency } from '../domain/quotes.ts'
import { tickerSymbols, type PriceFormat, type Prices } from '../prices/ticker.ts'

export async function startFakeTicker(initial: Prices, listen: { host?: string; port?: number } = {}) {
  const prices: Record<PriceFormat, Prices> = { binance: { ...initial }, mercadobitcoin: { ...initial } }
  let down = false
  const app = Fastify({ logger: false })
  const quoted = (format: PriceFormat) => Object.entries(prices[format]) as Array<[QuotedCurrency, number]>
  app.get('/api/v3/ticker/price', async (_request, reply) => {
    if (down) return reply.code(503).send({ code: -1, msg: 'Service unavailable.' })
    return quoted('binance').map(([currency, micros]) => ({ symbol: tickerSymbols('binance')[currency], price: `${formatPrice(micros)}00` }))
  })
  app.get('/api/v4/tickers', async () =>
    quoted('mercadobitcoin').map(([currency, micros]) => ({ pair: tickerSymbols('mercadobitcoin')[currency], last: formatPrice(micros), date: 0 })),
  )
  const address = await app.listen({ host: listen.host ?? '127.0.0.1', port: listen.port ?? 0 })
  return {
    url: `${address}/api/v3/ticker/price`,
    checkUrl: `${address}/api/v4/tickers`,
    /** Sets the prices one source answers (both when `format` is omitted); answers the primary's. */
    setPrices(next: Prices, format?: PriceFormat) {
      for (const which of format ? [format] : (['binance', 'mercadobitcoin'] as const)) prices[which] = { ...prices[which], ...next }
      return { ...prices.binance }
    },
    /** The primary source stops answering (503), as public sources sometimes do. */
    setDown(value: boolean) {
      down = value
    },
    close: () => app.close(),
  }
}

export type FakeTicker = Awaited<ReturnType<typeof startFakeTicker>>
