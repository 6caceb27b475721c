// The rules of a create-payment body (docs/rules.md#charge-creation) that need no I/O. The
// HTTP schema has already fixed the types; this fixes the meaning.
import type { Currency } from './money.ts'
import { defaultWebhookEvents, webhookEventNames, type WebhookEventName } from './charge.ts'
import { isWithinChargeBounds, parseBrlToCents } from './money.ts'
import { DomainError } from './errors.ts'
import { LIMIT_WITHOUT_EUID_CENTS } from './payer-limits.ts'
import { isEuid, parseTaxNumber } from './tax-number.ts'

export type ChargeRequestInput = {
  value: string | number
  email: string
  swap_to?: string
  euid?: string
  tax_number?: string
  payer_name?: string
  webhook_url?: string
  webhook_secret?: string
  webhook_events?: string[]
  metadata?: Record<string, string>
  return_url?: string
}

/** A merchant's labels on a charge (its order number, say), shown back wherever the charge is. */
export type ChargeMetadata = Record<string, string>
/** Stripe's bounds on metadata, which integrators already know: keys up to 40 characters, values up to 500. */
export const METADATA_MAX_KEYS = 20
export const METADATA_MAX_KEY_LENGTH = 40
export const METADATA_MAX_VALUE_LENGTH = 500

export type ChargeRequest = {
  valueCents: number
  email: string
  currency: Currency
  euid: string | null
  taxNumber: string | null
  payerName: string | null
  webhookUrl: string | null
  webhookSecret: string | null
  /** The opt-in events; the spec's two are always sent and not kept here. */
  webhookEvents: WebhookEventName[]
  /** Null when the merchant sent none (or an empty object). */
  metadata: ChargeMetadata | null
  /** Where the payment page's "Voltar à loja" leads; null when none was sent. */
  returnUrl: string | null
}

const printable = /^[^\u0000-\u001f\u007f]+$/u

export const PAYER_NAME_MAX_LENGTH = 100
/**
 * What freeText accepts, as a JSON Schema pattern for the OpenAPI document: something printable,
 * control characters nowhere but in the surrounding white space that is trimmed.
 */
export const freeTextPattern = '^\\s*[^\\s\\u0000-\\u001f\\u007f](?:[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f])?\\s*$'

/** Lengths in characters (code points), as JSON Schema's maxLength counts them, not UTF-16 units. */
function freeText(value: string | undefined, max: number, code: 'payer_name_invalid' | 'webhook_secret_invalid', param: string): string | null {
  if (value === undefined) return null
  const trimmed = value.trim()
  if (trimmed.length < 1 || [...trimmed].length > max || !printable.test(trimmed)) throw new DomainError(code, { param })
  return trimmed
}

/**
 * A webhook URL as the OpenAPI document says it (with `format: uri`): http or https, two slashes,
 * a host that starts with neither a colon nor credentials. WHATWG's URL parser forgives more
 * (`http:/host`, `HTTP:host`); the document and the service accept the same.
 */
export const webhookUrlPattern = '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@:\\s][^/?#@\\s]*(?:[/?#]\\S*)?$'
const webhookUrlShape = new RegExp(webhookUrlPattern)

/** An absolute http(s) URL with a host and no credentials; production demands https. */
export function parseWebhookUrl(raw: string, requireHttps: boolean): URL {
  let url: URL
  try {
    if (!webhookUrlShape.test(raw)) throw new TypeError('not the shape of a webhook URL')
    url = new URL(raw)
  } catch {
    throw new DomainError('webhook_url_invalid', { param: 'webhook_url' })
  }
  const allowed = requireHttps ? ['https:'] : ['https:', 'http:']
  if (!allowed.includes(url.protocol) || url.hostname === '' || url.username !== '' || url.password !== '' || raw.length > 2048) {
    throw new DomainError('webhook_url_invalid', {
      param: 'webhook_url',
      message: requireHttps ? 'webhook_url must be an absolute https URL without credentials.' : undefined,
    })
  }
  return url
}

