// Support operations (decisions section 9): Bearer operator token, compared in constant time;
// every action is written to the audit log with who (X-Operator, else "operator"), when and why.
import { Type } from 'typebox'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { activateToken } from '../../app/activate-token.ts'
import { assignIdentity } from '../../app/assign-identity.ts'
import { recordBlock } from '../../app/record-block.ts'
import { reviewHold } from '../../app/review-hold.ts'
import { setQuoteOverrides } from '../../app/set-quotes.ts'
import { DomainError } from '../../domain/errors.ts'
import { maskTaxNumber } from '../../domain/tax-number.ts'
import type { RouteDeps } from '../app.ts'
import { headerMatcher } from '../header-secret.ts'
import type { Metrics } from '../metrics.ts'
import { documentAudience } from '../openapi.ts'
import { errorResponses, QuoteValue } from '../schemas.ts'
import type { ErrorCode } from '../../domain/errors.ts'

const Note = Type.String({ minLength: 1, maxLength: 1000 })

/** An operation's documentation: what it is, and the codes it answers besides the operator checks. */
function operation<S extends object>(operationId: string, summary: string, example: unknown, codes: ErrorCode[], schema: S & { response?: object } = {} as S) {
  const errors = errorResponses(['ops_token_missing', 'ops_token_invalid', 'rate_limited', 'invalid_request', 'internal_error', ...codes])
  return { ...schema, operationId, summary, response: { 200: Type.Unknown({ description: 'Done.', examples: [example] }), ...errors, ...schema.response } }
}
const mask = (value: string | null) => (value === null ? null : maskTaxNumber(value))

