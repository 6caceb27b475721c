// Every environment variable the service reads, declared once in `environment` as a TypeBox
// schema: its type, default, bounds, production rules and README row (npm run docs:config).
// loadConfig reads it (every wrong variable reported in one start) and shapes the settings the
// service is given; `Config` is what it returns.
import { Type } from 'typebox'
import { ConfigError, environmentSchema, httpUrl, modes, onOff, parsed, readEnvironment, url, type Env } from './config-schema.ts'
import { parseLadder } from './domain/payer-limits.ts'
import { DEFAULT_QUOTE_BAND_PERCENT } from './domain/quotes.ts'
import { parseOperators } from './domain/operators.ts'
import { parsePriceSource, type PriceFormat } from './prices/ticker.ts'
import { parseBrlToCents, type Currency } from './domain/money.ts'
import { liquidNetworks, type LiquidNetwork } from './treasury/liquid-address.ts'
import { parseAllowedNetworks } from './webhooks/destination.ts'

export { ConfigError, type Mode } from './config-schema.ts'

export type Config = ReturnType<typeof loadConfig>

/** A limit in BRL ("5000.00") as centavos; never 0 or less: a limit is never "off". */
function positiveBrl(value: string): number {
  const cents = parseBrlToCents(value)
  if (cents === null || !Number.isSafeInteger(cents)) throw new Error(`must be an amount in BRL such as "5000.00", got "${value}"`)
  if (cents <= 0) throw new Error('must be more than 0.00: a limit is never off')
  return cents
}

/** A Liquid asset id: 64 hex characters. */
function assetId(value: string): string {
  if (!/^[0-9a-f]{64}$/.test(value)) throw new Error(`must be an asset id of 64 lowercase hex characters, got "${value}"`)
  return value
}

/**
 * Asset ids per network: L-BTC and USDt as Blockstream publishes them, DePix as its issuer's
 * integrations name it on Liquid (docs/treasury.md). The sandbox's regtest ids are its own.
 */
const knownAssets: Record<LiquidNetwork, Partial<Record<Currency, string>>> = {
  liquidv1: {
    BTC: '6f0279e9ed041c3d710a9f57d0c02928416460c4b722ae3457a11eec381c526d',
    USDt: 'ce091c998b83c78bb71a632313ba3760f1763d9cfcffae02258ffa9865a37bd2',
    DEPIX: '02f22f8d9c76ab41661a2729e4752e2c5d1a263012141b86ea98af5472df5189',
  },
  liquidtestnet: {
    BTC: '144c654344aa716d6f3abcc1ca90e5641e4e2a7f633bc09fe3baf64585819a49',
    USDt: 'b612eb46313a2cd6ebabd8b7a8eed5696e29898b87a43bff41c94f51acef9d73',
  },
  elementsregtest: {
    BTC: '5ac9f65c0efcc4775e0baec4ec03abdde22473cd3cf33c0419ca290e0751b225',
    USDt: '0a5d2b0b5bd1a2ee5a3d9c2b22fa0f8ba0a7bb2a1e9f6b3a0d6c4d5e6f708192',
    DEPIX: 'de9f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7',
  },
}

/** A price source: a URL in Binance's ticker format, or "mercadobitcoin:<url>". */
function priceSource(value: string): { format: PriceFormat; url: string } {
  const source = parsePriceSource(value)
  return { format: source.format, url: httpUrl(source.url) }
}

// Calls made from jobs stay well under the job runner's 60 s lease, or a slow one would be taken
// over by another worker and made twice.
const JOB_CALL_MAX_MS = 30_000
// Five minutes is far beyond what a request of at most a megabyte needs; more only holds sockets for slow clients.
const HTTP_TIMEOUT_MAX_MS = 300_000


const text = (options: { default?: string; documentedDefault?: string; requiredInProduction?: boolean; description: string }) => Type.String(options)

