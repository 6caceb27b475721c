// The Wallet's "Devolver" on a received charge (docs/rules.md#merchant-refunds): the price shown
// first, then confirmed by the owner's second factor (checked within 5 minutes) or, for an owner
// without one, by an e-mail code bound to the charge and the amount. Registered inside
// walletRoutes: its session, CSRF and headers apply.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { confirmWalletRefund, previewWalletRefund, sendWalletRefundCode, walletCodeSubject } from '../app/merchant-refunds.ts'
import { createCodeTryLimit } from '../app/code-tries.ts'
import { ownerAccount } from '../app/owner-account.ts'
import { hasFactor } from '../app/second-factors.ts'
import { DomainError } from '../domain/errors.ts'
import { formatUnits, parseAmountInput } from '../domain/money.ts'
import { accountHolder } from '../domain/second-factor.ts'
import type { WalletDeps } from './deps.ts'
import { refundPreviewPage } from './refund-pages.ts'
import { trierOf, type WithdrawalPageHelpers } from './withdrawal-routes.ts'

export function registerRefundPages(app: FastifyInstance, deps: WalletDeps, helpers: WithdrawalPageHelpers): void {
  const { pageOf, html, accountOf, field, signedIn, protectSignedIn, factors } = helpers
  const refundDeps = { store: deps.store, clock: deps.clock, mailSeal: deps.mailSeal, baseUrl: deps.config.baseUrl, quotes: deps.quotes, limits: deps.config.withdrawals.limits }
  const codeTries = createCodeTryLimit({ store: deps.store, log: app.log })
  const amountOf = (text: string): number => {
    const cents = parseAmountInput('DEPIX', text)
    if (cents === null) throw new DomainError('amount_invalid', { param: 'amount' })
    return cents
  }
  const previewUrl = (chargeId: string, cents: number, sent: boolean) =>
    `/wallet/charges/${encodeURIComponent(chargeId)}/refund?${new URLSearchParams({ amount: formatUnits(cents, 2), ...(sent ? { sent: '1' } : {}) })}`
  const ownerHasFactor = (request: FastifyRequest) => hasFactor(deps, accountHolder(accountOf(request)!))

  app.get<{ Params: { id: string }; Querystring: { amount?: string; sent?: string } }>('/wallet/charges/:id/refund', signedIn, async (request, reply) => {
    const accountId = accountOf(request)!
    const cents = amountOf(typeof request.query.amount === 'string' ? request.query.amount.slice(0, 24) : '')
    const preview = await previewWalletRefund(refundDeps, { accountId, chargeId: request.params.id.slice(0, 64), amountCents: cents })
    const factor = await ownerHasFactor(request)
    if (factor && (await factors.needsStepUp(request))) return reply.redirect(`/wallet/check?next=${encodeURIComponent(previewUrl(preview.chargeId, cents, false))}`, 303)
    const account = await ownerAccount(deps, accountId)
    const page = { ...pageOf(request, reply), timeZone: account.time_zone }
    return html(reply, refundPreviewPage(page, preview, factor ? 'confirm' : request.query.sent === '1' ? 'code' : 'send', account.email))
  })

  app.post<{ Params: { id: string } }>('/wallet/charges/:id/refund/code', protectSignedIn, async (request, reply) => {
    const cents = amountOf(field(request.body, 'amount', 24))
    const chargeId = request.params.id.slice(0, 64)
    await sendWalletRefundCode(refundDeps, { accountId: accountOf(request)!, chargeId, amountCents: cents, lang: pageOf(request, reply).lang, address: request.ip })
    return reply.redirect(previewUrl(chargeId, cents, true), 303)
  })

  app.post<{ Params: { id: string } }>('/wallet/charges/:id/refunds', protectSignedIn, async (request, reply) => {
    const accountId = accountOf(request)!
    const cents = amountOf(field(request.body, 'amount', 24))
    const chargeId = request.params.id.slice(0, 64)
    const lang = pageOf(request, reply).lang
    if (!(await ownerHasFactor(request))) await codeTries.take(trierOf(request), lang, { accountId, purpose: 'refund', id: walletCodeSubject(chargeId, cents) })
    await confirmWalletRefund(refundDeps, { accountId, chargeId, amountCents: cents, code: field(request.body, 'code', 20), stepUp: factors.stepUpProof(request), lang })
    return reply.redirect(`/wallet/charges/${encodeURIComponent(chargeId)}?refund=made`, 303)
  })
}
