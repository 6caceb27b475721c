// The Wallet at /wallet (docs/rules.md#wallet): account owners join, sign in with a code by e-mail,
// make the identity purchase and issue the API token. Its own encapsulated part of the app: session
// cookie, CSRF, form bodies and security headers apply here and nowhere else.
import { randomBytes } from 'node:crypto'
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { issueToken } from '../app/issue-token.ts'
import { listWebhookDeliveries, redeliverWebhook } from '../app/webhook-deliveries.ts'
import { DomainError } from '../domain/errors.ts'
import { parseDisplayName } from '../domain/payment-page.ts'
import { createPaymentLink, deactivatePaymentLink, listPaymentLinks, maySellThroughLinks, paymentLinkWithCharges, setPaymentLinkNotices } from '../app/payment-links.ts'
import { linkPage as linkChargesPage, linksPage } from './link-pages.ts'
import { serveAsset } from '../web/assets.ts'
import { pageError } from '../web/page-errors.ts'
import { field, registerPageSite, sendPage as html } from '../web/page-shell.ts'
import { createChargeDeps } from '../web/deps.ts'
import type { WalletDeps } from './deps.ts'
import { accountChargeView, chargeRow, listAccountCharges } from '../app/account-charges.ts'
import { accountOverview } from '../app/account-overview.ts'
import { buyDepix, ownPurchase } from '../app/buy-depix.ts'
import { ownerAccount, saveOwnerSettings, setOwnerLanguage } from '../app/owner-account.ts'
import { walletCss, walletJs } from '../web/page-assets.ts'
import { formPageOf } from '../web/factor-routes.ts'
import { registerFactorPages } from './factor-routes.ts'
import { factorsCard } from '../web/factor-pages.ts'
import { hasFactor, noticeTokenIssued, factorsOf } from '../app/second-factors.ts'
import { accountHolder } from '../domain/second-factor.ts'
import { errorText, langOf, statusLabel, translate, type Lang } from '../i18n/catalogue.ts'
import { chargePage, chargesPage, codePage, dashboardPage, deliveriesPage, errorPage, purchasePage, signInPage, signUpPage, tokenPage, tokenShownPage } from './pages.ts'
import { createSealer } from '../secrets/seal.ts'
import { createSessionStore } from '../web/session-store.ts'
import { registerWithdrawalPages } from './withdrawal-routes.ts'
import { registerRefundPages } from './refund-routes.ts'
import { registerStatementPages } from './statement-routes.ts'
import { createAddressWindows } from '../web/address-windows.ts'
import { CODES_PER_ADDRESS_PER_HOUR, codeMayComeLate, HOUR_MS, normalizeEmail, parseSignUp, sendCode, verifyCode } from '../app/owner-sign-in.ts'


declare module 'fastify' {
  interface Session {
    accountId?: number
    /** The nonce of the "Novo Token" form last shown: a POST without it (a replay) issues nothing. */
    tokenNonce?: string
    /** A token just issued, sealed, until the page that shows it once is read. */
    newToken?: string
  }
}

const LANG_COOKIE = 'wallet_lang'

