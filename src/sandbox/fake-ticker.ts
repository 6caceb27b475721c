// A fake of the public price ticker (prices/ticker.ts), on its own loopback port, so the sandbox
// and the tests fetch quotes over HTTP through the real adapter. PUT /sandbox/quotes sets its prices.
import Fastify from 'fastify'
import { formatUnits } from '../domain/money.ts'
import { tickerSymbols, type Prices } from '../prices/ticker.ts'
import type { QuotedCurrency } from '../store/quotes.ts'

export async function startFakeTicker(initial: Prices) {
  let prices: Prices = { ...initial }
  let down = false
  const app = Fastify({ logger: false })
  app.get('/api/v3/ticker/price', async (_request, reply) => {
    if (down) return reply.code(503).send({ code: -1, msg: 'Service unavailable.' })
    return (Object.entries(prices) as Array<[QuotedCurrency, number]>).map(([currency, cents]) => ({ symbol: tickerSymbols[currency], price: `${formatUnits(cents, 2)}000000` }))
  })
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  return {
    url: `${address}/api/v3/ticker/price`,
    setPrices(next: Prices) {
      prices = { ...prices, ...next }
      return { ...prices }
    },
    /** The ticker stops answering (503), as public sources sometimes do. */
    setDown(value: boolean) {
      down = value
    },
    close: () => app.close(),
  }
}

export type FakeTicker = Awaited<ReturnType<typeof startFakeTicker>>
