// The support console at /console (docs/rules.md#console): named operators sign in with an e-mail
// code and work the queues. Its own encapsulated part of the app, with the Wallet's habits: a
// session cookie of its own, CSRF on every form, form bodies, strict security headers (no script at
// all). Routes stay thin: views come from app/console-views.ts, every decision from
// app/operator-actions.ts, which checks the role and the note and calls the use case /ops calls.
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { checkLedger } from '../app/check-ledger.ts'
import { checkTreasury } from '../app/check-treasury.ts'
import { accountDossier, auditLogPage, chargeDossier, findAccount, findAccounts, findCharge, refundDossier, withdrawalDossier } from '../app/console-views.ts'
import { queueCounts, queuePage } from '../app/support-queues.ts'
import { activateTokenAs, addBlockAs, assignIdentityAs, liftBlockAs, recordRefundPaidAs, payRefundByPixAs, reviewRefundPayoutAs, reviewHoldAs, reviewWithdrawalAs, setQuotesAs, type OperatorDeps } from '../app/operator-actions.ts'
import { sendOperatorCode, verifyOperatorCode } from '../app/operator-sign-in.ts'
import { csvStream } from '../app/exports.ts'
import { feesCsv, feesReport, outflowsCsv, outflowsReport, owedCsv, owedReport, providerCsv, providerReport } from '../app/reports.ts'
import { csvFlavourOf, DEFAULT_TIME_ZONE } from '../domain/export-format.ts'
import { acceptedQuotes, quoteOverrides } from '../app/set-quotes.ts'
import { reviewDecisions, type ReviewDecision } from '../domain/charge.ts'
import { DomainError } from '../domain/errors.ts'
import { parseBrlToCents } from '../domain/money.ts'
import { findOperator, mayTake, type Operator, type OperatorAction } from '../domain/operators.ts'
import { consoleText, errorText, langOf, translate, type Lang } from '../i18n/catalogue.ts'
import { createAddressWindows } from '../web/address-windows.ts'
import { serveAsset } from '../web/assets.ts'
import { pageError } from '../web/page-errors.ts'
import { consoleQueues, type ConsoleQueue } from '../domain/support-queues.ts'
import { auditingWithFactor, factorsOf, hasFactor, resetFactors } from '../app/second-factors.ts'
import { accountHolder, operatorActionNeedsStepUp, operatorHolder, type Holder } from '../domain/second-factor.ts'
import { createSealer } from '../secrets/seal.ts'
import { formPageOf, registerFactorRoutes, relyingPartyOf } from '../web/factor-routes.ts'
import { createSessionStore } from '../web/session-store.ts'
import { field, registerPageSite, sendPage as send } from '../web/page-shell.ts'
import { CODES_PER_ADDRESS_PER_HOUR, HOUR_MS, normalizeEmail } from '../app/owner-sign-in.ts'
import { consoleCss } from './assets.ts'
import type { ConsoleDeps } from './deps.ts'
import * as pages from './pages.ts'

declare module 'fastify' {
  interface Session {
    /** The signed-in operator of a console session; the role is read from OPERATORS at each request. */
    operatorEmail?: string
  }
}

const LANG_COOKIE = 'console_lang'

function optionalField(body: unknown, name: string, max: number): string | undefined {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined
  return value === undefined ? undefined : field(body, name, max)
}

/** A list's `?cursor=` (the page before's "next" link): one value or none; anything else is refused. */
function cursorOf(request: FastifyRequest): string | undefined {
  const value = (request.query as Record<string, unknown>).cursor
  if (value !== undefined && typeof value !== 'string') throw new DomainError('invalid_request', { param: 'cursor' })
  return value
}

/** A local path to go back to after an action; anything else goes home. */
function backTo(value: string | undefined): string {
  return value !== undefined && /^\/console\/[a-z0-9_/-]{0,120}$/.test(value) ? value : '/console'
}

