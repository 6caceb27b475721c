// The merchant API's payment links (docs/payment-pages.md): create, list, read, deactivate. The
// public page a link opens is a page for people (src/pay/routes.ts), not an API operation.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { requireMerchantId } from '../../app/authenticate.ts'
import { createPaymentLink, deactivatePaymentLink, getPaymentLink, listPaymentLinks } from '../../app/payment-links.ts'
import { CreatePaymentLinkBody, PaymentLinkList, PaymentLinkRecord, paymentLinkIdPattern } from '../../contract/api.ts'
import type { RouteDeps } from '../../web/deps.ts'
import { createPaymentLinkErrors, createPaymentLinkFieldCodes, PaymentLinkListQuery, paymentLinkReadErrors } from '../schemas.ts'

export type PaymentLinkRouteDeps = Pick<RouteDeps, 'store' | 'clock' | 'config'> & {
  /** The API's authentication, run first on every route. */
  authenticated: (request: FastifyRequest) => Promise<void>
}

const PaymentLinkIdParams = Type.Object({ id: Type.String({ pattern: paymentLinkIdPattern, maxLength: 64 }) })
/** An id no link can have is a link not found, as one of another account's is. */
const linkIdCodes = { id: 'payment_link_not_found' } as const

export const paymentLinkRoutes: FastifyPluginAsyncTypebox<PaymentLinkRouteDeps> = async (app, deps) => {
  const useCaseDeps = { store: deps.store, clock: deps.clock, baseUrl: deps.config.baseUrl }
  // A link's charges are the owner's merchant charges: an account without its EUID has no links.
  const owner = (request: FastifyRequest) => {
    requireMerchantId(request.merchant)
    return request.merchant.accountId
  }

  app.post('/api/payment-links', {
    schema: {
      operationId: 'createPaymentLink',
      summary: 'Publish a payment link',
      description:
        'A reusable checkout at `url` (/l/{slug}, random and unguessable): the payer enters full name and CPF/CNPJ (and the amount, when open), and only then is an ' +
        'ordinary charge made for your account, with `payment_link_id` in its `metadata`, and the payer sent to its payment page. A payer the provider does not ' +
        'know yet pays at most R$ 10,00 a charge, as on create-payment; the page says so before the payer types.',
      body: CreatePaymentLinkBody,
      response: { 200: PaymentLinkRecord, ...createPaymentLinkErrors },
    },
    config: { fieldErrorCodes: createPaymentLinkFieldCodes },
    onRequest: deps.authenticated,
  }, async (request) => createPaymentLink(useCaseDeps, owner(request), request.body))

  app.get('/api/payment-links', {
    schema: {
      operationId: 'listPaymentLinks',
      summary: "List the token's payment links",
      description: 'Newest first, a page at a time (`limit`, 20 by default, and `cursor` from the previous page\'s `next_cursor`), each with its sales: charges paid, what they brought in, and QRs still open.',
      querystring: PaymentLinkListQuery,
      response: { 200: PaymentLinkList, ...paymentLinkReadErrors },
    },
    onRequest: deps.authenticated,
  }, async (request) => listPaymentLinks(useCaseDeps, owner(request), request.query))

  app.get('/api/payment-links/:id', {
    schema: {
      operationId: 'getPaymentLink',
      summary: 'Read a payment link',
      params: PaymentLinkIdParams,
      response: { 200: PaymentLinkRecord, ...paymentLinkReadErrors },
    },
    config: { partErrorCodes: linkIdCodes },
    onRequest: deps.authenticated,
  }, async (request) => getPaymentLink(useCaseDeps, owner(request), request.params.id))

  app.post('/api/payment-links/:id/deactivate', {
    schema: {
      operationId: 'deactivatePaymentLink',
      summary: 'Stop a payment link selling',
      description: 'The page then says the link sells no more; QRs it already made stay payable until they expire. Deactivating again answers the same. Takes no body.',
      params: PaymentLinkIdParams,
      response: { 200: PaymentLinkRecord, ...paymentLinkReadErrors },
    },
    config: { partErrorCodes: linkIdCodes },
    onRequest: deps.authenticated,
  }, async (request) => deactivatePaymentLink(useCaseDeps, owner(request), request.params.id))
}
