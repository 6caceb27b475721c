// The Wallet at /wallet (decisions 11): account owners join, sign in with a code by e-mail, make
// the identity purchase and issue the API token. Its own encapsulated part of the app: session
// cookie, CSRF, form bodies and security headers apply here and nowhere else.
import { createHmac, randomBytes } from 'node:crypto'
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import cookie from '@fastify/cookie'
import csrf from '@fastify/csrf-protection'
import formbody from '@fastify/formbody'
import helmet from '@fastify/helmet'
import session from '@fastify/session'
import { issueToken } from '../app/issue-token.ts'
import { listWebhookDeliveries, redeliverWebhook } from '../app/webhook-deliveries.ts'
import { DomainError } from '../domain/errors.ts'
import { serveAsset } from '../http/assets.ts'
import { pageError } from '../http/page-errors.ts'
import { createChargeDeps } from '../http/deps.ts'
import type { WalletDeps } from './deps.ts'
import type { Charge } from '../store/schema.ts'
import { accountCharge, accountOverview, buyDepix, chargeRow, listAccountCharges, ownPurchase } from './account.ts'
import { linesOf } from '../domain/statement.ts'
import { walletCss, walletJs } from './assets.ts'
import { deliveryStateLabel, errorText, langOf, statusLabel, translate, type Lang } from '../i18n/catalogue.ts'
import { chargePage, chargesPage, codePage, dashboardPage, deliveriesPage, errorPage, purchasePage, signInPage, signUpPage, tokenPage, tokenShownPage } from './pages.ts'
import { createSealer } from '../secrets/seal.ts'
import { createSessionStore } from './session-store.ts'
import { registerWithdrawalPages } from './withdrawal-routes.ts'
import { registerStatementPages } from './statement-routes.ts'
import { createAddressWindows } from '../http/address-windows.ts'
import { CODES_PER_ADDRESS_PER_HOUR, HOUR_MS, normalizeEmail, parseSignUp, sendCode, verifyCode } from './sign-in.ts'


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

/** A form field as text; anything else (missing, repeated, too long) is a bad request. */
function field(body: unknown, name: string, max: number): string {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined
  if (typeof value !== 'string' || value.length > max) throw new DomainError('invalid_request', { param: name, message: `${name} is missing or too long.` })
  return value
}

