// What the merchant API answers and what its webhooks carry, and the request bodies a use case
// takes whole, as TypeBox schemas: Fastify validates and serializes with them, the OpenAPI
// document and /docs are generated from them, and the use cases' types are derived from them
// (Static), so a field is declared once. Imports only the domain.
import { Type, type Static } from 'typebox'
import { chargeStatuses, holdReasons, webhookEventNames } from '../domain/charge.ts'
import { freeTextPattern, webhookUrlPattern } from '../domain/charge-request.ts'
import { brlValuePattern, currencies } from '../domain/money.ts'
import { statementLineTypes } from '../domain/statement.ts'
import { LINK_DESCRIPTION_MAX_LENGTH, LINK_MAX_USES_LIMIT, LINK_TITLE_MAX_LENGTH } from '../domain/payment-link.ts'
import { destinationTypes, withdrawalStatuses } from '../domain/withdrawal.ts'
import { merchantRefundFailures, merchantRefundIdPattern, merchantRefundStatuses } from '../domain/merchant-refund.ts'

/** A withdrawal's id and a destination's, as the service makes them: a prefix and 24 lowercase hex characters. */
export const withdrawalIdPattern = '^wd_[0-9a-f]{24}$'
export const destinationIdPattern = '^dst_[0-9a-f]{24}$'

/** A schema's own examples, to build a list's example from its items'. */
const examplesOf = (schema: object) => (schema as { examples: unknown[] }).examples

export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

/** Why a charge waits in security_hold for support (docs/rules.md#arrival-checks). */
const HoldReasonField = Nullable(Type.Enum(holdReasons, {
  description: 'Why the charge is in security_hold; null in any other status. `prior_med`: the receiving e-mail or the payer has a prior refund dispute; ' +
    '`identity_bound_elsewhere`: the payer already paid another account, and a payer\'s identity binds to the first account it pays; `amount_mismatch`: ' +
    'what arrived is more than 5 % off the charge value; `payer_mismatch`: the payer is not the one informed and the charge had no euid; `quote_unavailable`: no sane BTC/USDt price to convert at.',
}))

const MetadataField = Type.Record(Type.String(), Type.String(), { description: 'The labels sent as metadata at creation; {} when none.' })

