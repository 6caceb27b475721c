// Merchant API (docs/rules.md#charges): thin routes that authenticate, call a use case, serialize.
import type { FastifyRequest } from 'fastify'
import QRCode from 'qrcode'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { createApiRateLimit } from '../../app/api-rate-limit.ts'
import { authenticate, requireMerchantId, type Merchant } from '../../app/authenticate.ts'
import { cancelCharge } from '../../app/cancel-charge.ts'
import { createCharge } from '../../app/create-charge.ts'
import { getBalance } from '../../app/get-balance.ts'
import { chargeQrCode, getCharge } from '../../app/get-charge.ts'
import { listMerchantCharges } from '../../app/list-charges.ts'
import { listBalanceTransactions } from '../../app/statement.ts'
import { listWebhookDeliveries, redeliverWebhook } from '../../app/webhook-deliveries.ts'
import { Type } from 'typebox'
import { DomainError } from '../../domain/errors.ts'
import { createChargeDeps, type RouteDeps } from '../../web/deps.ts'
import { createAddressWindows } from '../../web/address-windows.ts'
import { documentAudience } from '../../web/audiences.ts'
import { idempotencyKeyCodes, idempotencyKeyOf } from './idempotency-key.ts'
import { withdrawalRoutes } from './withdrawals.ts'
import { paymentLinkRoutes } from './payment-links.ts'
import { createMerchantRefund, getMerchantRefund, listMerchantRefunds } from '../../app/merchant-refunds.ts'
import { BalanceRecord, BalanceTransactionList, ChargeCreated, ChargeRecord, CreateRefundBody, PaymentList, RedeliveryAccepted, RefundList, RefundRecord, refundIdPattern, WebhookDeliveries } from '../../contract/api.ts'
import { createRefundFieldCodes, refundErrors, refundReadErrors } from '../schemas.ts'
import { BalanceTransactionQuery, cancelErrors, ChargeIdFilter, CreatePaymentBody, IdempotencyKeyHeaders, createPaymentErrors, createPaymentFieldCodes, deliveryErrors, PaymentIdParams, PaymentListQuery, qrErrors, QrFileParams, readErrors, statementErrors } from '../schemas.ts'

/** An id no charge can have is a charge not found, as one of another account's is. */
const paymentIdCodes = { payment_id: 'payment_not_found' } as const

declare module 'fastify' {
  interface FastifyRequest {
    merchant: Merchant
  }
}


