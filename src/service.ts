// Wires the service together from a config: database, migrations, provider adapter, price
// source, mailer, job runner, HTTP app; in sandbox mode the fakes come from sandbox/wiring.ts.
// main.ts and the tests both start it from here.
import { randomBytes } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import type { FastifyServerOptions } from 'fastify'
import { systemClock, type AdjustableClock, type Clock } from './clock.ts'
import type { Config } from './config.ts'
import { createQuoteBook } from './app/quote-book.ts'
import { SWEEP_EVERY_MS } from './app/sweep-provider-deposits.ts'
import { VACUUM_EVERY_MS } from './app/vacuum-database.ts'
import { UNLOCK_EVERY_MS, unlockOrphanedCoins } from './app/unlock-orphaned-coins.ts'
import { nextDigestAt } from './app/operator-digest.ts'
import { sweepPlans } from './domain/reconciliation.ts'
import { createTokenCache } from './store/token-cache.ts'
import { buildApp } from './http/app.ts'
import { consoleRoutes } from './console/routes.ts'
import { payRoutes } from './pay/routes.ts'
import { walletRoutes } from './wallet/routes.ts'
import { createAuthFailureLimiter } from './web/auth-failures.ts'
import { jobHandlers } from './jobs/handlers.ts'
import { createJobRunner } from './jobs/runner.ts'
import { createSmtpMailer, type Mailer } from './mail/mailer.ts'
import { createMailSeal } from './mail/sealed-mail.ts'
import type { Secrets } from './secrets/seal.ts'
import { createTickerPriceSource, type PriceSource } from './prices/ticker.ts'
import { createEulenClient } from './provider/eulen-client.ts'
import type { PaymentProvider } from './provider/provider.ts'
import { withProviderRateLimits, type TakeToken } from './provider/rate-limits.ts'
import { ownerPaysOwnPurchase } from './sandbox/owner-payment.ts'
import { addSandbox, startSandbox, type SandboxParts } from './sandbox/wiring.ts'
import { openDatabase, type OpenedDatabase } from './store/database.ts'
import { JOBS_CHANNEL } from './store/jobs.ts'
import { migrateToLatest } from './store/migrate.ts'
import { createStore } from './store/store.ts'
import { createElementsTreasury } from './treasury/elements-rpc.ts'
import type { Treasury } from './treasury/treasury.ts'
import { webhookDestinations as destinationsOf, type ResolveHost } from './webhooks/destination.ts'

export type ServiceOptions = {
  /** An already opened database (tests); otherwise opened from the config. */
  database?: OpenedDatabase
  /** The service clock: tests pass a frozen one; the sandbox's moves on /sandbox/clock. */
  clock?: AdjustableClock
  /** Wall-clock time (sessions, webhook-timestamp); tests pass one they move by hand. */
  wallClock?: Clock
  logger?: FastifyServerOptions['logger']
  /** How webhook hosts are resolved, when not by the system's DNS (tests: names that resolve as a test needs). */
  resolveHost?: ResolveHost
}