/** In README order: the table is generated from it. A variable without a default is optional; one whose default derives from others says so in `documentedDefault`, and loadConfig derives it. */
export const environment = environmentSchema({
  // 0 lets the system choose a free port, which the tests and the benchmarks use.
  PORT: Type.Integer({ default: 8080, minimum: 0, maximum: 65_535, description: 'HTTP port' }),
  HOST: text({ default: '0.0.0.0', description: 'Interface to listen on' }),
  BASE_URL: Type.Optional(url({ documentedDefault: '`http://localhost:$PORT`', description: 'Public base address; used in `qrImageUrl` and `docs_url`' })),
  MODE: Type.Enum(modes, { default: 'sandbox', description: '`sandbox` (fake provider, `/sandbox` controls) or `production`' }),
  DATABASE_URL: Type.Optional(text({ documentedDefault: 'unset', description: 'PostgreSQL URL; unset = embedded PGlite in `DATA_DIR` (one process at a time)' })),
  DATA_DIR: text({ default: './data', description: 'Folder of the embedded database' }),
  PROVIDER_URL: Type.Optional(url({ requiredInProduction: true, documentedDefault: '–', description: 'Eulen API base, e.g. `https://depix.eulen.app/api`' })),
  PROVIDER_TOKEN: Type.Optional(text({ requiredInProduction: true, documentedDefault: '–', description: 'Eulen Bearer JWT' })),
  PROVIDER_WEBHOOK_SECRET: Type.Optional(text({ requiredInProduction: true, documentedDefault: '–', description: 'The `Authorization: Basic` secret registered for provider webhooks' })),
  PROVIDER_WEBHOOK_SECRET_PREVIOUS: Type.Optional(text({
    documentedDefault: 'unset',
    description: 'During a rotation, the secret registered before: webhooks carrying either are accepted until the provider sends only the new one (docs/operations.md)',
  })),
  PROVIDER_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 1, maximum: JOB_CALL_MAX_MS, description: 'Time-out of one provider call' }),
  // Eulen refuses merchant charges without a delay; the sandbox's fake does only when asked to.
  PROVIDER_DELAY_HOURS: Type.Optional(Type.Integer({
    minimum: 0,
    maximum: 720,
    production: { minimum: 1 },
    documentedDefault: '`24` in production, `0` in sandbox',
    description: '`delayDepixInHours` sent on every merchant charge (Eulen requires a floor for merchants); the payment is `pending` until the provider delivers',
  })),
  SANDBOX_PROVIDER_MIN_DELAY_HOURS: Type.Integer({
    default: 0,
    minimum: 0,
    maximum: 720,
    description: "Makes the sandbox's fake provider refuse merchant charges below this delay, as Eulen does (520, no QR)",
  }),
  PRICE_SOURCE_URL: parsed(priceSource, {
    default: 'https://api.binance.com/api/v3/ticker/price',
    description: "Public ticker for the BRL prices of BTC and USDt, asked at each confirmation: Binance's format (pairs `BTCBRL`, `USDTBRL`), or Mercado Bitcoin's as `mercadobitcoin:<url>` (`BTC-BRL`, `USDT-BRL`); the sandbox runs fakes of both",
  }),
  PRICE_CHECK_SOURCE_URL: Type.Optional(parsed(priceSource, {
    documentedDefault: 'unset',
    description: 'A second public ticker (same two formats) that checks the first: a price more than `QUOTE_BAND_PERCENT` away from it is not used, and before any price was accepted a price waits until it answers. Recommended: without it, the first price fetched after installation is used unchecked and anchors the band',
  })),
  QUOTE_BAND_PERCENT: Type.Integer({
    default: DEFAULT_QUOTE_BAND_PERCENT,
    minimum: 1,
    maximum: 50,
    description: 'A fetched price more than this far from the last accepted one (or from the second source) is not used: the payment waits in `security_hold` (`quote_unavailable`)',
  }),
  QUOTE_MAX_AGE_SECONDS: Type.Integer({
    default: 120,
    minimum: 0,
    maximum: 3_600,
    description: 'When the ticker does not answer, its last price serves this long; after that a BTC/USDt payment waits in `security_hold` (`quote_unavailable`)',
  }),
  SUPPORT_EMAIL: text({ default: 'support@example.com', description: '`support_email` of every error body' }),
  DOCS_URL: Type.Optional(url({ documentedDefault: '`$BASE_URL/docs`', description: '`docs_url` of every error body' })),
  OPS_TOKEN: Type.Optional(text({ requiredInProduction: true, documentedDefault: 'generated in sandbox', description: 'Bearer token of the support operations (`/ops` JSON, audited as `token`); also the key that seals queued mail and signs session cookies' })),
  OPS_TOKEN_PREVIOUS: Type.Optional(text({
    documentedDefault: 'unset',
    description: 'During a rotation, the operator token being replaced: still accepted on `/ops`, and sessions and queued mail it signed or sealed still open, while new ones use `OPS_TOKEN` (docs/operations.md)',
  })),
  OPERATORS: Type.Optional(parsed(parseOperators, {
    documentedDefault: 'none',
    description: 'Who may sign in to the support console at `/console`, e.g. `ana@example.com:admin,joao@example.com:support` (`support`: holds, refunds, blocks, withdrawal reviews; `admin`: also quotes, identities, tokens); a malformed entry stops the start',
  })),
  PAYER_LIMIT_LADDER: parsed(parseLadder, {
    default: '0:0:499.00,5:7:1000.00,15:30:2500.00,30:60:5000.00',
    description: 'Per-charge limit of an identified payer: `confirmed_payments:days_since_first:limit_brl` steps',
  }),
  BODY_LIMIT_BYTES: Type.Integer({ default: 65_536, minimum: 1_024, maximum: 1_048_576, description: 'Largest accepted request body (413 `body_too_large` above)' }),
  TOKEN_CACHE_MS: Type.Integer({
    default: 1_000,
    minimum: 0,
    maximum: 60_000,
    description: 'How long an instance remembers a token row (0 = ask the database every time). A token replaced on another instance stops working within this time',
  }),
  PAY_PAGE_CACHE_MS: Type.Integer({
    default: 1_000,
    minimum: 0,
    maximum: 60_000,
    description: 'How long an instance serves a payment page (`/pay/{id}`) as it rendered it (0 = render every view). A payment recorded by another instance shows within this time; one recorded by the same instance, at once',
  }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ default: 15_000, minimum: 1, maximum: JOB_CALL_MAX_MS, description: 'Time-out of one merchant webhook attempt' }),
  WEBHOOK_ALLOWED_NETWORKS: Type.Optional(parsed(parseAllowedNetworks, {
    documentedDefault: 'none',
    description: 'Production: private networks or addresses merchant webhooks may reach besides public ones, e.g. `10.20.0.0/16,192.168.1.5` for receivers inside your own network. Every other private, loopback or link-local address is refused, at creation and as each connection is opened',
  })),
  RATE_LIMIT_PER_MINUTE: Type.Integer({
    default: 600,
    minimum: 0,
    maximum: 100_000,
    description: 'Requests per minute per API token on `/api`, for the whole deployment (instances share it through the database); above it, 429 `rate_limited` with `Retry-After`. `0` switches it off. Counted after the token is authenticated: an unknown token costs no row (its failure counts against the address, in memory)',
  }),
  RATE_LIMIT_BURST: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: 100_000,
    documentedDefault: 'a sixth of `RATE_LIMIT_PER_MINUTE`',
    description: 'What a fresh or idle token may spend at once before the per-minute rate applies',
  })),
  AUTH_FAILURES_PER_MINUTE: Type.Integer({
    default: 60,
    minimum: 0,
    maximum: 100_000,
    description: 'Failed authentications (API token, operator token, provider webhook secret) per client address per minute; above it, 429 `rate_limited` with `Retry-After`. `0` switches it off',
  }),
  HTTP_REQUEST_TIMEOUT_MS: Type.Integer({
    default: 10_000,
    minimum: 1,
    maximum: HTTP_TIMEOUT_MAX_MS,
    description: 'Longest time to receive one whole request (headers and body); a slower client gets 408',
  }),
  HTTP_HEADERS_TIMEOUT_MS: Type.Integer({ default: 5_000, minimum: 1, maximum: HTTP_TIMEOUT_MAX_MS, description: "Longest time to receive a request's headers" }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Type.Integer({ default: 5_000, minimum: 1, maximum: HTTP_TIMEOUT_MAX_MS, description: 'How long an idle keep-alive connection is kept open' }),
  SANDBOX_PROVIDER_REQUIRE_NAME: onOff({
    default: 'on',
    description: "The sandbox's fake provider refuses a `tax_number` it does not know sent without `payer_name` (400 `payer_name_required`), as Eulen does; `off` lets such charges through",
  }),
  SANDBOX_PROVIDER_LIMITS: onOff({
    default: 'off',
    description: "`on` makes the sandbox hold its provider calls to Eulen's published limits, as production always does (`/deposit` 15/min, burst 50; `/deposit-status` 60/min; `/ping` 1/min): a burst beyond them is 503 `provider_unavailable` with `Retry-After` instead of a provider ban",
  }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info', description: 'pino log level' }),
  SMTP_URL: Type.Optional(text({
    requiredInProduction: true,
    documentedDefault: '– (sandbox: the outbox)',
    description: "SMTP server for the Wallet's sign-in codes, e.g. `smtp://user:pass@mail.example.com:587` (STARTTLS when offered) or `smtps://…:465`",
  })),
  // Required in production although it has a default: the sandbox's sender is no real address.
  MAIL_FROM: text({ requiredInProduction: true, default: 'Pix charge service <no-reply@localhost>', description: "Sender of the Wallet's mail" }),
  SMTP_TIMEOUT_MS: Type.Integer({
    default: 10_000,
    minimum: 1,
    maximum: JOB_CALL_MAX_MS,
    description: 'Longest wait on the mail server (connection, greeting, each reply). Mail leaves from the job queue, so only the sending job waits, never a request; a message is retried until its code expires',
  }),
  LIQUID_NETWORK: Type.Optional(Type.Enum(liquidNetworks, {
    documentedDefault: '`liquidv1` in production, `elementsregtest` in sandbox',
    description: 'The Liquid network of the treasury; destination addresses are checked for it',
  })),
  ELEMENTS_RPC_URL: Type.Optional(url({
    requiredInProduction: true,
    documentedDefault: '– (sandbox: the fake)',
    description: "The treasury's Elements Core node, e.g. `http://127.0.0.1:7041` (its RPC port: 7041 on liquidv1, 7039 on liquidtestnet); its wallet pays every withdrawal",
  })),
  ELEMENTS_RPC_USER: Type.Optional(text({ documentedDefault: 'unset', description: 'RPC user (with `ELEMENTS_RPC_PASSWORD`); or set `ELEMENTS_RPC_COOKIE_FILE`' })),
  ELEMENTS_RPC_PASSWORD: Type.Optional(text({ documentedDefault: 'unset', description: 'RPC password' })),
  ELEMENTS_RPC_COOKIE_FILE: Type.Optional(text({ documentedDefault: 'unset', description: "The node's `.cookie` file (read again when the node restarts), instead of a user and password" })),
  ELEMENTS_WALLET: text({ default: 'treasury', description: 'The node wallet the treasury spends from (`/wallet/<name>`)' }),
  LBTC_ASSET_ID: Type.Optional(parsed(assetId, { documentedDefault: "the network's", description: 'L-BTC (the policy asset): what BTC balances are paid in' })),
  USDT_ASSET_ID: Type.Optional(parsed(assetId, { documentedDefault: "Tether's on the network", description: 'USDt on Liquid' })),
  DEPIX_ASSET_ID: Type.Optional(parsed(assetId, {
    documentedDefault: '`02f22f8d…5189` on liquidv1',
    description: 'DePix on Liquid (no known default on liquidtestnet: set it there)',
  })),
  TREASURY_POLL_SECONDS: Type.Integer({ default: 30, minimum: 1, maximum: 3_600, description: 'How often a payout on its way is looked at: its confirmations, or the provider\'s word on a Pix' }),
  JOB_LEASE_SECONDS: Type.Integer({
    default: 30,
    minimum: 2,
    maximum: 300,
    description: 'How long a background job is claimed for; renewed while it runs, so the work of an instance that died is taken over this soon',
  }),
  LIQUID_CONFIRMATIONS: Type.Integer({ default: 2, minimum: 1, maximum: 100, description: 'Confirmations after which a Liquid withdrawal is `completed`' }),
  WITHDRAWAL_LIMIT_BRL: parsed(positiveBrl, { default: '5000.00', description: 'Largest single withdrawal, in BRL terms; above it the request is refused (`withdrawal_limit_exceeded`)' }),
  WITHDRAWAL_DAILY_LIMIT_BRL: parsed(positiveBrl, { default: '10000.00', description: "What one account may withdraw in any 24 hours, in BRL terms; beyond it a withdrawal waits for support's review" }),
  WITHDRAWAL_30D_LIMIT_BRL: parsed(positiveBrl, { default: '50000.00', description: "What one account may withdraw in any 30 days, in BRL terms; beyond it a withdrawal waits for support's review" }),
  WITHDRAWAL_REVIEW_BRL: parsed(positiveBrl, { default: '3000.00', description: "A withdrawal above this (BRL terms) waits for support's review" }),
  DESTINATION_COOLDOWN_HOURS: Type.Integer({ default: 24, minimum: 1, maximum: 720, description: 'How long a newly confirmed destination waits before it can receive (its e-mail carries a link that cancels it)' }),
  // A rehearsal's service runs on the wall clock and cannot wait a day for a destination; a
  // regtest network holds no money, so a shorter wait there risks nothing (docs/operations.md).
  REHEARSAL_DESTINATION_COOLDOWN_SECONDS: Type.Optional(Type.Integer({
    minimum: 0,
    maximum: 86_400,
    documentedDefault: 'unset',
    description: 'Rehearsals only: replaces `DESTINATION_COOLDOWN_HOURS` with these seconds (`npm run fakes` sets `0`), so a withdrawal can be rehearsed at once. Accepted only with `LIQUID_NETWORK=elementsregtest`, a network with no money on it; with any other network the service refuses to start',
  })),
  // More hops than any real chain of proxies is a mistake, and would let clients pick their address.
  TRUST_PROXY_HOPS: Type.Integer({
    default: 0,
    minimum: 0,
    maximum: 10,
    description: 'Proxies in front of the service whose `X-Forwarded-For`/`-Proto` are believed; set it behind a TLS-terminating proxy so the client address (rate limits) and https (Secure cookies) are right',
  }),
})

