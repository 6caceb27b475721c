// Reading Eulen's replies (docs/rules.md#eulen-api): the deposit and payout objects, which its API
// answers and its webhooks POST alike, and the loose values they hold, wherever its envelope
// version puts them.
import { parsePayoutStatus, parseProviderStatus, type ProviderDeposit, type ProviderPayout } from '../domain/provider-report.ts'
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

export function parseProviderDeposit(raw: unknown): ProviderDeposit {
  const object = asRecord(raw)
  const qrId = text(object?.qrId) ?? text(object?.id)
  const status = text(object?.status)
  if (!object || !qrId || !status) throw new ProviderUnavailableError('provider deposit object lacks qrId or status')
  return {
    qrId,
    status: parseProviderStatus(status),
    statusText: status,
    valueInCents: integer(object.valueInCents),
    payerName: text(object.payerName),
    payerTaxNumber: text(object.payerTaxNumber),
    payerEuid: text(object.payerEUID) ?? text(object.payerEuid),
    bankTxId: text(object.bankTxId),
    blockchainTxId: text(object.blockchainTxID) ?? text(object.blockchainTxId),
    raw: object,
  }
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
    status: statusText === null ? null : parsePayoutStatus(statusText),
    statusText,
    depositAddress: text(object.depositAddress),
    depositAmountInCents: integer(object.depositAmountInCents),
    payoutAmountInCents: integer(object.payoutAmountInCents),
    expiration: Number.isNaN(expiration) ? null : new Date(expiration),
    receiptUrl: text(object.receiptUrl),
    blockchainTxId: text(object.blockchainTxID) ?? text(object.blockchainTxId),
  }
}
