// The rules of a create-payment body (spec 4.1, decisions section 3) that need no I/O. The
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
}

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
}

const printable = /^[^\u0000-\u001f\u007f]+$/u

function freeText(value: string | undefined, max: number, code: 'payer_name_invalid' | 'webhook_secret_invalid', param: string): string | null {
  if (value === undefined) return null
  const trimmed = value.trim()
  if (trimmed.length < 1 || trimmed.length > max || !printable.test(trimmed)) throw new DomainError(code, { param })
  return trimmed
}

/** An absolute http(s) URL with a host and no credentials; production demands https. */
export function parseWebhookUrl(raw: string, requireHttps: boolean): URL {
  let url: URL
  try {
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

  const payerName = freeText(input.payer_name, 100, 'payer_name_invalid', 'payer_name')
  const { webhookUrl, webhookSecret } = parseWebhookTarget(input, options.publicWebhooksOnly)

  const webhookEvents = parseWebhookEvents(input.webhook_events, webhookUrl !== null)

  return { valueCents, email: input.email.toLowerCase(), currency, euid, taxNumber, payerName, webhookUrl, webhookSecret, webhookEvents }
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
