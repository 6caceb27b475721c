// Every environment variable the service reads, parsed and validated in one place.
import { defaultPayerLadder, parseLadder, type LadderStep } from './domain/payer-limits.ts'
import { DEFAULT_QUOTE_BAND_PERCENT } from './domain/quotes.ts'
import { parsePriceSource, type PriceFormat } from './prices/ticker.ts'

export type Mode = 'sandbox' | 'production'

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

export class ConfigError extends Error {
  override name = 'ConfigError'
}

type Env = Record<string, string | undefined>

function nonEmpty(env: Env, name: string): string | null {
  const value = env[name]?.trim()
  return value ? value : null
}

function positiveInteger(env: Env, name: string, fallback: number): number {
  const raw = nonEmpty(env, name)
  if (raw === null) return fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`)
  return Number(raw)
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = nonEmpty(env, name)
  if (raw === null) return fallback
  if (raw !== 'on' && raw !== 'off') throw new ConfigError(`${name} must be "on" or "off", got "${raw}"`)
  return raw === 'on'
}

/** A price source: a URL in Binance's ticker format, or "mercadobitcoin:<url>". */
function priceSource(name: string, value: string): { format: PriceFormat; url: string } {
  const source = parsePriceSource(value)
  return { format: source.format, url: absoluteUrl(name, source.url) }
}

function absoluteUrl(name: string, value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${value}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be http(s)`)
  return value.replace(/\/+$/, '')
}

export function loadConfig(env: Env = process.env): Config {
  const modeRaw = nonEmpty(env, 'MODE') ?? 'sandbox'
  if (modeRaw !== 'sandbox' && modeRaw !== 'production') {
    throw new ConfigError(`MODE must be "sandbox" or "production", got "${modeRaw}"`)
  }
  const mode: Mode = modeRaw
  const port = positiveInteger(env, 'PORT', 8080)
  const baseUrl = absoluteUrl('BASE_URL', nonEmpty(env, 'BASE_URL') ?? `http://localhost:${port}`)
  const providerUrl = nonEmpty(env, 'PROVIDER_URL')
  const providerToken = nonEmpty(env, 'PROVIDER_TOKEN')
  const providerWebhookSecret = nonEmpty(env, 'PROVIDER_WEBHOOK_SECRET')

  if (mode === 'production') {
    const missing = [
      ['PROVIDER_URL', providerUrl],
      ['PROVIDER_TOKEN', providerToken],
      ['PROVIDER_WEBHOOK_SECRET', providerWebhookSecret],
      ['OPS_TOKEN', nonEmpty(env, 'OPS_TOKEN')],
      ['SMTP_URL', nonEmpty(env, 'SMTP_URL')],
      ['MAIL_FROM', nonEmpty(env, 'MAIL_FROM')],
    ]
      .filter(([, value]) => value === null)
      .map(([name]) => name)
    if (missing.length > 0) {
      throw new ConfigError(`production mode needs ${missing.join(', ')}; set them in the environment`)
    }
  }

  const ladderText = nonEmpty(env, 'PAYER_LIMIT_LADDER')
  let payerLadder: readonly LadderStep[] = defaultPayerLadder
  if (ladderText !== null) {
    try {
      payerLadder = parseLadder(ladderText)
    } catch (error) {
      throw new ConfigError(`PAYER_LIMIT_LADDER: ${(error as Error).message}`)
    }
  }

  return {
    mode,
    port,
    host: nonEmpty(env, 'HOST') ?? '0.0.0.0',
    baseUrl,
    databaseUrl: nonEmpty(env, 'DATABASE_URL'),
    dataDir: nonEmpty(env, 'DATA_DIR') ?? './data',
    providerUrl: providerUrl === null ? null : absoluteUrl('PROVIDER_URL', providerUrl),
    providerToken,
    providerWebhookSecret,
    providerTimeoutMs: positiveInteger(env, 'PROVIDER_TIMEOUT_MS', 10_000),
    supportEmail: nonEmpty(env, 'SUPPORT_EMAIL') ?? 'support@example.com',
    docsUrl: nonEmpty(env, 'DOCS_URL') ?? `${baseUrl}/docs`,
    opsToken: nonEmpty(env, 'OPS_TOKEN'),
    payerLadder,
    bodyLimitBytes: positiveInteger(env, 'BODY_LIMIT_BYTES', 16_384),
    tokenCacheMs: positiveInteger(env, 'TOKEN_CACHE_MS', 1_000),
    webhookTimeoutMs: positiveInteger(env, 'WEBHOOK_TIMEOUT_MS', 15_000),
    rateLimitPerMinute: positiveInteger(env, 'RATE_LIMIT_PER_MINUTE', 600),
    rateLimitBurst: Math.max(1, positiveInteger(env, 'RATE_LIMIT_BURST', Math.ceil(positiveInteger(env, 'RATE_LIMIT_PER_MINUTE', 600) / 6))),
    priceSources: [
      priceSource('PRICE_SOURCE_URL', nonEmpty(env, 'PRICE_SOURCE_URL') ?? 'https://api.binance.com/api/v3/ticker/price'),
      ...(nonEmpty(env, 'PRICE_CHECK_SOURCE_URL') === null ? [] : [priceSource('PRICE_CHECK_SOURCE_URL', nonEmpty(env, 'PRICE_CHECK_SOURCE_URL')!)]),
    ],
    quoteBandPercent: positiveInteger(env, 'QUOTE_BAND_PERCENT', DEFAULT_QUOTE_BAND_PERCENT),
    quoteMaxAgeMs: positiveInteger(env, 'QUOTE_MAX_AGE_SECONDS', 120) * 1000,
    providerDelayHours: positiveInteger(env, 'PROVIDER_DELAY_HOURS', mode === 'production' ? 24 : 0),
    sandboxMinimumDelayHours: positiveInteger(env, 'SANDBOX_PROVIDER_MIN_DELAY_HOURS', 0),
    sandboxRequireName: onOff(env, 'SANDBOX_PROVIDER_REQUIRE_NAME', true),
    authFailuresPerMinute: positiveInteger(env, 'AUTH_FAILURES_PER_MINUTE', 60),
    http: {
      requestTimeoutMs: positiveInteger(env, 'HTTP_REQUEST_TIMEOUT_MS', 10_000),
      headersTimeoutMs: positiveInteger(env, 'HTTP_HEADERS_TIMEOUT_MS', 5_000),
      keepAliveTimeoutMs: positiveInteger(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000),
    },
    providerLimits: mode === 'production' || nonEmpty(env, 'SANDBOX_PROVIDER_LIMITS') === 'on',
    publicWebhooksOnly: mode === 'production',
    logLevel: nonEmpty(env, 'LOG_LEVEL') ?? 'info',
    trustProxy: positiveInteger(env, 'TRUST_PROXY_HOPS', 0),
    smtpUrl: nonEmpty(env, 'SMTP_URL'),
    mailFrom: nonEmpty(env, 'MAIL_FROM') ?? 'Pix charge service <no-reply@localhost>',
    smtpTimeoutMs: positiveInteger(env, 'SMTP_TIMEOUT_MS', 10_000),
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
