// The Wallet's destinations and withdrawals (docs/rules.md#withdrawal-requests): an owner adds a
// destination and confirms it with an e-mail code (its e-mail's link cancels it, signed in or not);
// withdraws to an active one, sees the fees and what arrives, confirms with a code bound to that
// withdrawal, and follows it. Registered inside walletRoutes: its session, CSRF and headers apply.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify'
import { addDestination } from '../app/add-destination.ts'
import { createCodeTryLimit, type CodeTrier } from '../app/code-tries.ts'
import { cancelDestination, confirmDestination, destinationForCancelLink, ownDestination } from '../app/confirm-destination.ts'
import { ownDestinations, ownWithdrawal, withdrawalsOverview, withdrawalsWithDetails, type WithdrawalWithDetails } from '../app/list-withdrawals.ts'
import { ownerAccount } from '../app/owner-account.ts'
import { cancelWithdrawal } from '../app/cancel-withdrawal.ts'
import { confirmWithdrawal } from '../app/confirm-withdrawal.ts'
import { requestWithdrawal } from '../app/request-withdrawal.ts'
import { destinationState, maskDestination } from '../app/withdrawal-records.ts'
import { DomainError } from '../domain/errors.ts'
import { currencies, parseAmountInput, type Currency } from '../domain/money.ts'
import { catalogues, type Lang } from '../i18n/catalogue.ts'
import type { WithdrawalDestination } from '../store/schema.ts'
import type { WalletDeps } from './deps.ts'
import type { FactorGate } from '../web/factor-routes.ts'
import { cancelDestinationPage, confirmDestinationPage, destinationsPage, withdrawalPage, withdrawalsPage, type DestinationRow, type WithdrawalRow } from './withdrawal-pages.ts'

export type WalletPageHelpers = {
  pageOf: (request: FastifyRequest, reply: FastifyReply) => { lang: Lang; csrf: string }
  html: (reply: FastifyReply, body: string, status?: number) => FastifyReply
  accountOf: (request: FastifyRequest) => number | null
  field: (body: unknown, name: string, max: number) => string
  /** Route options: signed in; CSRF-checked; both. */
  signedIn: RouteShorthandOptions
  protect: RouteShorthandOptions
  protectSignedIn: RouteShorthandOptions
}

export type WithdrawalPageHelpers = WalletPageHelpers & { factors: FactorGate }

/** Who tries a code that guards money: the session and the client address (app/code-tries.ts). */
export const trierOf = (request: FastifyRequest): CodeTrier => ({ sessionId: request.session.sessionId, address: request.ip })

