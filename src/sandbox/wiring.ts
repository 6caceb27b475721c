// Everything sandbox mode adds to the service, in one place: the fake provider (and the adapter
// pointed at it over HTTP), the fake price ticker, the outbox in place of SMTP, and the hook that
// tells the fake provider where this service listens. service.ts asks for it in sandbox mode only.
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { createAdjustableClock, type AdjustableClock } from '../clock.ts'
import type { Config } from '../config.ts'
import { createSmtpMailer, type Mailer } from '../mail/mailer.ts'
import { createTickerPriceSource, type PriceSource } from '../prices/ticker.ts'
import { createEulenClient } from '../provider/eulen-client.ts'
import type { PaymentProvider } from '../provider/provider.ts'
import { withProviderRateLimits, type TakeToken } from '../provider/rate-limits.ts'
import type { OpenedDatabase } from '../store/database.ts'
import { startFakeEulen, type FakeEulen } from './fake-eulen.ts'
import { startFakeElements, type FakeElements } from './fake-elements.ts'
import { createElementsTreasury } from '../treasury/elements-rpc.ts'
import type { Treasury } from '../treasury/treasury.ts'
import type { Currency } from '../domain/money.ts'
import { join } from 'node:path'
import { startFakeTicker, type FakeTicker } from './fake-ticker.ts'
import { sandboxRoutes, type SandboxParts, type SandboxRouteDeps } from './routes.ts'
import { createOutbox, type Outbox } from './outbox.ts'

/** What the sandbox treasury starts with, in 8-decimal units: R$ 1.000.000 of DePix, 10 L-BTC, 100 000 USDt. */
const SANDBOX_TREASURY: Record<Currency, bigint> = { DEPIX: 100_000_000_000_000n, BTC: 1_000_000_000n, USDt: 10_000_000_000_000n }

/** A new fake treasury (no L-BTC yet) gets the sandbox's coins; one kept from an earlier start keeps what it has. */
export function fundNewFakeTreasury(elements: FakeElements): void {
  if (elements.balance('BTC') === 0n) for (const [currency, units] of Object.entries(SANDBOX_TREASURY) as Array<[Currency, bigint]>) elements.setBalance(currency, units)
}

/** Sandbox conversions work out of the box (BRL micro-reais); PUT /sandbox/quotes changes the fake tickers. */
export const SANDBOX_DEFAULT_PRICES = { BTC: 350_000_000_000, USDt: 5_400_000 }


export type { SandboxParts }

export async function startSandbox(options: {
  config: Config
  database: OpenedDatabase
  clock?: AdjustableClock
  closers: Array<() => Promise<void>>
  takeProviderToken: TakeToken
  /** Where the fake treasury keeps its wallet across restarts; null keeps it in memory (tests). */
  treasuryStateDir: string | null
}): Promise<{
  sandbox: SandboxParts
  provider: PaymentProvider
  mailer: Mailer
  priceSources: PriceSource[]
  treasury: Treasury
}> {
  const { config, database, closers } = options
  const clock = options.clock ?? createAdjustableClock()
  const token = randomBytes(24).toString('hex')
  const fake = await startFakeEulen({
    db: database.db,
    clock,
    token,
    minimumDelayHours: config.sandboxMinimumDelayHours,
    enforceRateLimits: config.providerLimits,
    requireEndUserName: config.sandboxRequireName,
  })
  closers.push(() => fake.close())
  const client = createEulenClient({ baseUrl: fake.url, token, timeoutMs: config.providerTimeoutMs })
  const ticker = await startFakeTicker(SANDBOX_DEFAULT_PRICES)
  closers.push(() => ticker.close())
  // The treasury is a fake Elements node reached over JSON-RPC by the production adapter; its
  // wallet is kept in the data folder across restarts, and starts with enough to pay withdrawals.
  const rpc = { user: 'sandbox', password: randomBytes(18).toString('hex') }
  const elements = await startFakeElements({ network: config.treasury.network, wallet: 'treasury', ...rpc, assets: config.treasury.assets, ...(options.treasuryStateDir === null ? {} : { stateFile: join(options.treasuryStateDir, 'fake-elements.json') }) })
  closers.push(() => elements.close())
  fundNewFakeTreasury(elements)
  // The fake provider's payouts see the DePix the treasury sends to their deposit addresses.
  fake.watchPayouts(elements)
  const treasury = createElementsTreasury({ url: elements.url, wallet: 'treasury', auth: rpc, assets: config.treasury.assets, timeoutMs: config.providerTimeoutMs })
  // Without SMTP_URL the sandbox keeps its mail in an outbox that /sandbox/outbox lists.
  const outbox = config.smtpUrl === null ? await createOutbox(database.db, clock) : null
  return {
    sandbox: { fake, clock, outbox, ticker, elements },
    treasury,
    provider: config.providerLimits ? withProviderRateLimits(client, options.takeProviderToken) : client,
    mailer: outbox?.mailer ?? createSmtpMailer({ url: config.smtpUrl!, from: config.mailFrom, timeoutMs: config.smtpTimeoutMs }),
    // A second source checks the first, as docs/rules.md#quotes recommends: both fakes agree until told otherwise.
    priceSources: [
      createTickerPriceSource({ url: ticker.url, format: 'binance', timeoutMs: config.providerTimeoutMs }),
      createTickerPriceSource({ url: ticker.checkUrl, format: 'mercadobitcoin', timeoutMs: config.providerTimeoutMs }),
    ],
  }
}

/**
 * Sandbox mode's part of the HTTP app: its controls, one plugin, and the fake provider's webhooks
 * pointed at wherever the app ends up listening. The composition root calls it in sandbox mode only.
 */
export async function addSandbox(app: FastifyInstance, deps: Omit<SandboxRouteDeps, 'sandbox'> & { sandbox: SandboxParts; providerWebhookSecret: string }): Promise<void> {
  await app.register(sandboxRoutes, deps)
  pointFakeProviderAt(app, deps.sandbox.fake, deps.providerWebhookSecret)
}

/** The fake provider sends its webhooks to wherever this service ends up listening. */
function pointFakeProviderAt(
  app: Pick<FastifyInstance, 'server'> & { addHook(name: 'onListen', hook: () => Promise<void>): unknown },
  fake: FakeEulen,
  providerWebhookSecret: string,
): void {
  app.addHook('onListen', async () => {
    const address = app.server.address()
    if (address !== null && typeof address === 'object') {
      const host = address.family === 'IPv6' ? `[${address.address === '::' ? '::1' : address.address}]` : address.address === '0.0.0.0' ? '127.0.0.1' : address.address
      fake.setWebhookTarget(`http://${host}:${address.port}/provider/webhooks`, providerWebhookSecret)
    }
  })
}