export function loadConfig(env: Env = process.env) {
  const values = readEnvironment(environment, env)
  // What follows from several variables; each problem is collected, so one start names them all.
  const problems: string[] = []
  const production = values.MODE === 'production'
  // Support must be reachable in production: named operators, the token, or both.
  if (production && (values.OPERATORS ?? []).length === 0 && values.OPS_TOKEN === undefined) {
    problems.push('production mode needs OPERATORS or OPS_TOKEN: nobody could work the support queues')
  }
  // A previous secret is the one being replaced: without the new one beside it, nothing is being rotated.
  for (const name of ['OPS_TOKEN', 'PROVIDER_WEBHOOK_SECRET'] as const) {
    if (values[`${name}_PREVIOUS`] !== undefined && values[name] === undefined) problems.push(`${name}_PREVIOUS is set without ${name}: set the new secret as ${name} and the old one as ${name}_PREVIOUS`)
  }
  const baseUrl = values.BASE_URL ?? `http://localhost:${values.PORT}`
  const network = values.LIQUID_NETWORK ?? (production ? 'liquidv1' : 'elementsregtest')
  const asset = (name: string, set: string | undefined, currency: Currency): string => {
    const id = set ?? knownAssets[network][currency]
    if (id === undefined) problems.push(`${name}: has no default on ${network}: set it`)
    return id ?? ''
  }
  const config = {
    mode: values.MODE,
    port: values.PORT,
    host: values.HOST,
    baseUrl,
    databaseUrl: values.DATABASE_URL ?? null,
    dataDir: values.DATA_DIR,
    providerUrl: values.PROVIDER_URL ?? null,
    providerToken: values.PROVIDER_TOKEN ?? null,
    providerWebhookSecret: values.PROVIDER_WEBHOOK_SECRET ?? null,
    /** The secret registered before, still accepted while the provider is switched over to the new one. */
    providerWebhookSecretPrevious: values.PROVIDER_WEBHOOK_SECRET_PREVIOUS ?? null,
    providerTimeoutMs: values.PROVIDER_TIMEOUT_MS,
    supportEmail: values.SUPPORT_EMAIL,
    docsUrl: values.DOCS_URL ?? `${baseUrl}/docs`,
    opsToken: values.OPS_TOKEN ?? null,
    /** The operator token being replaced, still accepted (and still opening what it sealed) during a rotation. */
    opsTokenPrevious: values.OPS_TOKEN_PREVIOUS ?? null,
    /** Who may sign in to the support console, and with which role (docs/rules.md#operators). */
    operators: values.OPERATORS ?? [],
    payerLadder: values.PAYER_LIMIT_LADDER,
    bodyLimitBytes: values.BODY_LIMIT_BYTES,
    tokenCacheMs: values.TOKEN_CACHE_MS,
    /** How long a rendered payment page is served again (pay/page-cache.ts). */
    payPageCacheMs: values.PAY_PAGE_CACHE_MS,
    webhookTimeoutMs: values.WEBHOOK_TIMEOUT_MS,
    /** Production: networks webhooks may reach besides public addresses (the operator's own receivers). */
    webhookAllowedNetworks: values.WEBHOOK_ALLOWED_NETWORKS ?? [],
    /** Requests per minute per API token (the whole deployment); 0 switches the limit off. */
    rateLimitPerMinute: values.RATE_LIMIT_PER_MINUTE,
    /** What a fresh or idle token may spend at once: a sixth of the minute unless set. */
    rateLimitBurst: values.RATE_LIMIT_BURST ?? Math.max(1, Math.ceil(values.RATE_LIMIT_PER_MINUTE / 6)),
    /** Public tickers for BRL prices of BTC and USDt: the primary, then the one that checks it, if any. */
    priceSources: [values.PRICE_SOURCE_URL, ...(values.PRICE_CHECK_SOURCE_URL === undefined ? [] : [values.PRICE_CHECK_SOURCE_URL])],
    /** How far (percent) a fetched price may stray from the last accepted one or the second source. */
    quoteBandPercent: values.QUOTE_BAND_PERCENT,
    /** The oldest price a conversion may use when the source stops answering. */
    quoteMaxAgeMs: values.QUOTE_MAX_AGE_SECONDS * 1000,
    /** delayDepixInHours sent on every merchant charge (docs/rules.md#provider-delay); 0 sends none. */
    providerDelayHours: values.PROVIDER_DELAY_HOURS ?? (production ? 24 : 0),
    /** The sandbox fake's floor on that delay, as Eulen enforces one (0: none). */
    sandboxMinimumDelayHours: values.SANDBOX_PROVIDER_MIN_DELAY_HOURS,
    /** The sandbox fake refuses a tax number it does not know sent without the payer's name, as Eulen does. */
    sandboxRequireName: values.SANDBOX_PROVIDER_REQUIRE_NAME,
    /** Authentication failures per minute per client address before 429 (0 = no limit). */
    authFailuresPerMinute: values.AUTH_FAILURES_PER_MINUTE,
    /** Time-outs of incoming HTTP requests: whole request, headers, idle keep-alive. */
    http: {
      requestTimeoutMs: values.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: values.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: values.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    /** Hold calls to the provider to its published limits: always in production, on request in sandbox. */
    providerLimits: production || values.SANDBOX_PROVIDER_LIMITS,
    /** Production: webhook URLs must be https and reach only public addresses, at creation and at every attempt. */
    publicWebhooksOnly: production,
    logLevel: values.LOG_LEVEL,
    /** Trust X-Forwarded-For/-Proto from this many proxy hops (0: none). */
    trustProxy: values.TRUST_PROXY_HOPS,
    /** SMTP server for the Wallet's mail (production: required); unset in sandbox = the outbox. */
    smtpUrl: values.SMTP_URL ?? null,
    mailFrom: values.MAIL_FROM,
    /** Longest wait on the mail server for a connection, its greeting, or any reply (the job waits, never a request). */
    smtpTimeoutMs: values.SMTP_TIMEOUT_MS,
    /** How long a job is claimed for (renewed while it runs). */
    jobLeaseMs: values.JOB_LEASE_SECONDS * 1000,
    /** The Liquid treasury: an Elements Core wallet over JSON-RPC (null in sandbox: the fake). */
    treasury: {
      /** How often a payout on its way is looked at. */
      pollMs: values.TREASURY_POLL_SECONDS * 1000,
      network,
      rpc: treasuryRpc(values, problems),
      assets: { BTC: asset('LBTC_ASSET_ID', values.LBTC_ASSET_ID, 'BTC'), USDt: asset('USDT_ASSET_ID', values.USDT_ASSET_ID, 'USDt'), DEPIX: asset('DEPIX_ASSET_ID', values.DEPIX_ASSET_ID, 'DEPIX') } satisfies Record<Currency, string>,
      confirmations: values.LIQUID_CONFIRMATIONS,
    },
    withdrawals: {
      limits: {
        perWithdrawalCents: values.WITHDRAWAL_LIMIT_BRL,
        dailyCents: values.WITHDRAWAL_DAILY_LIMIT_BRL,
        monthlyCents: values.WITHDRAWAL_30D_LIMIT_BRL,
        reviewCents: values.WITHDRAWAL_REVIEW_BRL,
      },
      cooldownMs: destinationCooldownMs(values.DESTINATION_COOLDOWN_HOURS, values.REHEARSAL_DESTINATION_COOLDOWN_SECONDS, network, problems),
    },
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return config
}

/**
 * How long a new destination waits: the hours configured, or a rehearsal's seconds on regtest.
 * A shortened wait is refused with a real network's addresses: there it would be a wrongly copied
 * line of a rehearsal's environment, and the wait is what protects an owner whose session was taken.
 */
function destinationCooldownMs(hours: number, rehearsalSeconds: number | undefined, network: LiquidNetwork, problems: string[]): number {
  if (rehearsalSeconds === undefined) return hours * 3_600_000
  if (network !== 'elementsregtest') {
    problems.push(`REHEARSAL_DESTINATION_COOLDOWN_SECONDS is for rehearsals against fakes (LIQUID_NETWORK=elementsregtest), not ${network}: remove it; DESTINATION_COOLDOWN_HOURS sets the cool-down`)
  }
  return rehearsalSeconds * 1000
}

type RpcAuth = { user: string; password: string } | { cookieFile: string }

/** The node's address and how to log in: a user and password, or the cookie file; production needs one of them. */
function treasuryRpc(
  values: { ELEMENTS_RPC_URL?: string; ELEMENTS_WALLET: string; ELEMENTS_RPC_USER?: string; ELEMENTS_RPC_PASSWORD?: string; ELEMENTS_RPC_COOKIE_FILE?: string },
  problems: string[],
): { url: string; wallet: string; auth: RpcAuth } | null {
  if (values.ELEMENTS_RPC_URL === undefined) return null
  const user = values.ELEMENTS_RPC_USER
  const password = values.ELEMENTS_RPC_PASSWORD
  if ((user === undefined) !== (password === undefined)) {
    problems.push('ELEMENTS_RPC_USER and ELEMENTS_RPC_PASSWORD go together')
    return null
  }
  const auth = user !== undefined && password !== undefined ? { user, password } : values.ELEMENTS_RPC_COOKIE_FILE !== undefined ? { cookieFile: values.ELEMENTS_RPC_COOKIE_FILE } : null
  if (auth === null) problems.push('ELEMENTS_RPC_URL needs ELEMENTS_RPC_USER and ELEMENTS_RPC_PASSWORD, or ELEMENTS_RPC_COOKIE_FILE')
  return auth === null ? null : { url: values.ELEMENTS_RPC_URL, wallet: values.ELEMENTS_WALLET, auth }
}

export type ConfigWarning = { code: 'base_url_not_https' | 'trust_proxy_on_open_interface' | 'weak_secret'; message: string }

/** Secrets that look like an example's or a default's rather than the output of a generator. */
function looksDefault(secret: string): boolean {
  const lower = secret.toLowerCase()
  return secret.length < 24 || /^(.)\1*$/.test(secret) || /(changeme|change-me|secret|password|example|default|token|test|sandbox|admin)/.test(lower)
}

const loopbackHost = (host: string) => host === '127.0.0.1' || host === '::1' || host === 'localhost'

/**
 * Settings production runs with but should not: printed at start, shown on /readyz.
 * None stops the service: each can be right for a deployment that knows why.
 */
export function productionWarnings(config: Config): ConfigWarning[] {
  if (config.mode !== 'production') return []
  const warnings: ConfigWarning[] = []
  if (!config.baseUrl.startsWith('https://')) {
    warnings.push({ code: 'base_url_not_https', message: `BASE_URL is ${config.baseUrl}: the Wallet's cookies go without Secure and links are plain http. Serve it behind TLS and set an https BASE_URL.` })
  }
  if (config.trustProxy > 0 && !loopbackHost(config.host)) {
    warnings.push({
      code: 'trust_proxy_on_open_interface',
      message: `TRUST_PROXY_HOPS=${config.trustProxy} with HOST=${config.host}: a client that reaches this port without the proxy can choose its own address through X-Forwarded-For. Listen only where the proxy connects from (HOST=127.0.0.1 with the proxy on this machine), or firewall the port.`,
    })
  }
  const rpcPassword = config.treasury.rpc !== null && 'password' in config.treasury.rpc.auth ? config.treasury.rpc.auth.password : null
  for (const [name, secret] of [['OPS_TOKEN', config.opsToken], ['PROVIDER_WEBHOOK_SECRET', config.providerWebhookSecret], ['ELEMENTS_RPC_PASSWORD', rpcPassword]] as const) {
    if (secret !== null && looksDefault(secret)) {
      warnings.push({ code: 'weak_secret', message: `${name} looks like a default or an example (short, repeated, or a common word): use at least 24 random characters, e.g. openssl rand -base64 32.` })
    }
  }
  return warnings
}