export function registerWithdrawalPages(app: FastifyInstance, deps: WalletDeps, helpers: WithdrawalPageHelpers): void {
  const { pageOf, html, accountOf, field, signedIn, protect, protectSignedIn, factors } = helpers
  // An owner with a second factor checks it (within 5 minutes) before a confirmation form is shown.
  const checkFirst = (reply: FastifyReply, next: string) => reply.redirect(`/wallet/check?next=${encodeURIComponent(next)}`, 303)
  const withdrawalDeps = { store: deps.store, clock: deps.clock, mailSeal: deps.mailSeal, baseUrl: deps.config.baseUrl, quotes: deps.quotes, limits: deps.config.withdrawals.limits }
  const destinationDeps = { ...withdrawalDeps, network: deps.config.treasury.network, cooldownMs: deps.config.withdrawals.cooldownMs }
  const cooldownHours = Math.round(deps.config.withdrawals.cooldownMs / 3_600_000)
  // Every form that checks a destination's or a withdrawal's code takes a try first (a resent
  // form for one already confirmed checks none, and answers as before).
  const codeTries = createCodeTryLimit({ store: deps.store, log: app.log })

  const rowOf = (destination: WithdrawalDestination): DestinationRow => ({
    id: destination.id, type: destination.type, masked: maskDestination(destination), label: destination.label, state: destinationState(destination, deps.clock.now()), usableAt: destination.usable_at,
  })
  const owned = (request: FastifyRequest, id: string) => ownDestination(deps, { accountId: accountOf(request)!, destinationId: id })
  const withdrawalRow = ({ withdrawal, destination, payout }: WithdrawalWithDetails, lang: Lang): WithdrawalRow => {
    const reason = withdrawal.failure_code ?? withdrawal.review_reason
    return {
      id: withdrawal.id, status: withdrawal.status, currency: withdrawal.currency, amount: withdrawal.amount, fee: withdrawal.fee, net: withdrawal.net_amount, payoutCents: withdrawal.payout_cents,
      destination: rowOf(destination), txid: payout?.txid ?? null, receiptUrl: payout?.provider_receipt_url ?? null, reason: reason === null ? null : catalogues[lang].withdrawalReasons[reason], createdAt: withdrawal.created_at,
    }
  }

  app.get<{ Querystring: { notice?: string } }>('/wallet/destinations', signedIn, async (request, reply) => {
    const accountId = accountOf(request)!
    const account = await ownerAccount(deps, accountId)
    const notice = request.query.notice === 'confirmed' || request.query.notice === 'canceled' ? request.query.notice : null
    const rows = (await ownDestinations(deps, accountId)).map(rowOf)
    return html(reply, destinationsPage(pageOf(request, reply), rows, account.owner_tax_number ?? '', cooldownHours, notice))
  })

  app.post('/wallet/destinations', protectSignedIn, async (request, reply) => {
    const type = field(request.body, 'type', 10)
    if (type !== 'pix' && type !== 'liquid') throw new DomainError('invalid_request', { param: 'type' })
    const label = typeof (request.body as Record<string, unknown>).label === 'string' ? field(request.body, 'label', 200) : ''
    await factors.stepUp(request)
    const destination = await addDestination(destinationDeps, {
      accountId: accountOf(request)!, type, value: field(request.body, 'value', 200), label: label === '' ? null : label, lang: pageOf(request, reply).lang, address: request.ip,
    })
    return reply.redirect(`/wallet/destinations/${destination.id}`, 303)
  })

  app.get<{ Params: { id: string } }>('/wallet/destinations/:id', signedIn, async (request, reply) => {
    const destination = await owned(request, request.params.id)
    if (destination.state !== 'unconfirmed') return reply.redirect('/wallet/destinations', 303)
    if (await factors.needsStepUp(request)) return checkFirst(reply, `/wallet/destinations/${destination.id}`)
    const account = await ownerAccount(deps, destination.account_id)
    return html(reply, confirmDestinationPage(pageOf(request, reply), rowOf(destination), account.email))
  })

  app.post<{ Params: { id: string } }>('/wallet/destinations/:id/confirm', protectSignedIn, async (request, reply) => {
    const destination = await owned(request, request.params.id.slice(0, 64))
    if (destination.state === 'unconfirmed') await codeTries.take(trierOf(request), pageOf(request, reply).lang, { accountId: destination.account_id, purpose: 'destination', id: destination.id })
    await confirmDestination(destinationDeps, { accountId: destination.account_id, destinationId: destination.id, code: field(request.body, 'code', 20), stepUp: factors.stepUpProof(request) })
    return reply.redirect('/wallet/destinations?notice=confirmed', 303)
  })

  app.post<{ Params: { id: string } }>('/wallet/destinations/:id/cancel', protectSignedIn, async (request, reply) => {
    await cancelDestination(destinationDeps, { accountId: accountOf(request)!, destinationId: request.params.id.slice(0, 64) })
    return reply.redirect('/wallet/destinations?notice=canceled', 303)
  })

  // The e-mail's link: no sign-in needed (the owner may be away from the device that is signed in).
  app.get<{ Params: { token: string } }>('/wallet/destinations/cancel/:token', async (request, reply) => {
    const destination = await destinationForCancelLink(deps, request.params.token.slice(0, 64))
    if (!destination) throw new DomainError('destination_not_found')
    return html(reply, cancelDestinationPage({ ...pageOf(request, reply), signedIn: accountOf(request) !== null }, rowOf(destination), request.params.token, false))
  })

  app.post<{ Params: { token: string } }>('/wallet/destinations/cancel/:token', protect, async (request, reply) => {
    const token = request.params.token.slice(0, 64)
    const destination = await destinationForCancelLink(deps, token)
    if (!destination) throw new DomainError('destination_not_found')
    await cancelDestination(destinationDeps, { token })
    return html(reply, cancelDestinationPage({ ...pageOf(request, reply), signedIn: accountOf(request) !== null }, rowOf(destination), token, true))
  })

  app.get('/wallet/withdrawals', signedIn, async (request, reply) => {
    const accountId = accountOf(request)!
    const page = { ...pageOf(request, reply), timeZone: (await ownerAccount(deps, accountId)).time_zone }
    const { withdrawals, destinations, available } = await withdrawalsOverview(deps, accountId)
    return html(reply, withdrawalsPage(page, withdrawals.map((withdrawal) => withdrawalRow(withdrawal, page.lang)), destinations.map(rowOf), available))
  })

  app.post('/wallet/withdrawals', protectSignedIn, async (request, reply) => {
    const currency = field(request.body, 'currency', 10)
    if (!(currencies as readonly string[]).includes(currency)) throw new DomainError('currency_invalid', { param: 'currency' })
    const amount = parseAmountInput(currency as Currency, field(request.body, 'amount', 24))
    if (amount === null) throw new DomainError('amount_below_minimum', { param: 'amount' })
    const accountId = accountOf(request)!
    const withdrawal = await requestWithdrawal(withdrawalDeps, {
      accountId, destinationId: field(request.body, 'destination_id', 64), currency: currency as Currency, amount, lang: pageOf(request, reply).lang, via: 'wallet',
      webhookUrl: null, webhookSecret: null, actor: `owner:${accountId}`, address: request.ip,
    })
    return reply.redirect(`/wallet/withdrawals/${withdrawal.id}`, 303)
  })

  const ownedWithdrawal = (request: FastifyRequest, id: string) => ownWithdrawal(deps, { accountId: accountOf(request)!, withdrawalId: id })

  app.get<{ Params: { id: string } }>('/wallet/withdrawals/:id', signedIn, async (request, reply) => {
    const withdrawal = await ownedWithdrawal(request, request.params.id)
    if (withdrawal.status === 'requested' && (await factors.needsStepUp(request))) return checkFirst(reply, `/wallet/withdrawals/${withdrawal.id}`)
    const page = pageOf(request, reply)
    const account = await ownerAccount(deps, withdrawal.account_id)
    const [details] = await withdrawalsWithDetails(deps, [withdrawal])
    return html(reply, withdrawalPage(page, withdrawalRow(details!, page.lang), account.email))
  })

  app.post<{ Params: { id: string } }>('/wallet/withdrawals/:id/confirm', protectSignedIn, async (request, reply) => {
    const withdrawal = await ownedWithdrawal(request, request.params.id)
    if (withdrawal.status === 'requested') await codeTries.take(trierOf(request), pageOf(request, reply).lang, { accountId: withdrawal.account_id, purpose: 'withdrawal', id: withdrawal.id })
    await confirmWithdrawal(withdrawalDeps, { accountId: withdrawal.account_id, withdrawalId: withdrawal.id, code: field(request.body, 'code', 20), stepUp: factors.stepUpProof(request) })
    return reply.redirect(`/wallet/withdrawals/${withdrawal.id}`, 303)
  })

  app.post<{ Params: { id: string } }>('/wallet/withdrawals/:id/cancel', protectSignedIn, async (request, reply) => {
    const withdrawal = await ownedWithdrawal(request, request.params.id)
    await cancelWithdrawal(withdrawalDeps, { accountId: withdrawal.account_id, withdrawalId: withdrawal.id, actor: `owner:${withdrawal.account_id}` })
    return reply.redirect(`/wallet/withdrawals/${withdrawal.id}`, 303)
  })
}
