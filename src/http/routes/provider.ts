// Incoming provider webhooks (docs/rules.md#provider-webhooks): `Authorization: Basic <secret
// exactly as registered>`, compared in constant time. Answered only once the event is applied, so a
// 200 means it is stored; duplicates and stale events are harmless.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { applyProviderEvent } from '../../app/apply-provider-event.ts'
import { recordMed } from '../../app/record-med.ts'
import { DomainError } from '../../domain/errors.ts'
import { applyPayoutReport } from '../../app/send-payout.ts'
import { parseProviderDeposit, parseProviderMed, parseProviderPayout } from '../../provider/eulen-replies.ts'
import { ProviderUnavailableError } from '../../provider/provider.ts'
import type { RouteDeps } from '../../web/deps.ts'
import { documentAudience } from '../../web/audiences.ts'
import { errorResponses } from '../schemas.ts'
import { headerMatcher } from '../header-secret.ts'

export const providerRoutes: FastifyPluginAsync<Pick<RouteDeps, 'store' | 'clock' | 'quotes' | 'providerWebhookSecrets' | 'authFailures' | 'mailSeal' | 'config'>> = async (app, deps) => {
  documentAudience(app, 'provider')
  const isProvider = headerMatcher(deps.providerWebhookSecrets.map((secret) => `Basic ${secret}`))
  const schema = (operationId: string, summary: string, description: string) => ({
    operationId,
    summary,
    description,
    body: { type: 'object', description: 'As docs/rules.md#provider-webhooks describes it.' },
    response: {
      200: { type: 'object', properties: { received: { type: 'boolean', enum: [true] } }, examples: [{ received: true }] },
      ...errorResponses(['provider_webhook_unauthorized', 'invalid_json', 'invalid_request', 'unsupported_media_type', 'body_too_large', 'rate_limited', 'internal_error', 'service_unavailable']),
    },
  })

  const authorize = (request: FastifyRequest) =>
    deps.authFailures.guard(request, () => {
      if (!isProvider(request.headers.authorization)) throw new DomainError('provider_webhook_unauthorized')
    })

  const objectBody = (body: unknown): Record<string, unknown> => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new DomainError('invalid_request', { message: 'The webhook body must be a JSON object.' })
    return body as Record<string, unknown>
  }

  app.post('/provider/webhooks/deposit', {
    schema: schema('providerDepositWebhook', "The provider's deposit status", 'Answered 200 once the event is applied and stored; duplicates and stale events are harmless.'),
    onRequest: authorize,
  }, async (request) => {
    let report
    try {
      report = parseProviderDeposit(objectBody(request.body))
    } catch (error) {
      if (error instanceof ProviderUnavailableError) throw new DomainError('invalid_request', { message: error.message })
      throw error
    }
    const outcome = await applyProviderEvent(deps, report)
    if (outcome.kind === 'not_found') request.log.warn({ qrId: report.qrId }, 'provider webhook for an unknown deposit')
    if (report.event === null) request.log.warn({ qrId: report.qrId, status: report.statusText }, 'provider webhook with a status we do not know; kept, not acted on')
    return { received: true }
  })

  app.post('/provider/webhooks/withdraw', {
    schema: schema('providerWithdrawWebhook', "The provider's payout (withdraw) status", 'A Pix-out the provider is paying (`sending`), paid (`sent`, which completes the withdrawal or the refund payout) or not (`error`, `refunded`: support looks).'),
    onRequest: authorize,
  }, async (request) => {
    let payout
    try {
      payout = parseProviderPayout(objectBody(request.body))
    } catch (error) {
      if (error instanceof ProviderUnavailableError) throw new DomainError('invalid_request', { message: error.message })
      throw error
    }
    // The payout it names, whoever owns it (a withdrawal, a refund owed).
    const known = await applyPayoutReport({ store: deps.store, clock: deps.clock, mailSeal: deps.mailSeal, baseUrl: deps.config.baseUrl, log: request.log }, payout)
    if (!known) {
      request.log.warn({ withdrawalId: payout.withdrawalId }, 'provider withdraw webhook for a payout we do not know')
    }
    return { received: true }
  })

  app.post('/provider/webhooks/med', {
    schema: schema('providerMedWebhook', "The provider's refund dispute (MED)", 'Blocks the payer and the receiving e-mail; takes back principalValueInCents (all of it when absent) from a credited payment.'),
    onRequest: authorize,
  }, async (request) => {
    await recordMed(deps, parseProviderMed(objectBody(request.body)))
    return { received: true }
  })
}
