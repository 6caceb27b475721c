// Request schemas and error responses: Fastify validates with them, and the OpenAPI document is
// generated from them. Money-bearing bodies reject unknown fields. What the API answers is in
// contract/api.ts, where the use cases can derive their result types from it.
import { Type, type Static } from 'typebox'
import { chargeIdPattern, chargeStatuses, webhookEventNames } from '../domain/charge.ts'
import { brlValuePattern, currencies } from '../domain/money.ts'
import { freeTextPattern, METADATA_MAX_KEY_LENGTH, METADATA_MAX_KEYS, METADATA_MAX_VALUE_LENGTH, PAYER_NAME_MAX_LENGTH, webhookUrlPattern } from '../domain/charge-request.ts'
import { euidPattern, taxNumberPattern } from '../domain/tax-number.ts'
import { statementLineTypes } from '../domain/statement.ts'
import { withdrawalStatuses } from '../domain/withdrawal.ts'
import { errorCatalogue, type ErrorCode } from '../domain/errors.ts'
import type { FieldErrorCode } from '../web/errors.ts'
import { BalanceRecord, BalanceTransactionList, ChargeCreated, ErrorBody, ChargeRecord, CreateRefundBody, RefundList, RefundRecord, CreateWithdrawalBody, DestinationList, PaymentList, WebhookDeliveries, WithdrawalList, WithdrawalRecord } from '../contract/api.ts'

/**
 * The error responses of one endpoint for the OpenAPI document: one entry per HTTP status, whose
 * `code` is limited to the codes listed, so integrators see exactly what to branch on.
 */
export function errorResponses(codes: readonly ErrorCode[]) {
  const byStatus: Record<number, ErrorCode[]> = {}
  for (const code of new Set(codes)) (byStatus[errorCatalogue[code].status] ??= []).push(code)
  return Object.fromEntries(
    Object.entries(byStatus).map(([status, list]) => [
      status,
      Type.Object({ ...ErrorBody.properties, code: Type.Enum(list) }, { description: list.map((code) => `\`${code}\``).join(', ') }),
    ]),
  )
}

// Every authenticated call reads the token from the database: while it is away, 503 service_unavailable.
const authCodes = ['token_missing', 'token_not_found', 'token_pending', 'token_inactive', 'rate_limited', 'internal_error', 'service_unavailable'] as const
export const createPaymentErrors = errorResponses([
  ...authCodes, 'merchant_id_missing', 'invalid_json', 'invalid_request', 'unsupported_media_type', 'body_too_large', 'value_invalid',
  'value_out_of_range', 'email_invalid', 'swap_to_invalid', 'payer_identity_required', 'tax_number_invalid', 'euid_invalid',
  'euid_required', 'euid_unknown', 'payer_limit_exceeded', 'payer_name_invalid', 'payer_name_required', 'webhook_url_invalid', 'webhook_secret_invalid',
  'webhook_events_invalid', 'metadata_invalid', 'return_url_invalid', 'idempotency_key_invalid', 'end_user_blocked', 'idempotency_key_reused', 'idempotency_key_in_use', 'provider_rejected', 'provider_unavailable',
])
export const readErrors = errorResponses([...authCodes, 'payment_not_found', 'invalid_request'])
export const statementErrors = errorResponses([...authCodes, 'invalid_request'])
export const cancelErrors = errorResponses([...authCodes, 'payment_not_found', 'payment_not_cancelable', 'invalid_request'])
export const qrErrors = errorResponses(['payment_not_found', 'invalid_request', 'service_unavailable'])
export const deliveryErrors = errorResponses([...authCodes, 'webhook_delivery_not_found', 'invalid_request'])

/**
 * The Idempotency-Key header of a create: 1 to 255 printable ASCII characters, spaces inside
 * (`pedido 1042`) but not at either end, where HTTP drops them anyway.
 */
export const idempotencyKeyPattern = '^[\\x21-\\x7E](?:[\\x20-\\x7E]{0,253}[\\x21-\\x7E])?$'
export const IdempotencyKeyHeaders = (purpose: string) => Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: idempotencyKeyPattern, description: `1 to 255 printable ASCII characters, spaces allowed inside; ${purpose}.` })),
})

/** Where a charge's or a withdrawal's webhooks go: an absolute http(s) URL without credentials. */
const WebhookUrl = (description: string) => Type.String({ maxLength: 2048, format: 'uri', pattern: webhookUrlPattern, description })

