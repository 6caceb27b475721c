// Request and response schemas: Fastify validates and serializes with them, and the OpenAPI
// document is generated from them. Money-bearing bodies reject unknown fields.
import { Type, type Static } from 'typebox'
import { chargeStatuses } from '../domain/charge.ts'
import { currencies } from '../domain/money.ts'
import type { ErrorCode } from '../domain/errors.ts'

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

export const ErrorBody = Type.Object({
  error: Type.String(),
  code: Type.String(),
  docs_url: Type.String(),
  support_email: Type.String(),
  request_id: Type.String(),
  param: Type.Optional(Type.String()),
})

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
