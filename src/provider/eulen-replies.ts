// Reading Eulen's replies (docs/rules.md#eulen-api): the deposit and payout objects, which its API
// answers and its webhooks POST alike, its MED webhook, and the loose values they hold, wherever
// its envelope version puts them. Each is read here, once, into the domain's event: no use case
// reads Eulen's strings (domain/provider-report.ts).
import { requestHash } from '../request-hash.ts'
import { DomainError } from '../domain/errors.ts'
import { parseProviderStatus, type DepositEvent, type ProviderDeposit, type ProviderMed, type ProviderPayout, type ProviderPayoutState, type ProviderStatus } from '../domain/provider-report.ts'
import { ProviderUnavailableError } from './provider.ts'

export function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null
}

export function text(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null
}

export function integer(value: unknown): number | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value)
  return null
}

/** The provider's own sentence about a failure, wherever its envelope version puts it. */
export function providerSentence(body: Record<string, unknown> | null): string | null {
  const response = asRecord(body?.response)
  return text(response?.errorMessage) ?? text(body?.errorMessage) ?? text(body?.message)
}

/** What a deposit status is for its charge (docs/rules.md#provider-statuses): `depix_sent` delivers the money. */
function depositEvent(status: ProviderStatus | null): DepositEvent | null {
  if (status === null) return null
  return status === 'depix_sent' ? { kind: 'money_arrived' } : { kind: 'provider_status', status }
}

export function parseProviderDeposit(raw: unknown): ProviderDeposit {
  const object = asRecord(raw)
  const qrId = text(object?.qrId) ?? text(object?.id)
  const statusText = text(object?.status)
  if (!object || !qrId || !statusText) throw new ProviderUnavailableError('provider deposit object lacks qrId or status')
  const status = parseProviderStatus(statusText)
  return {
    qrId,
    event: depositEvent(status),
    status,
    statusText,
    valueInCents: integer(object.valueInCents),
    payerName: text(object.payerName),
    payerTaxNumber: text(object.payerTaxNumber),
    payerEuid: text(object.payerEUID) ?? text(object.payerEuid),
    bankTxId: text(object.bankTxId),
    blockchainTxId: text(object.blockchainTxID) ?? text(object.blockchainTxId),
    // A status is reported once: the same status again is the same report.
    report: { key: `status:${statusText}`, blockReason: `${statusText} reported by the provider`, body: object },
  }
}

/**
 * The MED webhook's body. The same MED delivered again has the same key; a second MED on the
 * payment (another date, another amount, anything the provider says differently) has another:
 * the body's fields, in any order, are the report.
 */
export function parseProviderMed(body: Record<string, unknown>): ProviderMed {
  const qrId = text(body.qrId)
  if (qrId === null) throw new DomainError('invalid_request', { param: 'qrId', message: 'A MED webhook needs qrId.' })
  const principal = body.principalValueInCents
  const principalCents = typeof principal === 'number' && Number.isSafeInteger(principal) && principal > 0 ? principal
    : typeof principal === 'string' && /^[1-9]\d{0,11}$/.test(principal) ? Number(principal)
    : null
  if (principal !== undefined && principal !== null && principalCents === null) {
    throw new DomainError('invalid_request', { param: 'principalValueInCents', message: 'principalValueInCents must be a positive whole number of centavos.' })
  }
  return {
    qrId,
    euid: text(body.euid),
    taxNumber: text(body.taxNumber),
    principalCents,
    report: { key: `med:${requestHash(body)}`, blockReason: `MED on deposit ${qrId}`, body },
  }
}

/** Where a payout status leaves the Pix-out: `sent` is paid; `error`, `canceled`, `refunded` failed; the rest, or a status we do not know, is on its way. */
function payoutState(status: string | null): ProviderPayoutState {
  if (status === 'sent') return 'paid'
  return status === 'error' || status === 'canceled' || status === 'refunded' ? 'failed' : 'on_its_way'
}

/** A payout object: POST /withdraw's reply, GET /withdraw-status and the withdraw webhook alike. */
export function parseProviderPayout(raw: unknown): ProviderPayout {
  const object = asRecord(raw)
  const withdrawalId = text(object?.withdrawalId) ?? text(object?.id)
  if (!object || !withdrawalId) throw new ProviderUnavailableError('provider payout object lacks withdrawalId')
  const statusText = text(object.status)
  const expiration = Date.parse(text(object.expiration) ?? '')
  return {
    withdrawalId,
    state: payoutState(statusText),
    statusText,
    depositAddress: text(object.depositAddress),
    depositAmountInCents: integer(object.depositAmountInCents),
    payoutAmountInCents: integer(object.payoutAmountInCents),
    expiration: Number.isNaN(expiration) ? null : new Date(expiration),
    receiptUrl: text(object.receiptUrl),
    blockchainTxId: text(object.blockchainTxID) ?? text(object.blockchainTxId),
  }
}