export async function startService(config: Config, options: ServiceOptions = {}) {
  const database = options.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }))
  const closers: Array<() => Promise<void>> = [() => database.close()]
  // Last opened, first closed; every closer runs even when an earlier one fails.
  const close = async () => {
    const failures: unknown[] = []
    for (const closer of closers.reverse()) await closer().catch((error: unknown) => failures.push(error))
    if (failures.length > 0) throw new AggregateError(failures, 'the service did not close cleanly')
  }
  try {
    await migrateToLatest(database.db)
    const store = createStore(database.db)

    // The provider account's limits are the deployment's: every instance draws from the same buckets.
    const takeProviderToken: TakeToken = (call, limit) => store.rateBuckets.take(`provider:${call}`, limit)
    let clock: Clock = options.clock ?? systemClock
    const wallClock: Clock = options.wallClock ?? systemClock
    let provider: PaymentProvider
    let sandbox: SandboxParts | undefined
    let mailer: Mailer
    let priceSources: PriceSource[]
    let treasury: Treasury
    if (config.mode === 'sandbox') {
      // The fake treasury keeps its wallet beside the embedded database, or in the data folder, when the service opened its own database.
      const treasuryStateDir = options.database ? null : config.dataDir
      if (treasuryStateDir !== null) await mkdir(treasuryStateDir, { recursive: true })
      const parts = await startSandbox({ config, database, closers, takeProviderToken, treasuryStateDir, ...(options.clock ? { clock: options.clock } : {}) })
      ;({ provider, mailer, priceSources, sandbox, treasury } = parts)
      clock = parts.sandbox.clock
    } else {
      treasury = createElementsTreasury({ ...config.treasury.rpc!, assets: config.treasury.assets, timeoutMs: config.providerTimeoutMs })
      provider = withProviderRateLimits(createEulenClient({ baseUrl: config.providerUrl!, token: config.providerToken!, timeoutMs: config.providerTimeoutMs }), takeProviderToken)
      mailer = createSmtpMailer({ url: config.smtpUrl!, from: config.mailFrom, timeoutMs: config.smtpTimeoutMs })
      priceSources = config.priceSources.map((source) => createTickerPriceSource({ ...source, timeoutMs: config.providerTimeoutMs }))
    }
    closers.push(() => mailer.close())
    const webhookDestinations = destinationsOf({
      publicOnly: config.publicWebhooksOnly, allowedNetworks: config.webhookAllowedNetworks, timeoutMs: config.webhookTimeoutMs,
      ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    })

    // Sandbox mode without OPS_TOKEN gets a fresh operator token, printed at start-up; the
    // provider webhook secret is shared with the in-process fake.
    const opsToken = config.opsToken ?? randomBytes(24).toString('base64url')
    const providerWebhookSecret = config.providerWebhookSecret ?? randomBytes(24).toString('base64url')
    // During a rotation the previous secrets are accepted too; nothing new is made with them.
    const opsTokens: Secrets = [opsToken, ...(config.opsTokenPrevious === null ? [] : [config.opsTokenPrevious])]
    const providerWebhookSecrets: Secrets = [providerWebhookSecret, ...(config.providerWebhookSecretPrevious === null ? [] : [config.providerWebhookSecretPrevious])]
    const tokenCache = createTokenCache(config.tokenCacheMs)
    const mailSeal = createMailSeal(opsTokens)
    const quotes = createQuoteBook({ store, clock, sources: priceSources, maxAgeMs: config.quoteMaxAgeMs, bandPercent: config.quoteBandPercent, log: { warn: (details, message) => app?.log.warn(details, message) } })
    // The runner logs through the app's logger, which exists once the app is built below.
    let app: Awaited<ReturnType<typeof buildApp>> | undefined
    const jobs = createJobRunner({
      store,
      clock,
      leaseMs: config.jobLeaseMs,
      log: { error: (details, message) => app?.log.error(details, message) },
      handlers: jobHandlers({
        store, clock, wallClock, provider, quotes, publicWebhooksOnly: config.publicWebhooksOnly, webhookDestinations,
        sweepPlans: sweepPlans(config.providerDelayHours), mailer, mailSeal, baseUrl: config.baseUrl, operators: config.operators,
        treasury, network: config.treasury.network, confirmations: config.treasury.confirmations, followEveryMs: config.treasury.pollMs,
        log: { warn: (details, message) => app?.log.warn(details, message), error: (details, message) => app?.log.error(details, message) } }),
    })
    closers.push(() => jobs.stop())
    // Work committed by any instance wakes this one's runner at once.
    const unlisten = await database.listen(JOBS_CHANNEL, (kind) => jobs.wake(kind))
    closers.push(unlisten)
    // One deposit sweep per deployment, whichever instance starts first.
    await store.jobs.ensureSingleton('sweep_deposits', {}, new Date(clock.now().getTime() + SWEEP_EVERY_MS), clock.now())
    // And one daily digest of the console's queues to the operators.
    await store.jobs.ensureSingleton('operator_digest', {}, nextDigestAt(clock.now()), clock.now())
    // The embedded database has no autovacuum: the service does its upkeep (app/vacuum-database.ts).
    if (database.kind === 'pglite') await store.jobs.ensureSingleton('vacuum_database', {}, new Date(clock.now().getTime() + VACUUM_EVERY_MS), clock.now())
    // And one look, on a schedule, for treasury coins a funding locked and nobody stored (app/unlock-orphaned-coins.ts).
    await store.jobs.ensureSingleton('unlock_treasury_coins', {}, new Date(clock.now().getTime() + UNLOCK_EVERY_MS), clock.now())
    // And one job that follows every sent Liquid payout to its confirmations (app/follow-liquid-payouts.ts).
    await store.jobs.ensureSingleton('follow_liquid_payouts', {}, new Date(clock.now().getTime() + config.treasury.pollMs), clock.now())
    const routeDeps = {
      config,
      store,
      provider,
      clock,
      wallClock,
      tokenCache,
      providerWebhookSecrets,
      opsTokens,
      mailSeal,
      mailServerAnswers: () => mailer.check(),
      quotes,
      treasury,
      webhookDestinations,
      ...(sandbox ? { simulatePurchase: ownerPaysOwnPurchase({ fake: sandbox.fake, store, jobs }) } : {}),
      authFailures: createAuthFailureLimiter(config.authFailuresPerMinute),
    }
    app = await buildApp(routeDeps, options.logger === undefined ? {} : { logger: options.logger })
    // Closed first: stop accepting, finish the requests in flight; then the job being worked on,
    // then the fake provider those requests and jobs may still call, then the database.
    closers.push(() => app!.close())
    // The composition root registers the wings of pages on the API's app (each in its own
    // encapsulated part: session, CSRF, headers); they share the parts below them in web/.
    await app.register(walletRoutes, routeDeps)
    await app.register(payRoutes, routeDeps)
    await app.register(consoleRoutes, routeDeps)
    // Sandbox mode adds its controls and points its fake provider's webhooks here; nothing else does.
    if (sandbox) await addSandbox(app, { store, clock, tokenCache, jobs, sandbox, providerWebhookSecret })
    // Before this instance pays anything: coins a run that died left locked in the node (between
    // funding and storing its PSBT) are unlocked now, not at the schedule's next look. A node
    // that does not answer does not stop the start; the schedule looks again.
    await unlockOrphanedCoins({ store, treasury, clock, log: app.log }).catch((error: unknown) => app!.log.warn({ err: error }, 'could not look for orphaned treasury coin locks at start; the schedule will'))
    return { app: app as Awaited<ReturnType<typeof buildApp>>, store, clock, provider, treasury, sandbox, opsToken, providerWebhookSecret, database, tokenCache, jobs, close }
  } catch (error) {
    await close()
    throw error
  }
}

export type Service = Awaited<ReturnType<typeof startService>>