export const CreatePaymentBody = Type.Object(
  {
    value: Type.Union([Type.String({ maxLength: 32, pattern: brlValuePattern }), Type.Number({ minimum: 0 })], {
      description: 'BRL amount as a decimal with a dot and at most two decimals ("10.50"); 10.00 to 5000.00 (20.00 for BTC).',
      examples: ['25.00'],
    }),
    email: Type.String({ format: 'email', maxLength: 254, description: 'The account that receives the money: its owner signs in to the Wallet with this e-mail.', examples: ['store@example.com'] }),
    swap_to: Type.Optional(Type.Enum(currencies, { description: 'What the account is credited in; DEPIX when omitted.' })),
    euid: Type.Optional(Type.String({ pattern: euidPattern, description: "The payer's EUID at the provider (\"EU\" + 15 digits); required above R$ 10,00.", examples: ['EU123456789012345'] })),
    tax_number: Type.Optional(Type.String({
      maxLength: 32,
      pattern: taxNumberPattern,
      description: "The payer's CPF (11 digits) or CNPJ (14 characters, the last two digits), with or without dots, dashes, slashes and spaces; " +
        'its check digits must hold. Charges up to R$ 10,00 may use it instead of euid.',
      examples: ['111.444.777-35'],
    })),
    payer_name: Type.Optional(Type.String({
      minLength: 1,
      maxLength: PAYER_NAME_MAX_LENGTH,
      pattern: freeTextPattern,
      description: "The payer's full name, sent to the provider with tax_number; no control characters, surrounding spaces trimmed.",
    })),
    webhook_url: Type.Optional(WebhookUrl('Where the service POSTs this charge\'s events: an absolute http(s) URL without credentials; https and a public address in production.')),
    webhook_secret: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: freeTextPattern, description: 'Signs the webhooks: a plain secret or a Standard Webhooks whsec_ secret.' })),
    webhook_events: Type.Optional(
      Type.Array(Type.String({ maxLength: 64, enum: [...webhookEventNames] }), {
        maxItems: 16,
        uniqueItems: true,
        description: 'Extra events to receive besides payment.confirmed and balance.released, which are always sent. Needs webhook_url.',
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String({ pattern: `^[\\s\\S]{1,${METADATA_MAX_KEY_LENGTH}}$` }), Type.String({ maxLength: METADATA_MAX_VALUE_LENGTH }), {
        maxProperties: METADATA_MAX_KEYS,
        additionalProperties: false,
        description: `Your own labels (an order number, say): up to ${METADATA_MAX_KEYS} keys of 1 to ${METADATA_MAX_KEY_LENGTH} characters, string values up to ${METADATA_MAX_VALUE_LENGTH}. Shown back in get-payment, the list and every webhook of the charge; never sent to the provider or the payer.`,
        examples: [{ order_id: '1042' }],
      }),
    ),
    return_url: Type.Optional(Type.String({
      maxLength: 2048,
      format: 'uri',
      pattern: webhookUrlPattern,
      description: 'Where the payment page (payUrl) sends the payer back ("Voltar à loja") once the charge is paid or over: an absolute http(s) URL without credentials.',
      examples: ['https://store.example/orders/1042'],
    })),
  },
  {
    additionalProperties: false,
    // A payer is named by euid, or by tax_number up to R$ 10,00; opt-in events need somewhere to go.
    // In an allOf, with each branch's property typed, so a generated client's type says it too
    // (openapi-typescript makes `{…} & ({euid} | {tax_number})` of it; a bare anyOf became unknown).
    allOf: [{ anyOf: [{ required: ['euid'], properties: { euid: { type: 'string' } } }, { required: ['tax_number'], properties: { tax_number: { type: 'string' } } }] }],
    dependentRequired: { webhook_events: ['webhook_url'] },
    title: 'CreatePaymentRequest',
    examples: [{ value: '25.00', email: 'store@example.com', euid: 'EU123456789012345', webhook_url: 'https://store.example/pix-hooks', webhook_secret: 'a long random secret' }],
  },
)
export type CreatePaymentBody = Static<typeof CreatePaymentBody>

/**
 * Which error code a schema failure answers with: per body field (`field.keyword` before `field`),
 * and per rule across fields by its keyword (`anyOf`, `dependentRequired`), with the field it names.
 */
export type FieldErrorCodes = Record<string, FieldErrorCode>

/** Which error code a schema failure on each create-payment field answers with. */
export const createPaymentFieldCodes: FieldErrorCodes = {
  value: 'value_invalid',
  email: 'email_invalid',
  swap_to: 'swap_to_invalid',
  euid: 'euid_invalid',
  tax_number: 'tax_number_invalid',
  payer_name: 'payer_name_invalid',
  webhook_url: 'webhook_url_invalid',
  webhook_secret: 'webhook_secret_invalid',
  webhook_events: 'webhook_events_invalid',
  metadata: 'metadata_invalid',
  return_url: 'return_url_invalid',
  anyOf: { code: 'payer_identity_required', param: 'euid' },
  dependentRequired: { code: 'webhook_events_invalid', param: 'webhook_events' },
}

/** A page's size: an integer in the document; `?limit=2` is coerced from the query string's text. */
const PageLimit = Type.Integer({ minimum: 1, maximum: 100, description: '1 to 100; 20 when omitted' })

/** The page parameters every list takes: its size and the previous page's cursor. */
const pageParts = {
  limit: Type.Optional(PageLimit),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page' })),
}

