// What the merchant API answers and what its webhooks carry, as TypeBox schemas: Fastify
// serializes with them, the OpenAPI document and /docs are generated from them, and the use cases'
// result types are derived from them (Static), so a field is declared once. Imports only the domain.
import { Type, type Static } from 'typebox'
import { chargeStatuses, webhookEventNames } from '../domain/charge.ts'
import { currencies } from '../domain/money.ts'

export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

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

export const WebhookDeliveries = Type.Object(
  {
  deliveries: Type.Array(
    Type.Object({
      id: Type.String(),
      payment_id: Nullable(Type.String({ description: 'The charge the event is about; null for a withdrawal\'s.' })),
      withdrawal_id: Nullable(Type.String({ description: 'The withdrawal the event is about; null for a charge\'s.' })),
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
        id: 'msg_0f1e2d3c4b5a69788796a5b4c3d2e1f0', payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', withdrawal_id: null, event: 'payment.confirmed', state: 'delivered', attempts: 1,
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

export type ChargeCreated = Static<typeof ChargeCreated>
export type ChargeRecord = Static<typeof ChargeRecord>
export type BalanceRecord = Static<typeof BalanceRecord>
export type PaymentList = Static<typeof PaymentList>
export type PaymentListItem = PaymentList['payments'][number]
export type WebhookDeliveries = Static<typeof WebhookDeliveries>
export type RedeliveryAccepted = Static<typeof RedeliveryAccepted>
export type WebhookBody = Static<typeof WebhookBody>