/** Where a charge's or a withdrawal's webhooks go, and the secret that signs them. */
export function parseWebhookTarget(input: { webhook_url?: string | undefined; webhook_secret?: string | undefined }, publicWebhooksOnly: boolean): { webhookUrl: string | null; webhookSecret: string | null } {
  return {
    webhookUrl: input.webhook_url === undefined ? null : parseWebhookUrl(input.webhook_url, publicWebhooksOnly).href,
    webhookSecret: freeText(input.webhook_secret, 255, 'webhook_secret_invalid', 'webhook_secret'),
  }
}

export function parseChargeRequest(input: ChargeRequestInput, options: { publicWebhooksOnly: boolean }): ChargeRequest {
  const valueCents = parseBrlToCents(input.value)
  if (valueCents === null) throw new DomainError('value_invalid', { param: 'value' })

  const currency = (input.swap_to ?? 'DEPIX') as Currency
  if (!isWithinChargeBounds(valueCents, currency)) {
    const range = currency === 'BTC' ? '20.00 to 5000.00' : '10.00 to 5000.00'
    throw new DomainError('value_out_of_range', { param: 'value', message: `value for ${currency} must be from ${range} BRL.` })
  }

  let taxNumber: string | null = null
  if (input.tax_number !== undefined) {
    const parsed = parseTaxNumber(input.tax_number)
    if (!parsed) throw new DomainError('tax_number_invalid', { param: 'tax_number' })
    taxNumber = parsed.value
  }

  let euid: string | null = null
  if (input.euid !== undefined) {
    if (!isEuid(input.euid)) throw new DomainError('euid_invalid', { param: 'euid' })
    euid = input.euid
  }

  if (euid === null && taxNumber === null) throw new DomainError('payer_identity_required', { param: 'euid' })
  if (euid === null && valueCents > LIMIT_WITHOUT_EUID_CENTS) throw new DomainError('euid_required', { param: 'euid' })

  const payerName = freeText(input.payer_name, PAYER_NAME_MAX_LENGTH, 'payer_name_invalid', 'payer_name')
  const { webhookUrl, webhookSecret } = parseWebhookTarget(input, options.publicWebhooksOnly)

  const webhookEvents = parseWebhookEvents(input.webhook_events, webhookUrl !== null)

  const returnUrl = input.return_url === undefined ? null : parseReturnUrl(input.return_url)
  return { valueCents, email: input.email.toLowerCase(), currency, euid, taxNumber, payerName, webhookUrl, webhookSecret, webhookEvents, metadata: parseMetadata(input.metadata), returnUrl }
}

/**
 * Where a payer goes back to the merchant: an absolute http(s) URL without credentials, as a
 * webhook URL is shaped (the payer's browser follows it, so http is the merchant's choice).
 */
export function parseReturnUrl(raw: string): string {
  try {
    return parseWebhookUrl(raw, false).href
  } catch {
    throw new DomainError('return_url_invalid', { param: 'return_url' })
  }
}

function parseMetadata(metadata: Record<string, unknown> | undefined): ChargeMetadata | null {
  if (metadata === undefined) return null
  const entries = Object.entries(metadata)
  const fits = entries.length <= METADATA_MAX_KEYS && entries.every(([key, value]) =>
    key.length >= 1 && [...key].length <= METADATA_MAX_KEY_LENGTH && typeof value === 'string' && [...value].length <= METADATA_MAX_VALUE_LENGTH)
  if (!fits) throw new DomainError('metadata_invalid', { param: 'metadata' })
  return entries.length === 0 ? null : (metadata as ChargeMetadata)
}

/**
 * Known names, each once, with somewhere to send them. Naming one of the spec's two events is
 * allowed (they are always sent) so a merchant may simply list everything it handles.
 */
function parseWebhookEvents(names: string[] | undefined, hasUrl: boolean): WebhookEventName[] {
  if (names === undefined) return []
  const known = new Set<string>(webhookEventNames)
  if (!hasUrl || new Set(names).size !== names.length || !names.every((name) => known.has(name))) {
    throw new DomainError('webhook_events_invalid', { param: 'webhook_events' })
  }
  return (names as WebhookEventName[]).filter((name) => !(defaultWebhookEvents as readonly string[]).includes(name))
}