export const apiRoutes: FastifyPluginAsyncTypebox<Pick<RouteDeps, 'store' | 'clock' | 'config' | 'provider' | 'webhookDestinations' | 'tokenCache' | 'authFailures' | 'quotes' | 'mailSeal'>> = async (app, deps) => {
  app.decorateRequest('merchant', null as unknown as Merchant)
  documentAudience(app, 'merchant')

  // Per real token, after it authenticated: a bogus token never reaches the database's buckets
  // (its failure is counted in memory, per address); shared by the deployment's instances.
  const tokenLimit = deps.config.rateLimitPerMinute > 0
    ? createApiRateLimit({ store: deps.store, log: app.log }, { perMinute: deps.config.rateLimitPerMinute, burst: deps.config.rateLimitBurst })
    : null
  // The public QR image has no token: its readers are counted per address, in memory.
  const qrReaders = createAddressWindows({ limit: deps.config.rateLimitPerMinute, windowMs: 60_000 })
  const limited = (wait: number) => new DomainError('rate_limited', { message: `Too many requests; retry in ${wait} seconds.`, retryAfterSeconds: wait })

  // Every /api route but the public QR image carries X-API-Token.
  const authenticated = async (request: FastifyRequest) => {
    const header = request.headers['x-api-token']
    request.merchant = await deps.authFailures.guard(request, () => {
      // A common first mistake: the token sent the way most APIs take one.
      if (header === undefined && /^bearer\s/i.test(request.headers.authorization ?? '')) {
        throw new DomainError('token_missing', { message: 'Send the API token in the X-API-Token header, not in Authorization: Bearer.' })
      }
      return authenticate(deps, typeof header === 'string' ? header : undefined)
    })
    const wait = tokenLimit ? await tokenLimit.take(request.merchant.tokenId) : 0
    if (wait > 0) throw limited(wait)
  }

  app.post(
    '/api/create-payment',
    {
      schema: {
        operationId: 'createPayment',
        summary: 'Create a Pix QR charge',
        description:
          'Creates a charge of `value` BRL for the account named by `email`, valid 10 minutes. Send an `Idempotency-Key` to make retries safe: ' +
          'the same key and body answer the same charge; another body with the key is refused.',
        headers: IdempotencyKeyHeaders('your order id or a UUID, one per charge you mean to create'),
        body: CreatePaymentBody,
        response: { 200: ChargeCreated, ...createPaymentErrors },
      },
      config: { fieldErrorCodes: createPaymentFieldCodes, partErrorCodes: idempotencyKeyCodes },
      // Authenticate before validating: an anonymous caller learns nothing about the body rules.
      onRequest: authenticated,
    },
    async (request) => {
      const merchantId = requireMerchantId(request.merchant)
      return createCharge(createChargeDeps(deps, request.log), {
        merchant: { accountId: request.merchant.accountId, merchantId },
        body: request.body,
        idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key']),
      })
    },
  )

  app.get(
    '/api/get-payment/:payment_id',
    {
      schema: {
        operationId: 'getPayment',
        summary: "Read a charge's status",
        description: 'The status record of one of the token\'s charges; `amount` is in centavos.',
        params: PaymentIdParams,
        response: { 200: ChargeRecord, ...readErrors },
      },
      config: { partErrorCodes: paymentIdCodes },
      onRequest: authenticated,
    },
    async (request) => getCharge(deps, { merchantAccountId: request.merchant.accountId, chargeId: request.params.payment_id }),
  )

  app.post(
    '/api/payments/:payment_id/cancel',
    {
      schema: {
        operationId: 'cancelPayment',
        summary: 'Cancel a charge nobody paid yet',
        description:
          'Moves a `waiting_payment` charge to `canceled` and answers its status record; canceling a canceled charge answers the same. Anything else is 409 `payment_not_cancelable`. ' +
          'The provider cannot void a QR: if the payer pays it anyway before `expiresAt`, the payment is processed as any late payment (credited after the usual checks, `payment.confirmed` sent), so refund it if you do not want it. Takes no body.',
        params: PaymentIdParams,
        response: { 200: ChargeRecord, ...cancelErrors },
      },
      config: { partErrorCodes: paymentIdCodes },
      onRequest: authenticated,
    },
    async (request) => cancelCharge(deps, { merchantAccountId: request.merchant.accountId, chargeId: request.params.payment_id }),
  )

  // docs/rules.md#merchant-refunds: the merchant gives a payer money back from its balance.
  app.post(
    '/api/payments/:payment_id/refunds',
    {
      schema: {
        operationId: 'createPaymentRefund',
        summary: 'Refund (part of) a payment to its payer',
        description:
          'Gives the payer back `amount` (all that is left when omitted) of a credited payment (`depix_sent` or `after7d`) within 90 days, by Pix to the payer\'s own CPF/CNPJ. ' +
          'The account pays it and the provider\'s Pix-out fee (`fee_cents`), in the currency the payment was credited in (BTC and USDt at the accepted price of the moment, rounded up), ' +
          'from the payment\'s own 7-day hold first; refused with `insufficient_funds` when the balance does not cover it. Refunds count against the daily withdrawal limit and wait for support ' +
          'above the review threshold. Several partial refunds never give back more than `paidAmount`; refunded in full, the payment becomes `refunded`. Send an `Idempotency-Key`.',
        params: PaymentIdParams,
        headers: IdempotencyKeyHeaders('one per refund you mean to make'),
        body: CreateRefundBody,
        response: { 200: RefundRecord, ...refundErrors },
      },
      config: { fieldErrorCodes: createRefundFieldCodes, partErrorCodes: { ...paymentIdCodes, ...idempotencyKeyCodes } },
      onRequest: authenticated,
    },
    async (request) =>
      createMerchantRefund({
        store: deps.store, clock: deps.clock, mailSeal: deps.mailSeal, baseUrl: deps.config.baseUrl, quotes: deps.quotes, limits: deps.config.withdrawals.limits, log: request.log,
      }, {
        accountId: request.merchant.accountId, chargeId: request.params.payment_id, body: request.body ?? {},
        idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key']), actor: `token:${request.merchant.tokenId}`,
      }),
  )

  app.get(
    '/api/payments/:payment_id/refunds',
    {
      schema: { operationId: 'listPaymentRefunds', summary: "A payment's refunds", description: 'Oldest first, with their status.', params: PaymentIdParams, response: { 200: RefundList, ...refundReadErrors } },
      config: { partErrorCodes: paymentIdCodes },
      onRequest: authenticated,
    },
    async (request) => listMerchantRefunds(deps, { accountId: request.merchant.accountId, chargeId: request.params.payment_id }),
  )

  app.get(
    '/api/refunds/:refund_id',
    {
      schema: {
        operationId: 'getPaymentRefund',
        summary: 'Read a refund',
        params: Type.Object({ refund_id: Type.String({ pattern: refundIdPattern, description: 'The refund\'s `id`: `rf_` and 24 lowercase hex characters.' }) }),
        response: { 200: RefundRecord, ...refundReadErrors },
      },
      config: { partErrorCodes: { refund_id: 'refund_not_found' } },
      onRequest: authenticated,
    },
    async (request) => getMerchantRefund(deps, { accountId: request.merchant.accountId, refundId: request.params.refund_id }),
  )

  // Decisions 12: the token's charges, newest first, filtered, a page at a time.
  app.get(
    '/api/payments',
    {
      schema: {
        operationId: 'listPayments',
        summary: "List the token's charges",
        description: 'Newest first, filtered by status and creation time, a page at a time: pass `next_cursor` back as `cursor` until it is null.',
        querystring: PaymentListQuery,
        response: { 200: PaymentList, ...readErrors },
      },
      onRequest: authenticated,
    },
    async (request) =>
      listMerchantCharges(deps, {
        merchantAccountId: request.merchant.accountId,
        ...(request.query.status === undefined ? {} : { status: request.query.status }),
        ...(request.query.created_from === undefined ? {} : { createdFrom: request.query.created_from }),
        ...(request.query.created_to === undefined ? {} : { createdTo: request.query.created_to }),
        ...(request.query.limit === undefined ? {} : { limit: request.query.limit }),
        ...(request.query.cursor === undefined ? {} : { cursor: request.query.cursor }),
      }),
  )

  app.get(
    '/api/get-balance',
    {
      schema: {
        operationId: 'getBalance',
        summary: "Read the token's account balances",
        description: 'What is available to the account that owns the token, per currency; credits held 7 days appear once released.',
        response: { 200: BalanceRecord, ...readErrors },
      },
      onRequest: authenticated,
    },
    async (request) => getBalance(deps, request.merchant),
  )

  // The account's statement: one line per posting on it, newest first, a page at a time.
  app.get(
    '/api/balance-transactions',
    {
      schema: {
        operationId: 'listBalanceTransactions',
        summary: "The token's account statement",
        description: 'One line per movement of the balance, newest first, filtered by currency, type and time, a page at a time as GET /api/payments. ' +
          'A line says what it changed in the balance (available, held and withdrawing together) and in its available part, and both after it: the lines of a currency sum to its balance. ' +
          'A DEPIX credit is two lines (what arrived, and the R$ 1,00 fee); a sent withdrawal is two (what was sent, and our fee). Times are UTC instants.',
        querystring: BalanceTransactionQuery,
        response: { 200: BalanceTransactionList, ...statementErrors },
      },
      onRequest: authenticated,
    },
    async (request) =>
      listBalanceTransactions(deps, {
        accountId: request.merchant.accountId,
        ...(request.query.currency === undefined ? {} : { currency: request.query.currency }),
        ...(request.query.type === undefined ? {} : { type: request.query.type }),
        ...(request.query.created_from === undefined ? {} : { createdFrom: request.query.created_from }),
        ...(request.query.created_to === undefined ? {} : { createdTo: request.query.created_to }),
        ...(request.query.limit === undefined ? {} : { limit: request.query.limit }),
        ...(request.query.cursor === undefined ? {} : { cursor: request.query.cursor }),
      }),
  )

  app.get(
    '/api/webhook-deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'List webhook deliveries and their attempts',
        description: 'The newest webhook events of the token\'s charges, optionally for one payment, with every attempt.',
        querystring: Type.Object({ payment_id: Type.Optional(ChargeIdFilter) }, { additionalProperties: false }),
        response: { 200: WebhookDeliveries, ...deliveryErrors },
      },
      onRequest: authenticated,
    },
    async (request) => listWebhookDeliveries(deps, { merchantAccountId: request.merchant.accountId, chargeId: request.query.payment_id ?? null }),
  )

  app.post(
    '/api/webhook-deliveries/:id/redeliver',
    {
      schema: {
        operationId: 'redeliverWebhook',
        summary: 'Send a webhook event again now',
        description: 'The same body and webhook-id, sent now even while retries are pending. Takes no body.',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: {
          200: RedeliveryAccepted,
          ...deliveryErrors,
        },
      },
      onRequest: authenticated,
    },
    async (request) => {
      return redeliverWebhook(deps, { merchantAccountId: request.merchant.accountId, eventId: request.params.id })
    },
  )

  await app.register(withdrawalRoutes, { ...deps, authenticated })
  await app.register(paymentLinkRoutes, { ...deps, authenticated })

  // Public and cacheable (docs/rules.md#charge-creation): the id is 128 random bits, the image never changes.
  app.get('/api/qr/:file', {
    schema: {
      operationId: 'getQrImage',
      summary: 'The QR code as a PNG',
      description: 'Public and immutable: the URL in qrImageUrl. No token.',
      security: [],
      tags: ['public'],
      params: QrFileParams,
      response: { 200: Type.Unsafe({ description: 'The QR code.', content: { 'image/png': { schema: { type: 'string', contentEncoding: 'binary' } } } }), ...qrErrors },
    },
    config: { partErrorCodes: { file: { code: 'payment_not_found', param: 'payment_id' } } },
  }, async (request, reply) => {
    const wait = qrReaders.wait(request.ip)
    if (wait > 0) throw limited(wait)
    qrReaders.count(request.ip)
    if (!request.params.file.endsWith('.png')) throw new DomainError('payment_not_found', { param: 'payment_id' })
    const code = await chargeQrCode(deps, request.params.file.slice(0, -'.png'.length))
    const png = await QRCode.toBuffer(code, { type: 'png', errorCorrectionLevel: 'M', margin: 2, scale: 6 })
    return reply.type('image/png').header('cache-control', 'public, max-age=31536000, immutable').send(png)
  })
}