export const walletRoutes: FastifyPluginAsync<WalletDeps> = async (app, deps) => {
  const secure = deps.config.baseUrl.startsWith('https://')
  await registerPageSite(app, {
    prefix: '/wallet', secure, scripts: true, bodyLimit: 4096, opsTokens: deps.opsTokens,
    sessions: createSessionStore(deps, deps.store.sessions.wallet, (stored) => (typeof stored.accountId === 'number' ? stored.accountId : null)),
  })

  const langFor = (request: FastifyRequest): Lang => langOf(request.cookies[LANG_COOKIE])
  const pageOf = (request: FastifyRequest, reply: FastifyReply) => ({ lang: langFor(request), csrf: reply.generateCsrf() })
  const accountOf = (request: FastifyRequest): number | null => (typeof request.session.accountId === 'number' ? request.session.accountId : null)
  const signedIn = async (request: FastifyRequest, reply: FastifyReply) => {
    if (accountOf(request) === null) return reply.redirect('/wallet', 303)
  }
  const protect = { preHandler: app.csrfProtection }
  const protectSignedIn = { onRequest: signedIn, preHandler: app.csrfProtection }
  /** The owner's time zone, that the money views read their dates in. */
  const zoneOf = async (accountId: number) => (await ownerAccount(deps, accountId)).time_zone

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { mapped, csrfFailure, csrfToken } = pageError(error, request, reply, 'wallet')
    const lang = langFor(request)
    const message = mapped.localized && mapped.detail !== undefined ? mapped.detail : errorText(mapped.code, lang)
    // A money action refused for want of a fresh factor links to the check, and back to the form's page.
    const stepUpNext = mapped.code === 'step_up_required' ? formPageOf('/wallet', request.url) : null
    return html(reply, errorPage({ lang, csrf: csrfToken, signedIn: accountOf(request) !== null }, message, mapped.code, csrfFailure, stepUpNext), mapped.status)
  })

  serveAsset(app, '/wallet/assets/wallet.css', walletCss)
  serveAsset(app, '/wallet/assets/wallet.js', walletJs)

  const pageHelpers = { pageOf, html, accountOf, field, signedIn: { onRequest: signedIn }, protect, protectSignedIn }
  const factors = registerFactorPages(app, deps, pageHelpers)

  app.get<{ Params: { lang: string } }>('/wallet/lang/:lang', async (request, reply) => {
    const lang = request.params.lang === 'en' ? 'en' : 'pt-BR'
    // Mail sent while the owner is away follows the language they read the Wallet in.
    const accountId = accountOf(request)
    if (accountId !== null) await setOwnerLanguage(deps, accountId, lang)
    return reply.setCookie(LANG_COOKIE, lang, { path: '/wallet', sameSite: 'lax', httpOnly: true, secure, maxAge: 365 * 24 * 3600 }).redirect('/wallet', 303)
  })

  app.get<{ Querystring: { saved?: string } }>('/wallet', async (request, reply) => {
    const accountId = accountOf(request)
    if (accountId === null) return html(reply, signInPage(pageOf(request, reply)))
    // Each "Novo Token" form shown carries a fresh nonce; only a POST with the newest one issues a token.
    const tokenNonce = randomBytes(16).toString('base64url')
    request.session.tokenNonce = tokenNonce
    const factors = (await factorsOf(deps, accountHolder(accountId))).factors.length
    return html(reply, dashboardPage(pageOf(request, reply), await accountOverview(deps, accountId), deps.config.supportEmail, tokenNonce, factorsCard(langFor(request), factors), request.query.saved === '1'))
  })

  // The account's settings for its public pages: the name payers see (docs/payment-pages.md).
  app.post('/wallet/settings', protectSignedIn, async (request, reply) => {
    const accountId = accountOf(request)!
    await saveOwnerSettings(deps, accountId, {
      displayName: parseDisplayName(field(request.body, 'display_name', 240)),
      // An unchecked box is not sent at all.
      notifySales: (request.body as Record<string, unknown>).notify_sales === 'yes',
    })
    return reply.redirect('/wallet?saved=1', 303)
  })

  app.get('/wallet/sign-up', async (request, reply) => html(reply, signUpPage(pageOf(request, reply))))

  // Code requests per client address, counted in memory before anything is read or written.
  const codeRequests = createAddressWindows({ limit: CODES_PER_ADDRESS_PER_HOUR, windowMs: HOUR_MS })
  const askCode = async (request: FastifyRequest, email: string, signUp: ReturnType<typeof parseSignUp> | null) => {
    const wait = codeRequests.wait(request.ip)
    if (wait > 0) throw new DomainError('rate_limited', { message: translate(langFor(request), 'tooManyCodesFromAddress'), retryAfterSeconds: wait, localized: true })
    codeRequests.count(request.ip)
    await sendCode(deps, { email, lang: langFor(request), signUp, address: request.ip })
  }

  app.post('/wallet/sign-in', protect, async (request, reply) => {
    const email = normalizeEmail(field(request.body, 'email', 254))
    await askCode(request, email, null)
    return reply.redirect(`/wallet/code?email=${encodeURIComponent(email)}`, 303)
  })

  app.post('/wallet/sign-up', protect, async (request, reply) => {
    const email = normalizeEmail(field(request.body, 'email', 254))
    const signUp = parseSignUp({ name: field(request.body, 'name', 200), taxNumber: field(request.body, 'tax_number', 32) })
    await askCode(request, email, signUp)
    return reply.redirect(`/wallet/code?email=${encodeURIComponent(email)}`, 303)
  })

  app.get<{ Querystring: { email?: string } }>('/wallet/code', async (request, reply) => {
    const email = normalizeEmail(typeof request.query.email === 'string' ? request.query.email : '')
    // When the mail server is known to be failing, the page says so: the code may come late.
    return html(reply, codePage(pageOf(request, reply), email, await codeMayComeLate(deps)))
  })

  app.post('/wallet/code', protect, async (request, reply) => {
    const email = normalizeEmail(field(request.body, 'email', 254))
    const code = field(request.body, 'code', 20)
    const { accountId } = await deps.authFailures.guard(request, () => verifyCode(deps, { email, code }))
    // A fresh session id on sign-in: an id planted before sign-in is worth nothing after it.
    await request.session.regenerate()
    await setOwnerLanguage(deps, accountId, langFor(request))
    // With a second factor, the e-mail code is half of it: the session waits for the factor.
    if (await hasFactor(deps, accountHolder(accountId))) {
      request.session.pendingHolder = accountHolder(accountId)
      request.session.pendingSince = deps.clock.now().getTime()
      return reply.redirect('/wallet/check', 303)
    }
    request.session.accountId = accountId
    return reply.redirect('/wallet', 303)
  })

  app.post('/wallet/sign-out', protect, async (request, reply) => {
    await request.session.destroy()
    return reply.redirect('/wallet', 303)
  })

  app.post('/wallet/purchases', protectSignedIn, async (request, reply) => {
    const created = await buyDepix(createChargeDeps(deps, request.log), { accountId: accountOf(request)!, value: field(request.body, 'value', 16) })
    return reply.redirect(`/wallet/purchases/${created.id}`, 303)
  })

  app.get<{ Params: { id: string } }>('/wallet/purchases/:id', { onRequest: signedIn }, async (request, reply) => {
    const accountId = accountOf(request)!
    const charge = await ownPurchase(deps, { accountId, chargeId: request.params.id })
    const account = await ownerAccount(deps, accountId)
    return html(reply, purchasePage(pageOf(request, reply), {
      id: charge.id, status: charge.status, qrCopyPaste: charge.qr_copy_paste, qrImageUrl: `/api/qr/${charge.id}.png`,
      expiresAt: charge.expires_at, valueCents: charge.value_cents, ownerTaxNumber: account.owner_tax_number ?? '',
    }, deps.simulatePurchase !== undefined))
  })

  app.get<{ Params: { id: string } }>('/wallet/purchases/:id/status', { onRequest: signedIn }, async (request, reply) => {
    const charge = await ownPurchase(deps, { accountId: accountOf(request)!, chargeId: request.params.id })
    return reply.header('cache-control', 'no-store').send({ status: charge.status, label: statusLabel(langFor(request), charge.status) })
  })

  if (deps.simulatePurchase) {
    const simulate = deps.simulatePurchase
    app.post<{ Params: { id: string } }>('/wallet/purchases/:id/simulate', protectSignedIn, async (request, reply) => {
      await simulate(await ownPurchase(deps, { accountId: accountOf(request)!, chargeId: request.params.id }))
      return reply.redirect(`/wallet/purchases/${request.params.id}`, 303)
    })
  }

  // Post/redirect/get: the POST issues the token and keeps it, sealed, in the session; the page
  // that follows shows it once. Reloading that page, or going back and sending the form again,
  // issues nothing: the form's nonce is spent, and the integration using the token keeps working.
  const tokenSeal = createSealer(deps.opsTokens, 'wallet-new-token')
  app.post('/wallet/token', protectSignedIn, async (request, reply) => {
    if (field(request.body ?? {}, 'confirm', 10) !== 'yes') throw new DomainError('invalid_request', { param: 'confirm' })
    const nonce = field(request.body, 'nonce', 64)
    if (request.session.tokenNonce === undefined || request.session.tokenNonce !== nonce) return reply.redirect('/wallet/token', 303)
    await factors.stepUp(request)
    delete request.session.tokenNonce
    const issued = await issueToken(deps, { accountId: accountOf(request)! })
    const owner = await ownerAccount(deps, accountOf(request)!)
    await noticeTokenIssued(deps, { email: owner.email, lang: langFor(request) }, issued.token.slice(-4))
    request.session.newToken = tokenSeal.seal(issued.token)
    return reply.redirect('/wallet/token', 303)
  })

  app.get('/wallet/token', { onRequest: signedIn }, async (request, reply) => {
    const token = request.session.newToken === undefined ? null : tokenSeal.open(request.session.newToken)
    delete request.session.newToken
    if (token !== null) return html(reply, tokenPage(pageOf(request, reply), token))
    return html(reply, tokenShownPage(pageOf(request, reply), await accountOverview(deps, accountOf(request)!)))
  })

  app.get<{ Querystring: { status?: string; before?: string } }>('/wallet/charges', { onRequest: signedIn }, async (request, reply) => {
    const query = request.query
    const listed = await listAccountCharges(deps, {
      accountId: accountOf(request)!,
      status: typeof query.status === 'string' ? query.status : undefined,
      before: typeof query.before === 'string' ? query.before : undefined,
    })
    const next = listed.nextCursor === null ? null : `/wallet/charges?${new URLSearchParams({ ...(listed.status ? { status: listed.status } : {}), before: listed.nextCursor })}`
    return html(reply, chargesPage({ ...pageOf(request, reply), timeZone: await zoneOf(accountOf(request)!) }, listed.rows, listed.status, next))
  })

  app.get<{ Params: { id: string }; Querystring: { refund?: string } }>('/wallet/charges/:id', { onRequest: signedIn }, async (request, reply) => {
    const accountId = accountOf(request)!
    const { charge, refunds, leftCents, lines } = await accountChargeView(deps, { accountId, chargeId: request.params.id.slice(0, 64) })
    const ownWaiting = charge.merchant_id === null && charge.account_id === accountId && charge.status === 'waiting_payment'
    return html(reply, chargePage({ ...pageOf(request, reply), timeZone: await zoneOf(accountId) }, {
      ...chargeRow(charge, accountId), payerName: charge.payer_name, payerTaxNumber: charge.payer_tax_number, confirmedAt: charge.confirmed_at, releaseAt: charge.release_at,
      quoteMicros: charge.currency === 'DEPIX' ? null : charge.quote_micros, purchaseHref: ownWaiting ? `/wallet/purchases/${charge.id}` : null,
      lines: lines.map((line) => ({ type: line.type, currency: line.currency, amount: line.amount, at: line.createdAt })),
      refunds: { rows: refunds, leftCents, made: request.query.refund === 'made' },
    }))
  })

  app.get<{ Querystring: { queued?: string } }>('/wallet/deliveries', { onRequest: signedIn }, async (request, reply) => {
    const { deliveries } = await listWebhookDeliveries(deps, { merchantAccountId: accountOf(request)!, chargeId: null })
    const rows = deliveries.map((delivery) => ({
      id: delivery.id, subjectId: delivery.payment_id ?? delivery.withdrawal_id ?? '', event: delivery.event, state: delivery.state,
      attempts: delivery.attempt_log.map((attempt) => ({ at: new Date(attempt.at), statusCode: attempt.status_code, error: attempt.error })),
    }))
    return html(reply, deliveriesPage({ ...pageOf(request, reply), timeZone: await zoneOf(accountOf(request)!) }, rows, request.query.queued === '1'))
  })

  app.post<{ Params: { id: string } }>('/wallet/deliveries/:id/redeliver', protectSignedIn, async (request, reply) => {
    await redeliverWebhook(deps, { merchantAccountId: accountOf(request)!, eventId: request.params.id.slice(0, 64) })
    return reply.redirect('/wallet/deliveries?queued=1', 303)
  })

  // Payment links (docs/payment-pages.md): the owner's checkouts, with their sales and charges.
  const linkDeps = { store: deps.store, clock: deps.clock, baseUrl: deps.config.baseUrl }
  app.get('/wallet/links', { onRequest: signedIn }, async (request, reply) => {
    const accountId = accountOf(request)!
    const before = (request.query as Record<string, unknown>).before
    const listed = await listPaymentLinks(linkDeps, accountId, { cursor: typeof before === 'string' ? before.slice(0, 200) : undefined })
    const next = listed.next_cursor === null ? null : `/wallet/links?${new URLSearchParams({ before: listed.next_cursor })}`
    return html(reply, linksPage(pageOf(request, reply), listed.payment_links, await maySellThroughLinks(deps, accountId), next))
  })
  app.post('/wallet/links', protectSignedIn, async (request, reply) => {
    const accountId = accountOf(request)!
    if (!(await maySellThroughLinks(deps, accountId))) throw new DomainError('kyc_purchase_required')
    const optional = (name: string, max: number) => {
      const value = field({ [name]: '', ...(request.body as object) }, name, max).trim()
      return value === '' ? undefined : value
    }
    const expires = optional('expires_at', 40)
    const maxUses = optional('max_uses', 10)
    const created = await createPaymentLink(linkDeps, accountId, {
      title: field(request.body, 'title', 400),
      description: optional('description', 2000),
      amount: optional('amount', 16),
      min_amount: optional('min_amount', 16),
      max_amount: optional('max_amount', 16),
      swap_to: optional('swap_to', 8),
      // The form's local time is São Paulo's (UTC-3, no daylight saving since 2019).
      expires_at: expires === undefined ? undefined : /[zZ]|[+-]\d\d:\d\d$/.test(expires) ? expires : `${expires}-03:00`,
      max_uses: maxUses === undefined ? undefined : /^\d{1,7}$/.test(maxUses) ? Number(maxUses) : 0,
      notify_sales: (request.body as Record<string, unknown>).notify_sales === 'yes',
    })
    return reply.redirect(`/wallet/links/${created.id}`, 303)
  })
  app.get<{ Params: { id: string } }>('/wallet/links/:id', { onRequest: signedIn }, async (request, reply) => {
    const { link, charges } = await paymentLinkWithCharges(linkDeps, accountOf(request)!, request.params.id)
    return html(reply, linkChargesPage(pageOf(request, reply), link, charges))
  })
  app.post<{ Params: { id: string } }>('/wallet/links/:id/notices', protectSignedIn, async (request, reply) => {
    await setPaymentLinkNotices(linkDeps, accountOf(request)!, request.params.id, (request.body as Record<string, unknown>).notify_sales === 'yes')
    return reply.redirect(`/wallet/links/${encodeURIComponent(request.params.id)}`, 303)
  })
  app.post<{ Params: { id: string } }>('/wallet/links/:id/deactivate', protectSignedIn, async (request, reply) => {
    await deactivatePaymentLink(linkDeps, accountOf(request)!, request.params.id)
    return reply.redirect('/wallet/links', 303)
  })

  registerWithdrawalPages(app, deps, { ...pageHelpers, factors })
  registerRefundPages(app, deps, { ...pageHelpers, factors })
  registerStatementPages(app, deps, { pageOf, html, accountOf, field, signedIn: { onRequest: signedIn }, protectSignedIn })
}