export const consoleRoutes: FastifyPluginAsync<ConsoleDeps> = async (app, deps) => {
  const secure = deps.config.baseUrl.startsWith('https://')
  await registerPageSite(app, {
    prefix: '/console', secure, scripts: false, bodyLimit: 8192, opsTokens: deps.opsTokens,
    sessions: createSessionStore(deps, deps.store.sessions.console, (stored) => (typeof stored.operatorEmail === 'string' ? stored.operatorEmail : null)),
  })

  const operators = deps.config.operators
  const actionDeps: OperatorDeps = {
    store: deps.store, clock: deps.clock, quotes: deps.quotes, provider: deps.provider, mailSeal: deps.mailSeal, baseUrl: deps.config.baseUrl,
    treasury: deps.treasury, bandPercent: deps.config.quoteBandPercent, ...(deps.tokenCache ? { tokenCache: deps.tokenCache } : {}),
  }
  const langFor = (request: FastifyRequest): Lang => langOf(request.cookies[LANG_COOKIE])
  /** The operator of the session, if the e-mail is still listed in OPERATORS. */
  const operatorOf = (request: FastifyRequest): Operator | null =>
    typeof request.session.operatorEmail === 'string' ? findOperator(operators, request.session.operatorEmail) : null
  const pageOf = (request: FastifyRequest, reply: FastifyReply): pages.Page => ({ lang: langFor(request), csrf: reply.generateCsrf(), now: deps.clock.now(), operator: operatorOf(request) })
  /** Signed in, with or without a second factor: the factor pages, where an operator enrols one. */
  const signedInAny = async (request: FastifyRequest, reply: FastifyReply) => {
    if (operatorOf(request) === null) return reply.redirect('/console', 303)
  }
  // An operator without a second factor can only enrol one (docs/design.md, "Second factors").
  const signedIn = async (request: FastifyRequest, reply: FastifyReply) => {
    const who = operatorOf(request)
    if (who === null) return reply.redirect('/console', 303)
    if (!(await hasFactor(deps, operatorHolder(who.email)))) return reply.redirect('/console/factors', 303)
  }
  const protect = { preHandler: app.csrfProtection }
  const signedInOnly = { onRequest: signedIn }
  const protectSignedIn = { onRequest: signedIn, preHandler: app.csrfProtection }
  const operator = (request: FastifyRequest) => operatorOf(request)!
  // The Content-Security-Policy of the pages that run the passkey script: the console's, with this site's scripts.
  const scriptCsp = "default-src 'none';script-src 'self';connect-src 'self';style-src 'self';img-src 'self';form-action 'self';frame-ancestors 'none';base-uri 'none';object-src 'none'"
  const factors = registerFactorRoutes(app, {
    prefix: '/console',
    deps: { ...deps, baseUrl: deps.config.baseUrl },
    langCookie: LANG_COOKIE,
    signedInHolder: (request) => {
      const who = operatorOf(request)
      return who === null ? null : operatorHolder(who.email)
    },
    signIn: (request, holder) => {
      request.session.operatorEmail = holder.slice('operator:'.length)
    },
    emailOf: async (holder) => holder.slice(holder.indexOf(':') + 1),
    intro: (lang) => ({ on: consoleText(lang, 'factorsOn'), off: consoleText(lang, 'factorsNeeded') }),
    frame: (request, reply, body) => pages.layout({ ...pageOf(request, reply), title: 'title', heading: translate(langFor(request), body.title) }, body.body),
    pageOf: (request, reply) => ({ lang: langFor(request), csrf: reply.generateCsrf() }),
    field,
    protect,
    signedIn: { onRequest: signedInAny },
    protectSignedIn: { onRequest: signedInAny, preHandler: app.csrfProtection },
    scriptPage: (reply) => {
      reply.header('content-security-policy', scriptCsp)
    },
  })
  /**
   * What an action is run with: a fresh factor first when the action moves money or trust, and a
   * store whose audit rows name the factor the session last checked.
   */
  const acting = async (request: FastifyRequest, action: OperatorAction): Promise<OperatorDeps> => {
    if (operatorActionNeedsStepUp(action)) await factors.stepUp(request)
    return { ...actionDeps, store: auditingWithFactor(deps.store, factors.factorUsed(request) ?? 'none') }
  }
  const done = (request: FastifyRequest) => {
    const value = (request.query as Record<string, unknown>).done
    return value === '1' || value === 'proposed' ? value : null
  }
  const log = (request: FastifyRequest) => ({ warn: (details: object, message: string) => request.log.warn(details, message) })

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { mapped, csrfFailure, csrfToken } = pageError(error, request, reply, 'console')
    const lang = langFor(request)
    // Our own sentences (a note missing, a reference too long) are English details; people read the code's text unless the detail is about a field.
    const message = mapped.code === 'invalid_request' && mapped.param !== undefined ? `${errorText(mapped.code, lang)} (${mapped.param})` : errorText(mapped.code, lang)
    let who: Operator | null = null
    try {
      who = operatorOf(request)
    } catch {
      // No session was read.
    }
    const stepUpNext = mapped.code === 'step_up_required' ? formPageOf('/console', request.url) : null
    return send(reply, pages.errorPage({ lang, csrf: csrfToken, now: deps.clock.now(), operator: who }, message, mapped.code, csrfFailure, stepUpNext), mapped.status)
  })

  serveAsset(app, '/console/assets/console.css', consoleCss)

  app.get<{ Params: { lang: string } }>('/console/lang/:lang', async (request, reply) => {
    const lang = request.params.lang === 'en' ? 'en' : 'pt-BR'
    return reply.setCookie(LANG_COOKIE, lang, { path: '/console', sameSite: 'lax', httpOnly: true, secure, maxAge: 365 * 24 * 3600 }).redirect('/console', 303)
  })

  // Sign-in: the Wallet's rules, with the console's own budget per e-mail and window per address.
  const codeRequests = createAddressWindows({ limit: CODES_PER_ADDRESS_PER_HOUR, windowMs: HOUR_MS })
  app.post('/console/sign-in', protect, async (request, reply) => {
    const email = normalizeEmail(field(request.body, 'email', 254))
    const wait = codeRequests.wait(request.ip)
    if (wait > 0) throw new DomainError('rate_limited', { retryAfterSeconds: wait })
    codeRequests.count(request.ip)
    const lang = langFor(request)
    await sendOperatorCode({ ...deps, operators }, {
      email, address: request.ip,
      mail: (code) => ({ subject: consoleText(lang, 'codeSubject', { code }), text: consoleText(lang, 'codeText', { code }) }),
    })
    return reply.redirect(`/console/code?email=${encodeURIComponent(email)}`, 303)
  })

  app.get<{ Querystring: { email?: string } }>('/console/code', async (request, reply) => {
    const email = normalizeEmail(typeof request.query.email === 'string' ? request.query.email : '')
    return send(reply, pages.codePage(pageOf(request, reply), email))
  })

  app.post('/console/code', protect, async (request, reply) => {
    const email = normalizeEmail(field(request.body, 'email', 254))
    const code = field(request.body, 'code', 20)
    const signedInOperator = await deps.authFailures.guard(request, () => verifyOperatorCode({ ...deps, operators }, { email, code }))
    // A fresh session id on sign-in: an id planted before sign-in is worth nothing after it.
    await request.session.regenerate()
    // With a second factor the e-mail code is half of it; without one, the operator can only enrol.
    if (await hasFactor(deps, operatorHolder(signedInOperator.email))) {
      request.session.pendingHolder = operatorHolder(signedInOperator.email)
      request.session.pendingSince = deps.clock.now().getTime()
      return reply.redirect('/console/check', 303)
    }
    request.session.operatorEmail = signedInOperator.email
    return reply.redirect('/console/factors', 303)
  })

  app.post('/console/sign-out', protect, async (request, reply) => {
    await request.session.destroy()
    return reply.redirect('/console', 303)
  })

  app.get('/console', async (request, reply) => {
    const who = operatorOf(request)
    if (who === null) return send(reply, pages.signInPage(pageOf(request, reply)))
    if (!(await hasFactor(deps, operatorHolder(who.email)))) return reply.redirect('/console/factors', 303)
    return send(reply, pages.homePage(pageOf(request, reply), await queueCounts(deps)))
  })

  app.get<{ Params: { queue: string } }>('/console/queues/:queue', signedInOnly, async (request, reply) => {
    const queue = request.params.queue
    if (!(consoleQueues as readonly string[]).includes(queue)) throw new DomainError('not_found', { param: 'queue' })
    const cursor = cursorOf(request)
    const listed = await queuePage(deps, queue as ConsoleQueue, cursor)
    const next = listed.nextCursor === null ? null : `/console/queues/${queue}?${new URLSearchParams({ cursor: listed.nextCursor })}`
    return send(reply, pages.queuePageHtml(pageOf(request, reply), listed, { first: cursor === undefined, next }))
  })

  app.get<{ Params: { id: string } }>('/console/charges/:id', signedInOnly, async (request, reply) =>
    send(reply, pages.chargePage(pageOf(request, reply), await chargeDossier(deps, request.params.id), done(request))))

  app.post<{ Params: { id: string } }>('/console/charges/:id/review', protectSignedIn, async (request, reply) => {
    const decision = field(request.body, 'decision', 10)
    if (!(reviewDecisions as readonly string[]).includes(decision)) throw new DomainError('invalid_request', { param: 'decision' })
    const paid = optionalField(request.body, 'paid', 20)
    const paidCents = paid === undefined || paid.trim() === '' ? undefined : parseBrlToCents(paid.trim().replace(',', '.'))
    if (paidCents === null || (paidCents !== undefined && (paidCents < 1 || paidCents > 10_000_000))) throw new DomainError('invalid_request', { param: 'paid' })
    const { charge, awaiting } = await reviewHoldAs({ ...(await acting(request, 'hold.review')), log: log(request) }, operator(request), {
      chargeId: request.params.id, decision: decision as ReviewDecision, note: field(request.body, 'note', 1000), paidCents,
    })
    return reply.redirect(`/console/charges/${charge.id}?done=${awaiting === null ? '1' : 'proposed'}`, 303)
  })

  app.get<{ Params: { id: string } }>('/console/withdrawals/:id', signedInOnly, async (request, reply) =>
    send(reply, pages.withdrawalPage(pageOf(request, reply), await withdrawalDossier(deps, request.params.id), done(request))))

  app.post<{ Params: { id: string } }>('/console/withdrawals/:id/review', protectSignedIn, async (request, reply) => {
    const decision = field(request.body, 'decision', 10)
    if (decision !== 'approve' && decision !== 'reject' && decision !== 'new_payout' && decision !== 'returned') throw new DomainError('invalid_request', { param: 'decision' })
    const moved = await reviewWithdrawalAs(await acting(request, 'withdrawal.review'), operator(request), { withdrawalId: request.params.id.slice(0, 64), decision, note: field(request.body, 'note', 1000) })
    return reply.redirect(`/console/withdrawals/${moved.id}?done=1`, 303)
  })

  app.get<{ Params: { id: string } }>('/console/refunds/:id', signedInOnly, async (request, reply) =>
    send(reply, pages.refundPage(pageOf(request, reply), await refundDossier(deps, request.params.id), done(request))))

  app.post<{ Params: { id: string } }>('/console/refunds/:id/paid', protectSignedIn, async (request, reply) => {
    const refund = await recordRefundPaidAs(await acting(request, 'refund.record_paid'), operator(request), { refundId: request.params.id.slice(0, 64), reference: field(request.body, 'reference', 200), note: field(request.body, 'note', 1000) })
    return reply.redirect(`/console/refunds/${refund.id}?done=1`, 303)
  })

  app.post<{ Params: { id: string } }>('/console/refunds/:id/payout', protectSignedIn, async (request, reply) => {
    const payout = await payRefundByPixAs(await acting(request, 'refund.pay'), operator(request), { refundId: request.params.id.slice(0, 64), note: field(request.body, 'note', 1000) })
    return reply.redirect(`/console/refunds/${payout.refund_id}?done=1`, 303)
  })

  app.post<{ Params: { id: string } }>('/console/refund-payouts/:id/review', protectSignedIn, async (request, reply) => {
    const decision = field(request.body, 'decision', 10)
    if (decision !== 'retry' && decision !== 'abandon' && decision !== 'new_payout' && decision !== 'returned') throw new DomainError('invalid_request', { param: 'decision' })
    const payout = await reviewRefundPayoutAs(await acting(request, 'refund.pay'), operator(request), { refundPayoutId: request.params.id.slice(0, 64), decision, note: field(request.body, 'note', 1000) })
    return reply.redirect(`/console/refunds/${payout.refund_id}?done=1`, 303)
  })

  app.get<{ Querystring: { q?: string } }>('/console/lookup', signedInOnly, async (request, reply) => {
    const query = typeof request.query.q === 'string' ? request.query.q.trim().slice(0, 254) : ''
    if (query !== '' && /^[0-9A-Za-z_-]{8,128}$/.test(query)) {
      // Our charge id or the provider's qrId: straight to the charge.
      const charge = await findCharge(deps, query)
      if (charge) return reply.redirect(`/console/charges/${charge.id}`, 303)
    }
    return send(reply, pages.lookupPage(pageOf(request, reply), query, query === '' ? [] : await findAccounts(deps, query)))
  })

  app.get<{ Params: { id: string } }>('/console/accounts/:id', signedInOnly, async (request, reply) => {
    const id = /^\d{1,15}$/.test(request.params.id) ? Number(request.params.id) : NaN
    const dossier = await accountDossier(deps, id)
    const view = await factorsOf(deps, accountHolder(dossier.account.id))
    return send(reply, pages.accountPage(pageOf(request, reply), dossier, done(request), { count: view.factors.length, removalAt: view.removal?.effectiveAt ?? null }))
  })

  app.post<{ Params: { id: string } }>('/console/accounts/:id/identity', protectSignedIn, async (request, reply) => {
    const account = await findAccount(deps, /^\d{1,15}$/.test(request.params.id) ? Number(request.params.id) : NaN)
    await assignIdentityAs(await acting(request, 'identity.assign'), operator(request), { email: account.email, euid: field(request.body, 'euid', 32), note: field(request.body, 'note', 1000) })
    return reply.redirect(`/console/accounts/${account.id}?done=1`, 303)
  })

  // Support's reset of an owner's (or another operator's) second factors, after an identity check:
  // audited with the note, effective after 72 hours, and mailed to the holder at once.
  const resetFactorsOf = async (request: FastifyRequest, holder: Holder, email: string) => {
    const note = field(request.body, 'note', 1000)
    if (optionalField(request.body, 'identity_checked', 5) !== 'yes') throw new DomainError('invalid_request', { param: 'identity_checked', message: 'Confirm that the identity was checked.' })
    const who = operator(request)
    if (!mayTake(who.role, 'factors.reset')) throw new DomainError('operator_forbidden', { param: 'factors.reset' })
    if (holder === operatorHolder(who.email)) throw new DomainError('operator_forbidden', { param: 'factors.reset', message: 'Another admin resets your own factors.' })
    const acted = await acting(request, 'factors.reset')
    const trimmed = note.trim()
    if (trimmed === '') throw new DomainError('invalid_request', { param: 'note', message: 'A note of 1 to 1000 characters is required.' })
    await resetFactors({ ...acted, totpSeal: createSealer(deps.opsTokens, 'totp-secret'), relyingParty: relyingPartyOf(deps.config.baseUrl) }, { holder, actor: who.email, note: trimmed, notify: { email, lang: langFor(request) } })
  }

  app.post<{ Params: { id: string } }>('/console/accounts/:id/factors/reset', protectSignedIn, async (request, reply) => {
    const account = await findAccount(deps, /^\d{1,15}$/.test(request.params.id) ? Number(request.params.id) : NaN)
    await resetFactorsOf(request, accountHolder(account.id), account.email)
    return reply.redirect(`/console/accounts/${account.id}?done=1`, 303)
  })

  app.post('/console/operators/factors/reset', protectSignedIn, async (request, reply) => {
    const target = findOperator(operators, field(request.body, 'email', 254))
    if (target === null) throw new DomainError('not_found', { param: 'email' })
    await resetFactorsOf(request, operatorHolder(target.email), target.email)
    return reply.redirect('/console?done=1', 303)
  })

  app.post<{ Params: { id: string } }>('/console/tokens/:id/activate', protectSignedIn, async (request, reply) => {
    await activateTokenAs(await acting(request, 'token.activate'), operator(request), { tokenId: request.params.id.slice(0, 64), note: field(request.body, 'note', 1000) })
    return reply.redirect(`${backTo(optionalField(request.body, 'back', 200))}?done=1`, 303)
  })

  app.post('/console/blocks', protectSignedIn, async (request, reply) => {
    const identity = field(request.body, 'identity', 300)
    const colon = identity.indexOf(':')
    const kind = identity.slice(0, colon)
    if (colon < 0 || (kind !== 'email' && kind !== 'tax_number' && kind !== 'euid')) throw new DomainError('invalid_request', { param: 'identity' })
    await addBlockAs(await acting(request, 'block.add'), operator(request), { kind, value: identity.slice(colon + 1), note: field(request.body, 'note', 1000) })
    return reply.redirect(`${backTo(optionalField(request.body, 'back', 200))}?done=1`, 303)
  })

  app.post<{ Params: { id: string } }>('/console/blocks/:id/lift', protectSignedIn, async (request, reply) => {
    const blockId = /^\d{1,15}$/.test(request.params.id) ? Number(request.params.id) : -1
    await liftBlockAs(await acting(request, 'block.lift'), operator(request), { blockId, note: field(request.body, 'note', 1000) })
    return reply.redirect(`${backTo(optionalField(request.body, 'back', 200))}?done=1`, 303)
  })

  app.get('/console/money', signedInOnly, async (request, reply) => {
    const [ledger, treasury, overrides, accepted] = await Promise.all([
      checkLedger(deps),
      checkTreasury({ ...deps, log: request.log }).catch((error: unknown) => {
        request.log.warn({ err: error }, 'the treasury could not be checked for the console')
        return null
      }),
      quoteOverrides(deps),
      acceptedQuotes(deps),
    ])
    return send(reply, pages.moneyPage(pageOf(request, reply), {
      ledger, treasury, overrides,
      accepted,
      canOverride: mayTake(operator(request).role, 'quotes.set'),
    }, done(request)))
  })

  app.post('/console/quotes', protectSignedIn, async (request, reply) => {
    const body = request.body
    const clear = optionalField(body, 'clear', 5) === 'yes'
    const price = (name: 'BTC' | 'USDt') => {
      const value = (optionalField(body, name, 20) ?? '').trim().replace(',', '.')
      return value === '' ? (clear ? null : undefined) : value
    }
    const minutes = field(body, 'expires_in_minutes', 5)
    if (!/^\d{1,4}$/.test(minutes) || Number(minutes) < 1 || Number(minutes) > 1440) throw new DomainError('invalid_request', { param: 'expires_in_minutes' })
    await setQuotesAs(await acting(request, 'quotes.set'), operator(request), {
      BTC: price('BTC'), USDt: price('USDt'), expiresInSeconds: Number(minutes) * 60, force: optionalField(body, 'force', 5) === 'yes', note: field(body, 'note', 1000),
    })
    return reply.redirect('/console/money?done=1', 303)
  })

  // The operators' reports, and each as CSV (Brazilian flavour unless ?flavour=standard).
  const reportZone = DEFAULT_TIME_ZONE
  app.get('/console/reports', signedInOnly, async (request, reply) => {
    const [fees, outflows, provider, owed] = await Promise.all([
      feesReport(deps, reportZone), outflowsReport(deps, reportZone), providerReport(deps, 200), owedReport(deps, 100),
    ])
    return send(reply, pages.reportsPage(pageOf(request, reply), { zone: reportZone, fees, outflows, provider, owed }))
  })
  app.get<{ Params: { report: string }; Querystring: { flavour?: unknown } }>('/console/reports/:report', signedInOnly, async (request, reply) => {
    const flavour = csvFlavourOf(typeof request.query.flavour === 'string' ? request.query.flavour : request.query.flavour === undefined ? '' : 'x')
    if (flavour === null) throw new DomainError('invalid_request', { param: 'flavour' })
    const report = request.params.report
    const file = report === 'fees.csv' ? feesCsv(await feesReport(deps, reportZone), flavour, reportZone)
      : report === 'outflows.csv' ? outflowsCsv(await outflowsReport(deps, reportZone), flavour, reportZone)
      : report === 'provider.csv' ? providerCsv(await providerReport(deps, 100_000), flavour, reportZone)
      : report === 'owed.csv' ? owedCsv(deps, flavour, reportZone)
      : null
    if (file === null) throw new DomainError('not_found')
    return reply.type('text/csv; charset=utf-8').header('cache-control', 'no-store').header('content-disposition', `attachment; filename="${report}"`).send(csvStream(file, flavour))
  })

  app.get<{ Querystring: { actor?: string; action?: string } }>('/console/audit', signedInOnly, async (request, reply) => {
    const text = (value: unknown) => (typeof value === 'string' && value !== '' && value.length <= 200 ? value : null)
    const actor = text(request.query.actor)
    const action = text(request.query.action)
    const { rows, facets, nextCursor } = await auditLogPage(deps, { actor, action }, cursorOf(request))
    const next = nextCursor === null ? null : `/console/audit?${new URLSearchParams({ ...(actor ? { actor } : {}), ...(action ? { action } : {}), cursor: nextCursor })}`
    return send(reply, pages.auditPage(pageOf(request, reply), rows, facets, { actor, action }, next))
  })
}
