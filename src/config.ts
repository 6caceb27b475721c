// Every environment variable the service reads, declared once in `environment`; the README's
// configuration table is generated from the same declarations (npm run docs:config).
import { custom, httpUrl, integer, modes, onOff, oneOf, parseEnvironment, text, url, type Env, type Mode } from './config-schema.ts'
import { defaultPayerLadder, parseLadder, type LadderStep } from './domain/payer-limits.ts'
import { DEFAULT_QUOTE_BAND_PERCENT } from './domain/quotes.ts'
import { parsePriceSource, type PriceFormat } from './prices/ticker.ts'

export { ConfigError, type Mode } from './config-schema.ts'

export type Config = {
  mode: Mode
  port: number
  host: string
  baseUrl: string
  databaseUrl: string | null
  dataDir: string
  providerUrl: string | null
  providerToken: string | null
  providerWebhookSecret: string | null
  providerTimeoutMs: number
  supportEmail: string
  docsUrl: string
  opsToken: string | null
  payerLadder: readonly LadderStep[]
  bodyLimitBytes: number
  tokenCacheMs: number
  webhookTimeoutMs: number
  /** delayDepixInHours sent on every merchant charge (decisions 13); 0 sends none. */
  providerDelayHours: number
  /** The sandbox fake's floor on that delay, as Eulen enforces one (0: none). */
  sandboxMinimumDelayHours: number
  /** The sandbox fake refuses a tax number it does not know sent without the payer's name, as Eulen does. */
  sandboxRequireName: boolean
  /** Public tickers for BRL prices of BTC and USDt: the primary, then the one that checks it, if any. */
  priceSources: Array<{ format: PriceFormat; url: string }>
  /** How far (percent) a fetched price may stray from the last accepted one or the second source. */
  quoteBandPercent: number
  /** The oldest price a conversion may use when the source stops answering. */
  quoteMaxAgeMs: number
  /** Requests per minute per API token (the whole deployment); 0 switches the limit off. */
  rateLimitPerMinute: number
  /** What a fresh or idle token may spend at once: a sixth of the minute unless set. */
  rateLimitBurst: number
  /** Authentication failures per minute per client address before 429 (0 = no limit). */
  authFailuresPerMinute: number
  /** Time-outs of incoming HTTP requests: whole request, headers, idle keep-alive. */
  http: { requestTimeoutMs: number; headersTimeoutMs: number; keepAliveTimeoutMs: number }
  /** Hold calls to the provider to its published limits: always in production, on request in sandbox. */
  providerLimits: boolean
  /** Production: webhook URLs must be https and reach only public addresses, at creation and at every attempt. */
  publicWebhooksOnly: boolean
  logLevel: string
  /** SMTP server for the Wallet's mail (production: required); unset in sandbox = the outbox. */
  /** Trust X-Forwarded-For/-Proto from this many proxy hops (0: none). */
  trustProxy: number
  smtpUrl: string | null
  mailFrom: string
  /** Longest wait on the mail server for a connection, its greeting, or any reply (the job waits, never a request). */
  smtpTimeoutMs: number
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

/** In README order: the table is generated from it. */
export const environment = {
  // 0 lets the system choose a free port, which the tests and the benchmarks use.
  PORT: integer({ default: 8080, minimum: 0, maximum: 65_535, description: 'HTTP port' }),
  HOST: text({ default: '0.0.0.0', description: 'Interface to listen on' }),
  BASE_URL: url({
    derive: (lookup) => `http://localhost:${lookup('PORT')}`,
    documentedDefault: '`http://localhost:$PORT`',
    description: 'Public base address; used in `qrImageUrl` and `docs_url`',
  }),
  MODE: oneOf(modes, { default: 'sandbox', description: '`sandbox` (fake provider, `/sandbox` controls) or `production`' }),
  DATABASE_URL: text({ documentedDefault: 'unset', description: 'PostgreSQL URL; unset = embedded PGlite in `DATA_DIR` (one process at a time)' }),
  DATA_DIR: text({ default: './data', description: 'Folder of the embedded database' }),
  PROVIDER_URL: url({ requiredInProduction: true, documentedDefault: '–', description: 'Eulen API base, e.g. `https://depix.eulen.app/api`' }),
  PROVIDER_TOKEN: text({ requiredInProduction: true, documentedDefault: '–', description: 'Eulen Bearer JWT' }),
  PROVIDER_WEBHOOK_SECRET: text({ requiredInProduction: true, documentedDefault: '–', description: 'The `Authorization: Basic` secret registered for provider webhooks' }),
  PROVIDER_TIMEOUT_MS: integer({ default: 10_000, minimum: 1, maximum: JOB_CALL_MAX_MS, description: 'Time-out of one provider call' }),
  // Eulen refuses merchant charges without a delay; the sandbox's fake does only when asked to.
  PROVIDER_DELAY_HOURS: integer({
    derive: (lookup) => (lookup('MODE') === 'production' ? 24 : 0),
    minimum: 0,
    maximum: 720,
    production: { minimum: 1 },
    documentedDefault: '`24` in production, `0` in sandbox',
    description: '`delayDepixInHours` sent on every merchant charge (Eulen requires a floor for merchants); the payment is `pending` until the provider delivers',
  }),
  SANDBOX_PROVIDER_MIN_DELAY_HOURS: integer({
    default: 0,
    minimum: 0,
    maximum: 720,
    description: "Makes the sandbox's fake provider refuse merchant charges below this delay, as Eulen does (520, no QR)",
  }),
  PRICE_SOURCE_URL: custom(priceSource, {
    default: { format: 'binance', url: 'https://api.binance.com/api/v3/ticker/price' },
    documentedDefault: '`https://api.binance.com/api/v3/ticker/price`',
    description: "Public ticker for the BRL prices of BTC and USDt, asked at each confirmation: Binance's format (pairs `BTCBRL`, `USDTBRL`), or Mercado Bitcoin's as `mercadobitcoin:<url>` (`BTC-BRL`, `USDT-BRL`); the sandbox runs fakes of both",
  }),
  PRICE_CHECK_SOURCE_URL: custom(priceSource, {
    documentedDefault: 'unset',
    description: 'A second public ticker (same two formats) that checks the first: a price more than `QUOTE_BAND_PERCENT` away from it is not used. Recommended: without it, the first price after installation anchors the band',
  }),
  QUOTE_BAND_PERCENT: integer({
    default: DEFAULT_QUOTE_BAND_PERCENT,
    minimum: 1,
    maximum: 50,
    description: 'A fetched price more than this far from the last accepted one (or from the second source) is not used: the payment waits in `security_hold` (`quote_unavailable`)',
  }),
  QUOTE_MAX_AGE_SECONDS: integer({
    default: 120,
    minimum: 0,
    maximum: 3_600,
    description: 'When the ticker does not answer, its last price serves this long; after that a BTC/USDt payment waits in `security_hold` (`quote_unavailable`)',
  }),
  SUPPORT_EMAIL: text({ default: 'support@example.com', description: '`support_email` of every error body' }),
  DOCS_URL: url({ derive: (lookup) => `${lookup('BASE_URL')}/docs`, documentedDefault: '`$BASE_URL/docs`', description: '`docs_url` of every error body' }),
  OPS_TOKEN: text({ requiredInProduction: true, documentedDefault: 'generated in sandbox', description: 'Bearer token of the support operations' }),
  PAYER_LIMIT_LADDER: custom(parseLadder, {
    default: defaultPayerLadder,
    documentedDefault: '`0:0:499.00,5:7:1000.00,15:30:2500.00,30:60:5000.00`',
    description: 'Per-charge limit of an identified payer: `confirmed_payments:days_since_first:limit_brl` steps',
  }),
  BODY_LIMIT_BYTES: integer({ default: 16_384, minimum: 1_024, maximum: 1_048_576, description: 'Largest accepted request body (413 `body_too_large` above)' }),
  TOKEN_CACHE_MS: integer({
    default: 1_000,
    minimum: 0,
    maximum: 60_000,
    description: 'How long an instance remembers a token row (0 = ask the database every time). A token replaced on another instance stops working within this time',
  }),
  WEBHOOK_TIMEOUT_MS: integer({ default: 15_000, minimum: 1, maximum: JOB_CALL_MAX_MS, description: 'Time-out of one merchant webhook attempt' }),
  RATE_LIMIT_PER_MINUTE: integer({
    default: 600,
    minimum: 0,
    maximum: 100_000,
    description: 'Requests per minute per API token on `/api`, for the whole deployment (instances share it through the database); above it, 429 `rate_limited` with `Retry-After`. `0` switches it off. Counted after the token is authenticated: an unknown token costs no row (its failure counts against the address, in memory)',
  }),
  RATE_LIMIT_BURST: integer({
    derive: (lookup) => Math.max(1, Math.ceil(Number(lookup('RATE_LIMIT_PER_MINUTE')) / 6)),
    minimum: 1,
    maximum: 100_000,
    documentedDefault: 'a sixth of `RATE_LIMIT_PER_MINUTE`',
    description: 'What a fresh or idle token may spend at once before the per-minute rate applies',
  }),
  AUTH_FAILURES_PER_MINUTE: integer({
    default: 60,
    minimum: 0,
    maximum: 100_000,
    description: 'Failed authentications (API token, operator token, provider webhook secret) per client address per minute; above it, 429 `rate_limited` with `Retry-After`. `0` switches it off',
  }),
  HTTP_REQUEST_TIMEOUT_MS: integer({
    default: 10_000,
    minimum: 1,
    maximum: HTTP_TIMEOUT_MAX_MS,
    description: 'Longest time to receive one whole request (headers and body); a slower client gets 408',
  }),
  HTTP_HEADERS_TIMEOUT_MS: integer({ default: 5_000, minimum: 1, maximum: HTTP_TIMEOUT_MAX_MS, description: "Longest time to receive a request's headers" }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: integer({ default: 5_000, minimum: 1, maximum: HTTP_TIMEOUT_MAX_MS, description: 'How long an idle keep-alive connection is kept open' }),
  SANDBOX_PROVIDER_REQUIRE_NAME: onOff({
    default: true,
    description: "The sandbox's fake provider refuses a `tax_number` it does not know sent without `payer_name` (400 `payer_name_required`), as Eulen does; `off` lets such charges through",
  }),
  SANDBOX_PROVIDER_LIMITS: onOff({
    default: false,
    documentedDefault: 'off',
    description: "`on` makes the sandbox hold its provider calls to Eulen's published limits, as production always does (`/deposit` 15/min, burst 50; `/deposit-status` 60/min; `/ping` 1/min): a burst beyond them is 503 `provider_unavailable` with `Retry-After` instead of a provider ban",
  }),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info', description: 'pino log level' }),
  SMTP_URL: text({
    requiredInProduction: true,
    documentedDefault: '– (sandbox: the outbox)',
    description: "SMTP server for the Wallet's sign-in codes, e.g. `smtp://user:pass@mail.example.com:587` (STARTTLS when offered) or `smtps://…:465`",
  }),
  MAIL_FROM: text({ requiredInProduction: true, default: 'Pix charge service <no-reply@localhost>', description: "Sender of the Wallet's mail" }),
  SMTP_TIMEOUT_MS: integer({
    default: 10_000,
    minimum: 1,
    maximum: JOB_CALL_MAX_MS,
    description: 'Longest wait on the mail server (connection, greeting, each reply). Mail leaves from the job queue, so only the sending job waits, never a request; a message is retried until its code expires',
  }),
  // More hops than any real chain of proxies is a mistake, and would let clients pick their address.
  TRUST_PROXY_HOPS: integer({
    default: 0,
    minimum: 0,
    maximum: 10,
    description: 'Proxies in front of the service whose `X-Forwarded-For`/`-Proto` are believed; set it behind a TLS-terminating proxy so the client address (rate limits) and https (Secure cookies) are right',
  }),
}

export function loadConfig(env: Env = process.env): Config {
  const values = parseEnvironment(environment, env)
  return {
    mode: values.MODE,
    port: values.PORT,
    host: values.HOST,
    baseUrl: values.BASE_URL,
    databaseUrl: values.DATABASE_URL,
    dataDir: values.DATA_DIR,
    providerUrl: values.PROVIDER_URL,
    providerToken: values.PROVIDER_TOKEN,
    providerWebhookSecret: values.PROVIDER_WEBHOOK_SECRET,
    providerTimeoutMs: values.PROVIDER_TIMEOUT_MS,
    supportEmail: values.SUPPORT_EMAIL,
    docsUrl: values.DOCS_URL,
    opsToken: values.OPS_TOKEN,
    payerLadder: values.PAYER_LIMIT_LADDER,
    bodyLimitBytes: values.BODY_LIMIT_BYTES,
    tokenCacheMs: values.TOKEN_CACHE_MS,
    webhookTimeoutMs: values.WEBHOOK_TIMEOUT_MS,
    rateLimitPerMinute: values.RATE_LIMIT_PER_MINUTE,
    rateLimitBurst: values.RATE_LIMIT_BURST,
    priceSources: [values.PRICE_SOURCE_URL, ...(values.PRICE_CHECK_SOURCE_URL === null ? [] : [values.PRICE_CHECK_SOURCE_URL])],
    quoteBandPercent: values.QUOTE_BAND_PERCENT,
    quoteMaxAgeMs: values.QUOTE_MAX_AGE_SECONDS * 1000,
    providerDelayHours: values.PROVIDER_DELAY_HOURS,
    sandboxMinimumDelayHours: values.SANDBOX_PROVIDER_MIN_DELAY_HOURS,
    sandboxRequireName: values.SANDBOX_PROVIDER_REQUIRE_NAME,
    authFailuresPerMinute: values.AUTH_FAILURES_PER_MINUTE,
    http: {
      requestTimeoutMs: values.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: values.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: values.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    providerLimits: values.MODE === 'production' || values.SANDBOX_PROVIDER_LIMITS,
    publicWebhooksOnly: values.MODE === 'production',
    logLevel: values.LOG_LEVEL,
    trustProxy: values.TRUST_PROXY_HOPS,
    smtpUrl: values.SMTP_URL,
    mailFrom: values.MAIL_FROM,
    smtpTimeoutMs: values.SMTP_TIMEOUT_MS,
  }
}

export type ConfigWarning = { code: 'base_url_not_https' | 'trust_proxy_on_open_interface' | 'weak_secret'; message: string }

/** Secrets that look like an example's or a default's rather than the output of a generator. */
function looksDefault(secret: string): boolean {
  const lower = secret.toLowerCase()
  return secret.length < 24 || /^(.)\1*$/.test(secret) || /(changeme|change-me|secret|password|example|default|token|test|sandbox|admin)/.test(lower)
}

const loopbackHost = (host: string) => host === '127.0.0.1' || host === '::1' || host === 'localhost'

/**
 * Settings production runs with but should not (issue 21): printed at start, shown on /readyz.
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
  for (const [name, secret] of [['OPS_TOKEN', config.opsToken], ['PROVIDER_WEBHOOK_SECRET', config.providerWebhookSecret]] as const) {
    if (secret !== null && looksDefault(secret)) {
      warnings.push({ code: 'weak_secret', message: `${name} looks like a default or an example (short, repeated, or a common word): use at least 24 random characters, e.g. openssl rand -base64 32.` })
    }
  }
  return warnings
}