export const walletRoutes: FastifyPluginAsync<WalletDeps> = async (app, deps) => {
  const secure = deps.config.baseUrl.startsWith('https://')
  // Pages for people, not API operations: kept out of /openapi.json.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true }
  })
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    hsts: secure,
  })
  await app.register(formbody, { bodyLimit: 4096 })
  await app.register(cookie)
  await app.register(session, {
    // Derived from the operator secret, so every instance of a deployment signs alike; cookies
    // signed under the previous one still open during a rotation.
    secret: deps.opsTokens.map((token) => createHmac('sha256', token).update('wallet-session-cookie').digest('base64url')),
    cookieName: 'wallet_session',
    cookie: { path: '/wallet', httpOnly: true, sameSite: 'lax', secure },
    saveUninitialized: false,
    store: createSessionStore(deps),
  })
  await app.register(csrf, {
    sessionPlugin: '@fastify/session',
    // Forms carry it as _csrf; the plugin's default would also read it from several headers.
    getToken: (request) => {
      const token = typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>)._csrf : undefined
      return typeof token === 'string' ? token : undefined
    },
  })

  const langFor = (request: FastifyRequest): Lang => langOf(request.cookies[LANG_COOKIE])
  const pageOf = (request: FastifyRequest, reply: FastifyReply) => ({ lang: langFor(request), csrf: reply.generateCsrf() })
  const html = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body)
  const accountOf = (request: FastifyRequest): number | null => (typeof request.session.accountId === 'number' ? request.session.accountId : null)
  const signedIn = async (request: FastifyRequest, reply: FastifyReply) => {
    if (accountOf(request) === null) return reply.redirect('/wallet', 303)
  }
  const protect = { preHandler: app.csrfProtection }
  const protectSignedIn = { onRequest: signedIn, preHandler: app.csrfProtection }
  /** The owner's time zone, that the money views read their dates in. */
  const zoneOf = async (accountId: number) => (await deps.store.accounts.findById(accountId))!.time_zone

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { mapped, csrfFailure, csrfToken } = pageError(error, request, reply, 'wallet')
    const lang = langFor(request)
    const message = mapped.localized && mapped.detail !== undefined ? mapped.detail : errorText(mapped.code, lang)
    return html(reply, errorPage({ lang, csrf: csrfToken, signedIn: accountOf(request) !== null }, message, mapped.code, csrfFailure), mapped.status)
  })

  serveAsset(app, '/wallet/assets/wallet.css', walletCss)
  serveAsset(app, '/wallet/assets/wallet.js', walletJs)

  app.get<{ Params: { lang: string } }>('/wallet/lang/:lang', async (request, reply) => {
    const lang = request.params.lang === 'en' ? 'en' : 'pt-BR'
    return reply.setCookie(LANG_COOKIE, lang, { path: '/wallet', sameSite: 'lax', httpOnly: true, secure, maxAge: 365 * 24 * 3600 }).redirect('/wallet', 303)
  })

  app.get('/wallet', async (request, reply) => {
    const accountId = accountOf(request)
    if (accountId === null) return html(reply, signInPage(pageOf(request, reply)))
    // Each "Novo Token" form shown carries a fresh nonce; only a POST with the newest one issues a token.
    const tokenNonce = randomBytes(16).toString('base64url')
    request.session.tokenNonce = tokenNonce
    return html(reply, dashboardPage(pageOf(request, reply), await accountOverview(deps, accountId), deps.config.supportEmail, tokenNonce))
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
    return html(reply, codePage(pageOf(request, reply), email, await deps.store.mail.failing()))
  })

  app.post('/wallet/code', protect, async (request, reply) => {
    const email = normalizeEmail(field(request.body, 'email', 254))
    const code = field(request.body, 'code', 20)
    const { accountId } = await deps.authFailures.guard(request, () => verifyCode(deps, { email, code }))
    // A fresh session id on sign-in: an id planted before sign-in is worth nothing after it.
    await request.session.regenerate()
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
    const account = (await deps.store.accounts.findById(accountId))!
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
    delete request.session.tokenNonce
    const issued = await issueToken(deps, { accountId: accountOf(request)! })
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

  app.get<{ Params: { id: string } }>('/wallet/charges/:id', { onRequest: signedIn }, async (request, reply) => {
    const accountId = accountOf(request)!
    const charge = await accountCharge(deps, { accountId, chargeId: request.params.id.slice(0, 64) })
    const lines = (await deps.store.statement.movementsOfCharge(accountId, charge.id)).flatMap(linesOf)
    const ownWaiting = charge.merchant_id === null && charge.account_id === accountId && charge.status === 'waiting_payment'
    return html(reply, chargePage({ ...pageOf(request, reply), timeZone: await zoneOf(accountId) }, {
      ...chargeRow(charge, accountId), payerName: charge.payer_name, payerTaxNumber: charge.payer_tax_number, confirmedAt: charge.confirmed_at, releaseAt: charge.release_at,
      quoteMicros: charge.currency === 'DEPIX' ? null : charge.quote_micros, purchaseHref: ownWaiting ? `/wallet/purchases/${charge.id}` : null,
      lines: lines.map((line) => ({ type: line.type, currency: line.currency, amount: line.amount, at: line.createdAt })),
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

  registerWithdrawalPages(app, deps, { pageOf, html, accountOf, field, signedIn: { onRequest: signedIn }, protect, protectSignedIn })
  registerStatementPages(app, deps, { pageOf, html, accountOf, field, signedIn: { onRequest: signedIn }, protectSignedIn })
}

