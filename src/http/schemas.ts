// Request and response schemas: Fastify validates and serializes with them, and the OpenAPI
// document is generated from them. Money-bearing bodies reject unknown fields.
import { Type, type Static } from 'typebox'
import { chargeStatuses, webhookEventNames } from '../domain/charge.ts'
import { currencies } from '../domain/money.ts'
import { errorCatalogue, type ErrorCode } from '../domain/errors.ts'

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

export const ErrorBody = Type.Object({
  error: Type.String({ description: 'Human text; it may change. Branch on `code`.' }),
  code: Type.String({ description: 'Stable machine code from the error catalogue.' }),
  docs_url: Type.String({ description: "This code's explanation in the docs." }),
  support_email: Type.String(),
  request_id: Type.String({ description: 'Quote it to support; it is also in the X-Request-Id header.' }),
  param: Type.Optional(Type.String({ description: 'The field or header at fault, when there is one.' })),
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

const authCodes = ['token_missing', 'token_not_found', 'token_pending', 'token_inactive', 'rate_limited', 'internal_error'] as const
export const createPaymentErrors = errorResponses([
  ...authCodes, 'merchant_id_missing', 'invalid_json', 'invalid_request', 'unsupported_media_type', 'body_too_large', 'value_invalid',
  'value_out_of_range', 'email_invalid', 'swap_to_invalid', 'payer_identity_required', 'tax_number_invalid', 'euid_invalid',
  'euid_required', 'euid_unknown', 'payer_limit_exceeded', 'payer_name_invalid', 'payer_name_required', 'webhook_url_invalid', 'webhook_secret_invalid',
  'webhook_events_invalid',   'idempotency_key_invalid', 'end_user_blocked', 'idempotency_key_reused', 'idempotency_key_in_use', 'provider_rejected', 'provider_unavailable',
])
export const readErrors = errorResponses([...authCodes, 'payment_not_found', 'invalid_request'])
export const qrErrors = errorResponses(['payment_not_found', 'invalid_request'])
export const deliveryErrors = errorResponses([...authCodes, 'webhook_delivery_not_found', 'invalid_request'])

export const CreatePaymentBody = Type.Object(
  {
    value: Type.Union([Type.String({ maxLength: 32 }), Type.Number()], {
      description: 'BRL amount as a decimal with a dot and at most two decimals ("10.50"); 10.00 to 5000.00 (20.00 for BTC).',
      examples: ['25.00'],
    }),
    email: Type.String({ format: 'email', maxLength: 254, description: 'The account that receives the money: its owner signs in to the Wallet with this e-mail.', examples: ['store@example.com'] }),
    swap_to: Type.Optional(Type.Enum(currencies, { description: 'What the account is credited in; DEPIX when omitted.' })),
    euid: Type.Optional(Type.String({ maxLength: 32, description: "The payer's EUID at the provider (\"EU\" + 15 digits); required above R$ 10,00." })),
    tax_number: Type.Optional(Type.String({ maxLength: 32, description: "The payer's CPF or CNPJ, formatted or not; charges up to R$ 10,00 may use it instead of euid." })),
    payer_name: Type.Optional(Type.String({ maxLength: 200, description: "The payer's full name, sent to the provider with tax_number." })),
    webhook_url: Type.Optional(Type.String({ maxLength: 2048, description: 'Where the service POSTs this charge\'s events; https in production.' })),
    webhook_secret: Type.Optional(Type.String({ maxLength: 255, description: 'Signs the webhooks: a plain secret or a Standard Webhooks whsec_ secret.' })),
    webhook_events: Type.Optional(
      Type.Array(Type.String({ maxLength: 64, enum: [...webhookEventNames] }), {
        maxItems: 16,
        description: 'Extra events to receive besides payment.confirmed and balance.released, which are always sent. Needs webhook_url.',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'CreatePaymentRequest',
    examples: [{ value: '25.00', email: 'store@example.com', euid: 'EU123456789012345', webhook_url: 'https://store.example/pix-hooks', webhook_secret: 'a long random secret' }],
  },
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

export const ChargeCreated = Type.Object(
  {
    id: Type.String({ description: 'The payment id, 32 hex characters.' }),
    qrCopyPaste: Type.String({ description: 'The Pix "copia e cola" BR Code.' }),
    qrImageUrl: Type.String({ description: 'A public PNG of the QR code.' }),
    expiresAt: Type.String({ format: 'date-time', description: '10 minutes after creation.' }),
    status: Type.Literal('waiting_payment'),
  },
  {
    title: 'ChargeCreated',
    examples: [{
      id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b',
      qrCopyPaste: '00020101021226870014br.gov.bcb.pix2565qrcode.example/v2/3f2a9c0e5204000053039865406025.005802BR5913PIX CHARGE6009SAO PAULO62070503***6304ABCD',
      qrImageUrl: 'https://pix.example/api/qr/3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b.png',
      expiresAt: '2026-11-23T12:10:00.000Z',
      status: 'waiting_payment',
    }],
  },
)

export const ChargeRecord = Type.Object(
  {
    qrId: Type.String({ description: 'The payment id.' }),
    status: Type.Enum(chargeStatuses),
    payerName: Nullable(Type.String()),
    payerTaxNumber: Nullable(Type.String({ description: 'Masked, as ***.456.789-**.' })),
    payerEuid: Nullable(Type.String()),
    amount: Type.Integer({ description: 'The charge value in centavos (1050 is R$ 10,50).' }),
    paidAmount: Nullable(Type.Integer({ description: 'What the payer paid, in centavos, as the provider reported it; null before payment. Within 5 % of amount the credit is computed from it; further off, the payment waits for review.' })),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  {
    title: 'ChargeRecord',
    examples: [{ qrId: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', status: 'depix_sent', payerName: 'Maria Silva', payerTaxNumber: '***.444.777-**', payerEuid: 'EU123456789012345', amount: 2500, paidAmount: 2500, updatedAt: '2026-11-23T12:03:12.000Z' }],
  },
)

export const BalanceRecord = Type.Object(
  {
    email: Type.String({ description: "The token's own account: the balance credited to it." }),
    balances: Type.Object({
      DEPIX: Type.Object({
        available_cents: Type.Integer({ description: 'centavos' }),
        available_brl: Type.String({ description: 'The same amount formatted as BRL: currency symbol, thousands dot, decimal comma (`R$ 1.234,56`; `-R$ 1,00` when negative).' }),
      }),
      BTC: Type.Object({
        available_sats: Type.Integer({ description: 'satoshis' }),
        available_btc: Type.String({ description: 'The same amount in BTC, 8 decimals with a dot (`0.00012345`).' }),
      }),
      USDt: Type.Object({
        available_cents_USDt: Type.Integer({ description: 'Millionths of a USDt (10^-6), whatever the name says: 1 USDt is 1000000.' }),
        available_USDt: Type.String({ description: 'The same amount in USDt, 6 decimals with a dot (`4.512345`).' }),
      }),
    }),
  },
  {
    title: 'BalanceRecord',
    description: 'Available balances only; credits held 7 days are not included until released.',
    examples: [{
      email: 'store@example.com',
      balances: {
        DEPIX: { available_cents: 123456, available_brl: 'R$ 1.234,56' },
        BTC: { available_sats: 12345, available_btc: '0.00012345' },
        USDt: { available_cents_USDt: 4512345, available_USDt: '4.512345' },
      },
    }],
  },
)

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

export const PaymentList = Type.Object(
  {
    payments: Type.Array(
      Type.Object({ ...ChargeRecord.properties, createdAt: Type.String({ format: 'date-time' }), expiresAt: Type.String({ format: 'date-time' }), swap_to: Type.Enum(currencies) }),
    ),
    next_cursor: Nullable(Type.String({ description: 'Pass as cursor for the next page; null on the last page.' })),
  },
  {
    title: 'PaymentList',
    examples: [{
      payments: [{
        qrId: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', status: 'waiting_payment', payerName: null, payerTaxNumber: null, payerEuid: 'EU123456789012345', amount: 2500, paidAmount: null,
        updatedAt: '2026-11-23T12:00:00.000Z', createdAt: '2026-11-23T12:00:00.000Z', expiresAt: '2026-11-23T12:10:00.000Z', swap_to: 'DEPIX',
      }],
      next_cursor: null,
    }],
  },
)

export const PaymentIdParams = Type.Object({ payment_id: Type.String({ maxLength: 64 }) })

export const QrFileParams = Type.Object({ file: Type.String({ maxLength: 64 }) })

export const WebhookDeliveries = Type.Object(
  {
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
  },
  {
    title: 'WebhookDeliveries',
    examples: [{
      deliveries: [{
        id: 'msg_0f1e2d3c4b5a69788796a5b4c3d2e1f0', payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', event: 'payment.confirmed', state: 'delivered', attempts: 1,
        created_at: '2026-11-23T12:03:12.000Z', delivered_at: '2026-11-23T12:03:12.100Z', attempt_log: [{ at: '2026-11-23T12:03:12.000Z', status_code: 200, duration_ms: 84, error: null }],
      }],
    }],
  },
)

/** A redelivery queued to go out now. */
export const RedeliveryAccepted = Type.Object(
  { id: Type.String(), state: Type.Literal('pending') },
  { examples: [{ id: 'msg_0f1e2d3c4b5a69788796a5b4c3d2e1f0', state: 'pending' }] },
)

/** What every webhook POSTs (decisions section 7), in this key order. */
export const WebhookBody = Type.Object(
  {
    payment_id: Type.String(),
    email: Type.String({ description: 'The receiving account.' }),
    value_in_cents: Type.Integer({ description: 'The charge value in centavos.' }),
    paid_in_cents: Nullable(Type.Integer({ description: 'What the payer paid, in centavos, as the provider reported it; null before payment.' })),
    payer_euid: Nullable(Type.String()),
    event: Type.Enum(webhookEventNames),
    status: Type.Enum(chargeStatuses, { description: 'The charge status when the event happened.' }),
  },
  {
    title: 'WebhookBody',
    examples: [{ payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', email: 'store@example.com', value_in_cents: 2500, paid_in_cents: 2500, payer_euid: 'EU123456789012345', event: 'payment.confirmed', status: 'depix_sent' }],
  },
)

/** The schemas the OpenAPI document names in components.schemas and references by name. */
export const namedSchemas = [CreatePaymentBody, ChargeCreated, ChargeRecord, BalanceRecord, PaymentList, WebhookDeliveries]

/** A BRL price such as "350000.00" (or a number), for PUT /sandbox/quotes and PUT /ops/quotes. */
export const QuoteValue = Type.Union([Type.String({ maxLength: 32 }), Type.Number()])