export const ChargeCreated = Type.Object(
  {
    id: Type.String({ description: 'The payment id, 32 hex characters.' }),
    qrCopyPaste: Type.String({ description: 'The Pix "copia e cola" BR Code.' }),
    qrImageUrl: Type.String({ description: 'A public PNG of the QR code.' }),
    payUrl: Type.String({ description: 'The public payment page of the charge: send it to the payer (it shows the QR, the copy-and-paste code, a countdown, the status and, once paid, a receipt).' }),
    expiresAt: Type.String({ format: 'date-time', description: '10 minutes after creation.' }),
    status: Type.Literal('waiting_payment'),
  },
  {
    title: 'ChargeCreated',
    examples: [{
      id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b',
      qrCopyPaste: '00020101021226870014br.gov.bcb.pix2565qrcode.example/v2/3f2a9c0e5204000053039865406025.005802BR5913PIX CHARGE6009SAO PAULO62070503***6304ABCD',
      qrImageUrl: 'https://pix.example/api/qr/3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b.png',
      payUrl: 'https://pix.example/pay/3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b',
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
    holdReason: HoldReasonField,
    metadata: MetadataField,
    refundedAmount: Type.Integer({ description: 'What the merchant\'s refunds give back, in centavos: those pending, sent and completed (a failed one gave its amount back). At most paidAmount; 0 when none.' }),
  },
  {
    title: 'ChargeRecord',
    examples: [{ qrId: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', status: 'depix_sent', payerName: 'Maria Silva', payerTaxNumber: '***.444.777-**', payerEuid: 'EU123456789012345', amount: 2500, paidAmount: 2500, updatedAt: '2026-11-23T12:03:12.000Z', holdReason: null, metadata: { order_id: '1042' }, refundedAmount: 0 }],
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
        updatedAt: '2026-11-23T12:00:00.000Z', holdReason: null, metadata: { order_id: '1042' }, refundedAmount: 0, createdAt: '2026-11-23T12:00:00.000Z', expiresAt: '2026-11-23T12:10:00.000Z', swap_to: 'DEPIX',
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

/** What every webhook POSTs (docs/rules.md#webhook-body), in this key order. */
export const RefundRecord = Type.Object(
  {
    id: Type.String({ description: '`rf_` and 24 lowercase hex characters.' }),
    payment_id: Type.String(),
    status: Type.Enum(merchantRefundStatuses, { description: '`pending` until the Pix leaves (or while support reviews it), `sent` once our DePix left for the provider, `completed` when the provider says the payer was paid, `failed` when nothing was paid and the amount went back to the balance.' }),
    amount: Type.String({ description: 'What the payer receives, in BRL ("10.00").' }),
    amount_cents: Type.Integer({ description: 'The same in centavos.' }),
    fee_cents: Type.Integer({ description: "The provider's Pix-out fee on top (1 %, at least R$ 1,00, on what it receives), paid by the account." }),
    currency: Type.Enum(currencies, { description: 'The currency the payment was credited in, which the account pays in.' }),
    debit_amount: Type.Integer({ description: "What the account pays, amount and fee, in the currency's smallest unit (centavos, satoshis, 10^-6 USDt): DEPIX at face value, BTC and USDt at the accepted price of the moment, rounded up." }),
    held_amount: Type.Integer({ description: "The part of debit_amount taken from the payment's own 7-day hold (after7d), same unit." }),
    quote: Nullable(Type.String({ description: 'The BRL price of one BTC or USDt the debit was computed at; null for DEPIX.' })),
    reason: Nullable(Type.String()),
    failure_code: Nullable(Type.Enum(merchantRefundFailures, { description: "Why it failed: `payer_key_not_found`, the provider refused the payer's CPF/CNPJ as a Pix key (settle it with the payer another way); the others, support ended it." })),
    review_reason: Nullable(Type.String({ description: 'While pending: why it waits for support (`over_threshold`, `daily_limit`, ...).' })),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  {
    title: 'RefundRecord',
    examples: [{
      id: 'rf_0f1e2d3c4b5a69788796a5b4', payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', status: 'pending', amount: '10.00', amount_cents: 1000, fee_cents: 100, currency: 'DEPIX',
      debit_amount: 1100, held_amount: 0, quote: null, reason: 'returned item', failure_code: null, review_reason: null, created_at: '2026-11-23T12:00:00.000Z', updated_at: '2026-11-23T12:00:00.000Z',
    }],
  },
)

export const WebhookBody = Type.Object(
  {
    payment_id: Type.String(),
    email: Type.String({ description: 'The receiving account.' }),
    value_in_cents: Type.Integer({ description: 'The charge value in centavos.' }),
    paid_in_cents: Nullable(Type.Integer({ description: 'What the payer paid, in centavos, as the provider reported it; null before payment.' })),
    payer_euid: Nullable(Type.String()),
    event: Type.Enum(webhookEventNames),
    status: Type.Enum(chargeStatuses, { description: 'The charge status when the event happened.' }),
    hold_reason: HoldReasonField,
    metadata: MetadataField,
    // The refund a `refund.*` event is about, as GET /api/refunds/{id} answers it; absent from every other event.
    refund: Type.Optional(RefundRecord),
  },
  {
    title: 'WebhookBody',
    examples: [{ payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', email: 'store@example.com', value_in_cents: 2500, paid_in_cents: 2500, payer_euid: 'EU123456789012345', event: 'payment.confirmed', status: 'depix_sent', hold_reason: null, metadata: { order_id: '1042' } }],
  },
)


export const DestinationRecord = Type.Object(
  {
    id: Type.String(),
    type: Type.Enum(destinationTypes, { description: '`pix`: a Pix key of the owner\'s own CPF/CNPJ (DEPIX only); `liquid`: a Liquid address.' }),
    masked: Type.String({ description: 'The key or address, partly hidden.' }),
    label: Nullable(Type.String()),
    state: Type.Enum(['unconfirmed', 'cooling_down', 'active'], { description: 'Only `active` destinations receive withdrawals: confirmed by e-mail code, and past the cool-down.' }),
    usable_at: Nullable(Type.String({ format: 'date-time', description: 'When the cool-down ends.' })),
    created_at: Type.String({ format: 'date-time' }),
  },
  {
    title: 'DestinationRecord',
    examples: [{ id: 'dst_5f1c2e3d4b5a69788796a5b4', type: 'pix', masked: '***.456.789-**', label: null, state: 'active', usable_at: '2026-11-24T12:00:00.000Z', created_at: '2026-11-23T12:00:00.000Z' }],
  },
)

export const DestinationList = Type.Object({ destinations: Type.Array(DestinationRecord) }, { title: 'DestinationList', examples: [{ destinations: examplesOf(DestinationRecord) }] })

export const WithdrawalRecord = Type.Object(
  {
    id: Type.String(),
    status: Type.Enum(withdrawalStatuses),
    currency: Type.Enum(currencies),
    amount: Type.Integer({ description: 'In the currency\'s smallest unit, as balances are: centavos, satoshis, or 10^-6 USDt.' }),
    fee: Type.Integer({ description: 'Our fee, same unit: 2 % of DEPIX rounded up to the centavo; none on BTC and USDt.' }),
    net_amount: Type.Integer({ description: 'What leaves the treasury: amount less fee.' }),
    payout_cents: Nullable(Type.Integer({ description: 'Pix only: what the key receives after the provider\'s payout fee (1 %, at least R$ 1,00).' })),
    destination: Type.Object({ id: Type.String(), type: Type.Enum(destinationTypes), masked: Type.String() }),
    txid: Nullable(Type.String({ description: 'The Liquid transaction, once signed.' })),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    failure_code: Nullable(Type.String({ description: 'Why it ended without paying (the amount went back to available).' })),
    review_reason: Nullable(Type.String({ description: 'Why it waits for support, while in_review.' })),
  },
  {
    title: 'WithdrawalRecord',
    examples: [{
      id: 'wd_0f1e2d3c4b5a69788796a5b4', status: 'completed', currency: 'DEPIX', amount: 10000, fee: 200, net_amount: 9800, payout_cents: null,
      destination: { id: 'dst_5f1c2e3d4b5a69788796a5b4', type: 'liquid', masked: 'lq1qqf…8x3k2z' }, txid: '9c2e4f0a1b3d5e7f9a1c3e5f7a9b1d3f5e7a9c1b3d5f7e9a1c3b5d7f9e1a3c5b',
      created_at: '2026-11-23T12:00:00.000Z', updated_at: '2026-11-23T12:04:00.000Z', failure_code: null, review_reason: null,
    }],
  },
)

export const WithdrawalList = Type.Object(
  {
    withdrawals: Type.Array(WithdrawalRecord),
    next_cursor: Nullable(Type.String({ description: 'Pass as cursor for the next page; null on the last page.' })),
  },
  { title: 'WithdrawalList', examples: [{ withdrawals: examplesOf(WithdrawalRecord), next_cursor: null }] },
)

export const BalanceTransaction = Type.Object(
  {
    id: Type.String({ description: 'The line\'s id: stable, and the same in every page and export.' }),
    type: Type.Enum(statementLineTypes, {
      description: '`credit`: a payment credited (in DEPIX what arrived; in BTC or USDt what it converted to); `fee`: the R$ 1,00 deposit fee of a DEPIX credit; ' +
        '`hold_release`: a third-party payment\'s 7-day hold ended (amount 0, `available_amount` moves); `med`: money the provider took back (a MED or a refund); ' +
        '`withdrawal_reserved`: a withdrawal confirmed, its amount set aside (amount 0); `withdrawal`: what a withdrawal sent; `withdrawal_fee`: our 2 % DEPIX withdrawal fee; ' +
        '`withdrawal_canceled`: a withdrawal canceled or failed before anything left, its amount back to available (amount 0); `reversal`: a sent withdrawal came back; ' +
        '`refund_reserved`: a merchant refund made, its amount and fee set aside (amount 0); `refund`: what a refund paid to the payer, with the provider\'s fee; ' +
        '`refund_canceled`: a refund that failed before anything left, its amount back to available (amount 0); `network_fee`: reserved for postings an account pays; ' +
        '`adjustment`: a correction made by the service.',
    }),
    currency: Type.Enum(currencies),
    amount: Type.Integer({ description: 'Signed, in the currency\'s smallest unit: what the line changed in the balance (available, held and withdrawing together).' }),
    available_amount: Type.Integer({ description: 'What it changed in the available part, the part that can be withdrawn.' }),
    balance_after: Type.Integer({ description: 'The balance in this currency after the line: the lines of a currency sum to it.' }),
    available_after: Type.Integer({ description: 'The available part after the line.' }),
    payment_id: Nullable(Type.String({ description: 'The charge the line belongs to.' })),
    withdrawal_id: Nullable(Type.String({ description: 'The withdrawal the line belongs to.' })),
    quote_brl: Nullable(Type.String({ description: 'A BTC or USDt credit or MED: the BRL price of one BTC or one USDt the charge converted at, 6 decimals with a dot.' })),
    created_at: Type.String({ format: 'date-time', description: 'When it was posted, as a UTC instant.' }),
  },
  {
    title: 'BalanceTransaction',
    examples: [{
      id: 'bt_1042_0', type: 'credit', currency: 'DEPIX', amount: 2500, available_amount: 2500, balance_after: 2500, available_after: 2500,
      payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', withdrawal_id: null, quote_brl: null, created_at: '2026-11-23T12:03:12.000Z',
    }],
  },
)

export const BalanceTransactionList = Type.Object(
  {
    balance_transactions: Type.Array(BalanceTransaction),
    next_cursor: Nullable(Type.String({ description: 'Pass as cursor for the next page; null on the last page.' })),
  },
  { title: 'BalanceTransactionList', examples: [{ balance_transactions: examplesOf(BalanceTransaction), next_cursor: null }] },
)

/** What a withdrawal's webhooks POST, in this key order. */
export const WithdrawalWebhookBody = Type.Object(
  {
    withdrawal_id: Type.String(),
    email: Type.String({ description: 'The account withdrawing.' }),
    currency: Type.Enum(currencies),
    amount: Type.Integer(),
    fee: Type.Integer(),
    net_amount: Type.Integer(),
    txid: Nullable(Type.String()),
    event: Type.String({ description: '`withdrawal.` and the new status.' }),
    status: Type.Enum(withdrawalStatuses),
    failure_code: Nullable(Type.String()),
  },
  {
    title: 'WithdrawalWebhookBody',
    examples: [{ withdrawal_id: 'wd_0f1e2d3c4b5a69788796a5b4', email: 'store@example.com', currency: 'DEPIX', amount: 10000, fee: 200, net_amount: 9800, txid: null, event: 'withdrawal.completed', status: 'completed', failure_code: null }],
  },
)

export const CreateWithdrawalBody = Type.Object(
  {
    currency: Type.Enum(currencies, { description: 'DEPIX (to a Pix key or a Liquid address), BTC (L-BTC) or USDt (to a Liquid address).' }),
    amount: Type.Integer({ minimum: 1, description: "An integer in the currency's smallest unit, as balances are: centavos, satoshis, or 10^-6 USDt (not a string, no decimals)." }),
    destination_id: Type.String({ pattern: destinationIdPattern, description: 'A destination confirmed in the Wallet and past its cool-down (GET /api/withdrawal-destinations).' }),
    webhook_url: Type.Optional(Type.String({
      maxLength: 2048,
      format: 'uri',
      pattern: webhookUrlPattern,
      description: "Where the service POSTs this withdrawal's changes (withdrawal.<status>): an absolute http(s) URL without credentials; https and a public address in production.",
    })),
    webhook_secret: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: freeTextPattern, description: 'Signs the webhooks, as for charges; no control characters, surrounding spaces trimmed.' })),
  },
  {
    additionalProperties: false,
    title: 'CreateWithdrawalRequest',
    examples: [{ currency: 'DEPIX', amount: 10000, destination_id: 'dst_5f1c2e3d4b5a69788796a5b4' }],
  },
)

export const RefundList = Type.Object({ refunds: Type.Array(RefundRecord) }, { title: 'RefundList', examples: [{ refunds: examplesOf(RefundRecord) }] })

export const CreateRefundBody = Type.Object(
  {
    amount: Type.Optional(Type.String({ maxLength: 32, pattern: brlValuePattern, description: 'What the payer receives, in BRL ("10.00"); all that is left to refund when omitted.' })),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: freeTextPattern, description: 'Why, for your records (not sent to the payer).' })),
  },
  { additionalProperties: false, title: 'CreateRefundRequest', examples: [{ amount: '10.00', reason: 'returned item' }] },
)

export const refundIdPattern = merchantRefundIdPattern

/** A payment link's id, as the service makes them: a prefix and 24 lowercase hex characters. */
export const paymentLinkIdPattern = '^pl_[0-9a-f]{24}$'

export const PaymentLinkRecord = Type.Object(
  {
    id: Type.String(),
    url: Type.String({ description: 'The public page to share: the payer enters full name and CPF/CNPJ, and only then is a charge made.' }),
    title: Type.String(),
    description: Nullable(Type.String()),
    amount_cents: Nullable(Type.Integer({ description: 'A fixed price in centavos; null for an open amount.' })),
    min_cents: Nullable(Type.Integer({ description: 'An open amount\'s lower bound in centavos; null for a fixed price.' })),
    max_cents: Nullable(Type.Integer({ description: 'An open amount\'s upper bound in centavos; null for a fixed price.' })),
    swap_to: Type.Enum(currencies),
    expires_at: Nullable(Type.String({ format: 'date-time' })),
    max_uses: Nullable(Type.Integer({ description: 'Paid charges (and QRs still open) it may have at most; null for no bound.' })),
    active: Type.Boolean({ description: 'False once deactivated.' }),
    notify_sales: Type.Boolean({ description: 'Whether the owner is e-mailed when a charge made through the link is paid, held or released.' }),
    created_at: Type.String({ format: 'date-time' }),
    sales: Type.Object({
      paid: Type.Integer({ description: 'Charges made through the link that were paid.' }),
      paid_cents: Type.Integer({ description: 'What they brought in, in centavos.' }),
      open: Type.Integer({ description: 'QRs made through the link, unpaid and not expired yet.' }),
    }),
  },
  {
    title: 'PaymentLinkRecord',
    examples: [{
      id: 'pl_0f1e2d3c4b5a69788796a5b4', url: 'https://pix.example/l/q3Vb7fJ2kLm9Xc1sT0aZyw', title: 'Bolo de pote', description: 'Retirada na loja.', amount_cents: 1000, min_cents: null, max_cents: null,
      swap_to: 'DEPIX', expires_at: null, max_uses: null, active: true, notify_sales: true, created_at: '2026-11-23T12:00:00.000Z', sales: { paid: 3, paid_cents: 3000, open: 1 },
    }],
  },
)

export const PaymentLinkList = Type.Object(
  { payment_links: Type.Array(PaymentLinkRecord), next_cursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last.' })) },
  { title: 'PaymentLinkList', examples: [{ payment_links: examplesOf(PaymentLinkRecord), next_cursor: null }] },
)

const LinkAmount = (description: string) => Type.Union([Type.String({ maxLength: 32, pattern: brlValuePattern }), Type.Number({ minimum: 0 })], { description })

export const CreatePaymentLinkBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: LINK_TITLE_MAX_LENGTH, description: 'What the payer buys, shown at the top of the page.' }),
    description: Type.Optional(Type.String({ maxLength: LINK_DESCRIPTION_MAX_LENGTH, description: 'More about it, shown under the title.' })),
    amount: Type.Optional(LinkAmount('A fixed price in BRL, as create-payment\'s value ("10.00"). Leave it out for an open amount.')),
    min_amount: Type.Optional(LinkAmount('An open amount\'s lower bound in BRL; the charge minimum when left out.')),
    max_amount: Type.Optional(LinkAmount('An open amount\'s upper bound in BRL; the charge maximum when left out.')),
    swap_to: Type.Optional(Type.Enum(currencies, { description: 'What the account is credited in; DEPIX when omitted.' })),
    expires_at: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'After it the link sells no more.' })),
    max_uses: Type.Optional(Type.Integer({ minimum: 1, maximum: LINK_MAX_USES_LIMIT, description: 'How many paid charges it may have (QRs still open count too, so it never sells more).' })),
    notify_sales: Type.Optional(Type.Boolean({ description: 'E-mail the owner when a charge made through the link is paid, held or released; true when omitted.' })),
  },
  {
    additionalProperties: false,
    title: 'CreatePaymentLinkRequest',
    examples: [{ title: 'Bolo de pote', description: 'Retirada na loja.', amount: '10.00' }],
  },
)