export const opsRoutes: FastifyPluginAsyncTypebox<RouteDeps & { metrics: Metrics }> = async (app, deps) => {
  documentAudience(app, 'operator')
  const isOperator = headerMatcher(`Bearer ${deps.opsToken}`)
  const actorOf = (request: FastifyRequest) => {
    const header = request.headers['x-operator']
    return typeof header === 'string' && /^[\x20-\x7e]{1,100}$/.test(header) ? header : 'operator'
  }

  app.addHook('onRequest', async (request) =>
    deps.authFailures.guard(request, () => {
      const header = request.headers.authorization
      if (typeof header !== 'string' || header === '') throw new DomainError('ops_token_missing')
      if (!isOperator(header)) throw new DomainError('ops_token_invalid')
    }),
  )

  app.get('/ops/holds', { schema: operation('listHolds', 'Payments held for review (security_hold)', { holds: [{ payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', reason: 'payer_mismatch', value_in_cents: 1000, payer_tax_number: '***.444.777-**' }] }, []) }, async () => {
    const held = await deps.store.charges.listHeld()
    return {
      holds: held.map((charge) => ({
        payment_id: charge.id,
        reason: charge.hold_reason,
        held_since: charge.updated_at.toISOString(),
        value_in_cents: charge.value_cents,
        paid_in_cents: charge.paid_cents,
        bank_tx_id: charge.bank_tx_id,
        blockchain_tx_id: charge.blockchain_tx_id,
        currency: charge.currency,
        informed_euid: charge.informed_euid,
        informed_tax_number: mask(charge.informed_tax_number),
        payer_name: charge.payer_name,
        payer_tax_number: mask(charge.payer_tax_number),
        payer_euid: charge.payer_euid,
      })),
    }
  })

  app.post(
    '/ops/payments/:id/review',
    {
      schema: operation('reviewHold', 'Release or refund a held payment', { payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', status: 'after7d' }, ['payment_not_found', 'payment_not_held', 'quote_unavailable', 'invalid_json', 'unsupported_media_type'], {
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({ decision: Type.Enum(['release', 'refund']), note: Note }, { additionalProperties: false }),
        response: { 200: Type.Object({ payment_id: Type.String(), status: Type.String() }, { examples: [{ payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', status: 'after7d' }] }) },
      }),
    },
    async (request) => {
      const charge = await reviewHold(deps, { chargeId: request.params.id, decision: request.body.decision, note: request.body.note, actor: actorOf(request) })
      return { payment_id: charge.id, status: charge.status }
    },
  )

  app.post(
    '/ops/tokens/:token_id/activate',
    {
      schema: operation('activateToken', 'Activate a token waiting for approval', { token_id: 'tok_0f1e2d3c4b5a6978', status: 'current', merchant_id: 'mer_0f1e2d3c4b5a6978' }, ['not_found', 'token_not_pending', 'invalid_json', 'unsupported_media_type'], {
        params: Type.Object({ token_id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({ note: Type.Optional(Note) }, { additionalProperties: false }),
      }),
      config: { bodyMayBeEmpty: true },
    },
    async (request) => activateToken(deps, { tokenId: request.params.token_id, actor: actorOf(request), note: request.body.note ?? '' }),
  )

  app.post(
    '/ops/accounts/:email/identity',
    {
      schema: operation('assignIdentity', "Give an unidentified account its owner's EUID", { email: 'store@example.com', euid: 'EU123456789012345', kyc: 'verified' }, ['account_not_found', 'euid_invalid', 'identity_taken', 'invalid_json', 'unsupported_media_type'], {
        params: Type.Object({ email: Type.String({ maxLength: 254 }) }),
        body: Type.Object({ euid: Type.String({ maxLength: 32 }), note: Type.Optional(Note) }, { additionalProperties: false }),
      }),
    },
    async (request) =>
      assignIdentity(deps, { email: request.params.email.toLowerCase(), euid: request.body.euid, actor: actorOf(request), note: request.body.note ?? '' }),
  )

  app.post(
    '/ops/blocks',
    {
      schema: operation('recordBlock', 'Block an e-mail, tax number or EUID (a MED reported elsewhere)', { blocked: ['tax_number'] }, ['email_invalid', 'tax_number_invalid', 'euid_invalid', 'invalid_json', 'unsupported_media_type'], {
        body: Type.Object(
          {
            email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
            tax_number: Type.Optional(Type.String({ maxLength: 32 })),
            euid: Type.Optional(Type.String({ maxLength: 32 })),
            reason: Note,
          },
          { additionalProperties: false },
        ),
      }),
      config: { fieldErrorCodes: { email: 'email_invalid', tax_number: 'tax_number_invalid', euid: 'euid_invalid' } },
    },
    async (request) =>
      recordBlock(deps, {
        ...(request.body.email === undefined ? {} : { email: request.body.email }),
        ...(request.body.tax_number === undefined ? {} : { taxNumber: request.body.tax_number }),
        ...(request.body.euid === undefined ? {} : { euid: request.body.euid }),
        reason: request.body.reason,
        actor: actorOf(request),
      }),
  )

  app.put(
    '/ops/quotes',
    {
      schema: operation('setQuoteOverrides', 'Set or clear BRL price overrides for BTC and USDt', { BTC: '350000.00', USDt: null }, ['invalid_json', 'unsupported_media_type'], {
        body: Type.Object({ BTC: Type.Optional(Type.Union([QuoteValue, Type.Null()])), USDt: Type.Optional(Type.Union([QuoteValue, Type.Null()])) }, { additionalProperties: false }),
      }),
    },
    async (request) => {
      const quotes = await setQuoteOverrides(deps, request.body)
      await deps.store.audit.record({ actor: actorOf(request), action: 'quotes.set', subject: 'quotes', details: quotes, at: deps.clock.now() })
      return quotes
    },
  )

  // Provider deposits that match no charge: a webhook for an unknown qrId, a paid deposit the sweep
  // found, a deposit whose creation reply was lost.
  app.get('/ops/unknown-deposits', { schema: operation('listUnknownDeposits', 'Provider deposits that match no charge', { deposits: [{ qr_id: '0197f3a2c1d4', status: 'depix_sent', value_in_cents: 1000, seen_by: 'sweep' }] }, []) }, async () => ({
    deposits: (await deps.store.unknownDeposits.list()).map((deposit) => ({
      qr_id: deposit.qr_id,
      status: deposit.status,
      value_in_cents: deposit.value_cents,
      payer_name: deposit.payer_name,
      payer_tax_number: mask(deposit.payer_tax_number),
      payer_euid: deposit.payer_euid,
      bank_tx_id: deposit.bank_tx_id,
      seen_by: deposit.seen_by,
      first_seen_at: deposit.first_seen_at.toISOString(),
      last_seen_at: deposit.last_seen_at.toISOString(),
    })),
  }))

  // The running balances against the ledger entries they summarise: empty `disagreements` is healthy.
  app.get('/ops/ledger-check', { schema: operation('checkLedger', 'Running balances against the ledger entries', { ok: true, disagreements: [] }, []) }, async () => {
    const disagreements = await deps.store.ledger.disagreements()
    return { ok: disagreements.length === 0, disagreements }
  })

  app.get('/ops/audit', { schema: operation('listAudit', 'The audit log of operator actions', { entries: [{ id: 1, actor: 'ana', action: 'hold.release', subject: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', details: {}, at: '2026-11-23T12:00:00.000Z' }] }, []) }, async () => ({ entries: await deps.store.audit.list() }))

  // Behind the operator token too: business volumes are not for the public.
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  )
}
