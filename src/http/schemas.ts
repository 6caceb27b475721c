// Request and response schemas: Fastify validates and serializes with them, and the OpenAPI
// document is generated from them. Money-bearing bodies reject unknown fields.
import { Type, type Static } from 'typebox'
import { chargeStatuses } from '../domain/charge.ts'
import { currencies } from '../domain/money.ts'
import { errorCatalogue, type ErrorCode } from '../domain/errors.ts'

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

export const ErrorBody = Type.Object({
  error: Type.String(),
  code: Type.String(),
  docs_url: Type.String(),
  support_email: Type.String(),
  request_id: Type.String(),
  param: Type.Optional(Type.String()),
})

/**
 * The error responses of one endpoint for the OpenAPI document: one entry per HTTP status, whose
 * `code` is limited to the codes listed, so integrators see exactly what to branch on.
 */
export function errorResponses(codes: readonly ErrorCode[]) {
  const byStatus: Record<number, ErrorCode[]> = {}
  for (const code of codes) (byStatus[errorCatalogue[code].status] ??= []).push(code)
  return Object.fromEntries(
    Object.entries(byStatus).map(([status, list]) => [
      status,
      Type.Object({ ...ErrorBody.properties, code: Type.Enum(list) }, { description: list.map((code) => `\`${code}\``).join(', ') }),
    ]),
  )
}

const authCodes = ['token_missing', 'token_not_found', 'token_pending', 'token_inactive', 'internal_error'] as const
export const createPaymentErrors = errorResponses([
  ...authCodes, 'merchant_id_missing', 'invalid_json', 'invalid_request', 'unsupported_media_type', 'body_too_large', 'value_invalid',
  'value_out_of_range', 'email_invalid', 'swap_to_invalid', 'payer_identity_required', 'tax_number_invalid', 'euid_invalid',
  'euid_required', 'euid_unknown', 'payer_limit_exceeded', 'payer_name_invalid', 'payer_name_required', 'webhook_url_invalid', 'webhook_secret_invalid',
  'webhook_events_invalid',   'idempotency_key_invalid', 'end_user_blocked', 'idempotency_key_reused', 'idempotency_key_in_use', 'provider_rejected', 'provider_unavailable',
])
export const readErrors = errorResponses([...authCodes, 'payment_not_found', 'invalid_request'])
export const deliveryErrors = errorResponses([...authCodes, 'webhook_delivery_not_found', 'invalid_request'])

export const CreatePaymentBody = Type.Object(
  {
    value: Type.Union([Type.String({ maxLength: 32 }), Type.Number()], { description: 'BRL amount, decimal with a dot: "10.50"' }),
    email: Type.String({ format: 'email', maxLength: 254 }),
    swap_to: Type.Optional(Type.Enum(currencies)),
    euid: Type.Optional(Type.String({ maxLength: 32 })),
    tax_number: Type.Optional(Type.String({ maxLength: 32 })),
    payer_name: Type.Optional(Type.String({ maxLength: 200 })),
    webhook_url: Type.Optional(Type.String({ maxLength: 2048 })),
    webhook_secret: Type.Optional(Type.String({ maxLength: 255 })),
    webhook_events: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 16 })),
  },
  { additionalProperties: false },
)
export type CreatePaymentBody = Static<typeof CreatePaymentBody>

/** Which error code a schema failure on each create-payment field answers with. */
export const createPaymentFieldCodes: Record<string, ErrorCode> = {
  value: 'value_invalid',
  email: 'email_invalid',
  swap_to: 'swap_to_invalid',
  euid: 'euid_invalid',
  tax_number: 'tax_number_invalid',
  payer_name: 'payer_name_invalid',
  webhook_url: 'webhook_url_invalid',
  webhook_secret: 'webhook_secret_invalid',
  webhook_events: 'webhook_events_invalid',
}

export const ChargeCreated = Type.Object({
  id: Type.String(),
  qrCopyPaste: Type.String(),
  qrImageUrl: Type.String(),
  expiresAt: Type.String(),
  status: Type.Literal('waiting_payment'),
})

export const ChargeRecord = Type.Object({
  qrId: Type.String(),
  status: Type.Enum(chargeStatuses),
  payerName: Nullable(Type.String()),
  payerTaxNumber: Nullable(Type.String()),
  payerEuid: Nullable(Type.String()),
  amount: Type.Integer(),
  updatedAt: Type.String(),
})

export const BalanceRecord = Type.Object({
  email: Type.String(),
  balances: Type.Object({
    DEPIX: Type.Object({ available_cents: Type.Integer(), available_brl: Type.String() }),
    BTC: Type.Object({ available_sats: Type.Integer(), available_btc: Type.String() }),
    USDt: Type.Object({ available_cents_USDt: Type.Integer(), available_USDt: Type.String() }),
  }),
})

export const PaymentListQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum(chargeStatuses)),
    created_from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or time; inclusive' })),
    created_to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601 date or time; exclusive' })),
    limit: Type.Optional(Type.String({ pattern: '^(100|[1-9][0-9]?)$', description: '1 to 100; 20 when omitted' })),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page' })),
  },
  { additionalProperties: false },
)

export const PaymentList = Type.Object({
  payments: Type.Array(Type.Object({ ...ChargeRecord.properties, createdAt: Type.String(), expiresAt: Type.String(), swap_to: Type.Enum(currencies) })),
  next_cursor: Nullable(Type.String()),
})

export const PaymentIdParams = Type.Object({ payment_id: Type.String({ maxLength: 64 }) })

export const QrFileParams = Type.Object({ file: Type.String({ maxLength: 64 }) })

export const WebhookDeliveries = Type.Object({
  deliveries: Type.Array(
    Type.Object({
      id: Type.String(),
      payment_id: Type.String(),
      event: Type.String(),
      state: Type.Enum(['pending', 'delivered', 'failed', 'gone']),
      attempts: Type.Integer(),
      created_at: Type.String(),
      delivered_at: Nullable(Type.String()),
      attempt_log: Type.Array(
        Type.Object({ at: Type.String(), status_code: Nullable(Type.Integer()), duration_ms: Type.Integer(), error: Nullable(Type.String()) }),
      ),
    }),
  ),
})

/** A BRL price such as "350000.00" (or a number), for PUT /sandbox/quotes and PUT /ops/quotes. */
export const QuoteValue = Type.Union([Type.String({ maxLength: 32 }), Type.Number()])