export const PaymentListQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum(chargeStatuses)),
    created_from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or time; inclusive' })),
    created_to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or time; exclusive' })),
    ...pageParts,
  },
  { additionalProperties: false },
)

export const PaymentIdParams = Type.Object({ payment_id: Type.String({ pattern: chargeIdPattern, description: 'The charge\'s `id`: 32 lowercase hex characters.' }) })

export const QrFileParams = Type.Object({ file: Type.String({ pattern: chargeIdPattern.replace(/\$$/, '\\.png$'), description: 'The charge\'s `id` and `.png`.' }) })

/** A charge id in a query string, as a filter. */
export const ChargeIdFilter = Type.String({ pattern: chargeIdPattern, description: 'A charge\'s `id`: 32 lowercase hex characters.' })



export const withdrawalErrors = errorResponses([
  ...authCodes, 'invalid_json', 'invalid_request', 'unsupported_media_type', 'body_too_large', 'currency_invalid', 'amount_invalid', 'amount_below_minimum', 'amount_above_maximum',
  'destination_not_found', 'destination_not_confirmed', 'destination_cooling_down', 'destination_currency_invalid', 'insufficient_funds', 'withdrawal_limit_exceeded',
  'withdrawal_not_allowed', 'quote_unavailable', 'webhook_url_invalid', 'webhook_secret_invalid', 'idempotency_key_invalid', 'idempotency_key_reused', 'idempotency_key_in_use',
])
export const refundErrors = errorResponses([
  ...authCodes, 'invalid_json', 'invalid_request', 'unsupported_media_type', 'body_too_large', 'payment_not_found', 'amount_invalid', 'amount_below_minimum', 'amount_above_maximum',
  'payment_not_refundable', 'refund_window_closed', 'refund_exceeds_paid', 'payer_key_unknown', 'insufficient_funds', 'withdrawal_limit_exceeded', 'withdrawal_not_allowed', 'quote_unavailable',
  'idempotency_key_invalid', 'idempotency_key_reused', 'idempotency_key_in_use',
])
export const refundReadErrors = errorResponses([...authCodes, 'payment_not_found', 'refund_not_found', 'invalid_request'])

/** Which error code a schema failure on each create-refund field answers with. */
export const createRefundFieldCodes: FieldErrorCodes = { amount: 'amount_invalid', reason: 'invalid_request' }

export const withdrawalReadErrors = errorResponses([...authCodes, 'withdrawal_not_found', 'invalid_request'])


/** Which error code a schema failure on each create-withdrawal field answers with. */
export const createWithdrawalFieldCodes: FieldErrorCodes = {
  currency: 'currency_invalid',
  // Not an integer: the amount is unreadable; an integer below 1: below any minimum.
  amount: 'amount_invalid',
  'amount.minimum': 'amount_below_minimum',
  destination_id: 'destination_not_found',
  webhook_url: 'webhook_url_invalid',
  webhook_secret: 'webhook_secret_invalid',
}

export const WithdrawalListQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum(withdrawalStatuses)),
    created_from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or time; inclusive' })),
    created_to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or time; exclusive' })),
    ...pageParts,
  },
  { additionalProperties: false },
)

export const PaymentLinkListQuery = Type.Object(pageParts, { additionalProperties: false })

export const BalanceTransactionQuery = Type.Object(
  {
    currency: Type.Optional(Type.Enum(currencies)),
    type: Type.Optional(Type.Enum(statementLineTypes)),
    created_from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or time; inclusive' })),
    created_to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or time; exclusive' })),
    ...pageParts,
  },
  { additionalProperties: false },
)

/** The schemas the OpenAPI document names in components.schemas and references by name. */
export const namedSchemas = [CreatePaymentBody, ChargeCreated, ChargeRecord, BalanceRecord, PaymentList, WebhookDeliveries, CreateWithdrawalBody, WithdrawalRecord, WithdrawalList, DestinationList, BalanceTransactionList, CreateRefundBody, RefundRecord, RefundList]

export const createPaymentLinkErrors = errorResponses([
  ...authCodes, 'merchant_id_missing', 'invalid_json', 'invalid_request', 'unsupported_media_type', 'body_too_large', 'payment_link_invalid', 'value_invalid', 'value_out_of_range', 'swap_to_invalid',
])
export const paymentLinkReadErrors = errorResponses([...authCodes, 'merchant_id_missing', 'payment_link_not_found', 'invalid_request'])

/** Which error code a schema failure on each payment link field answers with. */
export const createPaymentLinkFieldCodes: FieldErrorCodes = {
  title: 'payment_link_invalid',
  description: 'payment_link_invalid',
  amount: 'value_invalid',
  min_amount: 'value_invalid',
  max_amount: 'value_invalid',
  swap_to: 'swap_to_invalid',
  expires_at: 'payment_link_invalid',
  max_uses: 'payment_link_invalid',
}