export type PaymentLinkRecord = Static<typeof PaymentLinkRecord>
export type PaymentLinkList = Static<typeof PaymentLinkList>
export type CreatePaymentLinkBody = Static<typeof CreatePaymentLinkBody>
export type ChargeCreated = Static<typeof ChargeCreated>
export type ChargeRecord = Static<typeof ChargeRecord>
export type BalanceRecord = Static<typeof BalanceRecord>
export type PaymentList = Static<typeof PaymentList>
export type PaymentListItem = PaymentList['payments'][number]
export type WebhookDeliveries = Static<typeof WebhookDeliveries>
export type RedeliveryAccepted = Static<typeof RedeliveryAccepted>
export type WebhookBody = Static<typeof WebhookBody>
export type DestinationRecord = Static<typeof DestinationRecord>
export type WithdrawalRecord = Static<typeof WithdrawalRecord>
export type WithdrawalList = Static<typeof WithdrawalList>
export type BalanceTransaction = Static<typeof BalanceTransaction>
export type BalanceTransactionList = Static<typeof BalanceTransactionList>
export type WithdrawalWebhookBody = Static<typeof WithdrawalWebhookBody>
export type CreateWithdrawalBody = Static<typeof CreateWithdrawalBody>
export type RefundRecord = Static<typeof RefundRecord>
export type RefundList = Static<typeof RefundList>
export type CreateRefundBody = Static<typeof CreateRefundBody>

/** Every error's body, on every route of every audience (docs/rules.md#errors). */
export const ErrorBody = Type.Object({
  error: Type.String({ description: 'Human text; it may change. Branch on `code`.' }),
  code: Type.String({ description: 'Stable machine code from the error catalogue.' }),
  docs_url: Type.String({ description: "This code's explanation in the docs." }),
  support_email: Type.String(),
  request_id: Type.String({ description: 'Quote it to support; it is also in the X-Request-Id header.' }),
  param: Type.Optional(Type.String({ description: 'The field or header at fault, when there is one.' })),
})

/** A BRL price such as "350000.00" (or a number), for PUT /sandbox/quotes and PUT /ops/quotes. */
export const QuoteValue = Type.Union([Type.String({ maxLength: 32 }), Type.Number()])
