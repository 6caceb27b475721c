// The merchant API's withdrawals (docs/rules.md#withdrawal-requests): made with the
// account's token to a destination confirmed in the Wallet (a token cannot add one), read
// back, listed; the destinations listed.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { getWithdrawal, listDestinations, listWithdrawals } from '../../app/list-withdrawals.ts'
import { createApiWithdrawal } from '../../app/create-api-withdrawal.ts'
import { CreateWithdrawalBody, DestinationList, WithdrawalList, WithdrawalRecord, withdrawalIdPattern } from '../../contract/api.ts'
import { DomainError } from '../../domain/errors.ts'
import type { RouteDeps } from '../../web/deps.ts'
import { createWithdrawalFieldCodes, IdempotencyKeyHeaders, withdrawalErrors, WithdrawalListQuery, withdrawalReadErrors } from '../schemas.ts'
import { idempotencyKeyCodes, idempotencyKeyOf } from './idempotency-key.ts'

export type WithdrawalRouteDeps = Pick<RouteDeps, 'store' | 'clock' | 'config' | 'quotes' | 'mailSeal' | 'webhookDestinations'> & {
  /** The API's authentication, run first on every route. */
  authenticated: (request: FastifyRequest) => Promise<void>
}

export const withdrawalRoutes: FastifyPluginAsyncTypebox<WithdrawalRouteDeps> = async (app, deps) => {
  const useCaseDeps = (log: FastifyRequest['log']) => ({
    store: deps.store, clock: deps.clock, mailSeal: deps.mailSeal, baseUrl: deps.config.baseUrl, quotes: deps.quotes, limits: deps.config.withdrawals.limits,
    publicWebhooksOnly: deps.config.publicWebhooksOnly, webhookDestinations: deps.webhookDestinations, log,
  })

  app.post('/api/withdrawals', {
    schema: {
      operationId: 'createWithdrawal',
      summary: 'Take balance out to a confirmed destination',
      description:
        'Withdraws `amount` of `currency` from the available balance to a destination confirmed in the Wallet and past its cool-down. DEPIX pays a 2 % fee ' +
        '(rounded up to the centavo); a Pix key also pays the provider\'s payout fee out of what it receives. Above the review threshold or the rolling limits it ' +
        'waits for support (`in_review`). Send an `Idempotency-Key`: a retry with the same key and body answers the same withdrawal.',
      headers: IdempotencyKeyHeaders('one per withdrawal you mean to make'),
      body: CreateWithdrawalBody,
      response: { 200: WithdrawalRecord, ...withdrawalErrors },
    },
    config: { fieldErrorCodes: createWithdrawalFieldCodes, partErrorCodes: idempotencyKeyCodes },
    onRequest: deps.authenticated,
  }, async (request) =>
    createApiWithdrawal(useCaseDeps(request.log), {
      accountId: request.merchant.accountId, tokenId: request.merchant.tokenId, body: request.body,
      idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key']), address: request.ip,
    }))

  app.get('/api/withdrawals', {
    schema: {
      operationId: 'listWithdrawals',
      summary: "List the token's account withdrawals",
      description: 'Newest first, filtered by status and creation time, a page at a time, as GET /api/payments.',
      querystring: WithdrawalListQuery,
      response: { 200: WithdrawalList, ...withdrawalReadErrors },
    },
    onRequest: deps.authenticated,
    // The router forgives a trailing slash, so /api/withdrawals/ (a client's path with an empty
    // id) would answer the list where a withdrawal was expected.
    preValidation: async (request) => {
      if (request.url.split('?')[0]!.endsWith('/')) throw new DomainError('withdrawal_not_found', { param: 'withdrawal_id', message: 'The path has no withdrawal id.' })
    },
  }, async (request) =>
    listWithdrawals(deps, {
      accountId: request.merchant.accountId,
      ...(request.query.status === undefined ? {} : { status: request.query.status }),
      ...(request.query.created_from === undefined ? {} : { createdFrom: request.query.created_from }),
      ...(request.query.created_to === undefined ? {} : { createdTo: request.query.created_to }),
      ...(request.query.limit === undefined ? {} : { limit: request.query.limit }),
      ...(request.query.cursor === undefined ? {} : { cursor: request.query.cursor }),
    }))

  app.get('/api/withdrawals/:withdrawal_id', {
    schema: {
      operationId: 'getWithdrawal',
      summary: 'Read a withdrawal',
      params: Type.Object({ withdrawal_id: Type.String({ pattern: withdrawalIdPattern, description: 'The withdrawal\'s `id`: `wd_` and 24 lowercase hex characters.' }) }),
      response: { 200: WithdrawalRecord, ...withdrawalReadErrors },
    },
    config: { partErrorCodes: { withdrawal_id: 'withdrawal_not_found' } },
    onRequest: deps.authenticated,
  }, async (request) => getWithdrawal(deps, { accountId: request.merchant.accountId, withdrawalId: request.params.withdrawal_id }))

  app.get('/api/withdrawal-destinations', {
    schema: {
      operationId: 'listWithdrawalDestinations',
      summary: "The account's withdrawal destinations",
      description: 'Added and confirmed in the Wallet only; `active` ones can receive.',
      response: { 200: DestinationList, ...withdrawalReadErrors },
    },
    onRequest: deps.authenticated,
  }, async (request) => listDestinations(deps, request.merchant.accountId))
}
