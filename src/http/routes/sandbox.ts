// Sandbox controls (decisions section 8): no token, sandbox mode only. They drive the same use
// cases as production, with the fake provider standing in for the payer's side.
import { Type } from 'typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { issueToken } from '../../app/issue-token.ts'
import { openAccount } from '../../app/open-account.ts'
import type { AdjustableClock } from '../../clock.ts'
import { DomainError } from '../../domain/errors.ts'
import { formatUnits, parseBrlToCents } from '../../domain/money.ts'
import { parseTaxNumber } from '../../domain/tax-number.ts'
import type { FakeEulen } from '../../sandbox/fake-eulen.ts'
import type { AppDeps } from '../app.ts'
import { ErrorBody } from '../schemas.ts'

export type SandboxDeps = { fake: FakeEulen; clock: AdjustableClock }

const Email = Type.String({ format: 'email', maxLength: 254 })
const QuoteValue = Type.Union([Type.String({ maxLength: 32 }), Type.Number()])
const errors = { 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody }

export const sandboxRoutes: FastifyPluginAsyncTypebox<AppDeps & { sandbox: SandboxDeps }> = async (app, deps) => {
  const { store, sandbox } = deps

  app.post(
    '/sandbox/accounts',
    {
      schema: {
        body: Type.Object(
          {
            email: Email,
            tax_number: Type.String({ maxLength: 32 }),
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            purchase: Type.Optional(Type.Enum(['own', 'none', 'unidentified'])),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ email: Type.String(), euid: Type.Union([Type.String(), Type.Null()]) }), ...errors },
      },
      config: { fieldErrorCodes: { email: 'email_invalid', tax_number: 'tax_number_invalid' } },
    },
    async (request) => {
      const taxNumber = parseTaxNumber(request.body.tax_number)
      if (!taxNumber) throw new DomainError('tax_number_invalid', { param: 'tax_number' })
      const purchase = request.body.purchase ?? 'own'
      const name = request.body.name ?? null
      // A confirmed purchase paid with the owner's tax number is what makes the provider know them.
      const euid = purchase === 'own' ? (await sandbox.fake.endUser(taxNumber.value, name)).euid : null
      const account = await openAccount(deps, {
        email: request.body.email.toLowerCase(),
        taxNumber: taxNumber.value,
        name,
        kyc: purchase === 'own' ? 'verified' : purchase,
        euid,
      })
      return { email: account.email, euid: account.euid }
    },
  )

  app.post(
    '/sandbox/accounts/:email/tokens',
    {
      schema: {
        params: Type.Object({ email: Type.String({ maxLength: 254 }) }),
        body: Type.Optional(
          Type.Object(
            {
              kind: Type.Optional(Type.Enum(['current', 'pending', 'no_merchant_id'])),
              expires_at: Type.Optional(Type.String({ format: 'date-time' })),
            },
            { additionalProperties: false },
          ),
        ),
        response: {
          200: Type.Object({ token: Type.String(), token_id: Type.String(), merchant_id: Type.Union([Type.String(), Type.Null()]) }),
          ...errors,
        },
      },
    },
    async (request) => {
      const account = await store.accounts.findByEmail(request.params.email.toLowerCase())
      if (!account) throw new DomainError('account_not_found', { param: 'email' })
      const expiresAt = request.body?.expires_at ? new Date(request.body.expires_at) : null
      const issued = await issueToken(deps, { accountId: account.id, kind: request.body?.kind ?? 'current', expiresAt })
      return { token: issued.token, token_id: issued.tokenId, merchant_id: issued.merchantId }
    },
  )

  app.put(
    '/sandbox/quotes',
    {
      schema: {
        body: Type.Object({ BTC: Type.Optional(QuoteValue), USDt: Type.Optional(QuoteValue) }, { additionalProperties: false }),
        response: { 200: Type.Object({ BTC: Type.Union([Type.String(), Type.Null()]), USDt: Type.Union([Type.String(), Type.Null()]) }), ...errors },
      },
    },
    async (request) => {
      const now = sandbox.clock.now()
      for (const currency of ['BTC', 'USDt'] as const) {
        const raw = request.body[currency]
        if (raw === undefined) continue
        const cents = parseBrlToCents(raw)
        if (cents === null || cents <= 0 || !Number.isFinite(cents)) {
          throw new DomainError('invalid_request', { param: currency, message: `${currency} must be a positive BRL price such as "350000.00".` })
        }
        await store.quotes.set(currency, cents, now)
      }
      const quotes = await store.quotes.all()
      const show = (cents: number | undefined) => (cents === undefined ? null : formatUnits(cents, 2))
      return { BTC: show(quotes.BTC), USDt: show(quotes.USDt) }
    },
  )

  app.post(
    '/sandbox/clock',
    {
      schema: {
        body: Type.Object({ advance_seconds: Type.Integer({ minimum: 0, maximum: 31_536_000 }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ now: Type.String() }), ...errors },
      },
    },
    async (request) => ({ now: sandbox.clock.advance(request.body.advance_seconds).toISOString() }),
  )
}
