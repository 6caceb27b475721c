// Second factors in the pages (docs/design.md, "Second factors"): a holder enrols a passkey or a
// TOTP app, names, lists and removes them, and keeps ten recovery codes shown once; sign-in asks
// for a factor after the e-mail code, and money actions ask for one checked within 5 minutes (a
// step-up). The same routes serve the Wallet's owners (/wallet) and the console's operators
// (/console), each inside its own encapsulated part of the app (session, CSRF, headers). The
// passkey script is the service's own; @simplewebauthn/browser's ESM files are served beside it.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify'
import QRCode from 'qrcode'
import {
  cancelRemoval, checkPasskey, checkTotp, enrolPasskey, enrolTotp, factorLabel, factorsOf, hasFactor, newTotpSecret, passkeyCheckOptions,
  passkeyRegistrationOptions, removeFactor, renewRecoveryCodes, requireStepUp, takeFactorTry, totpUriOf, useRecoveryCode, type CheckedFactor, type FactorDeps, type FactorsView,
} from '../app/second-factors.ts'
import { DomainError } from '../domain/errors.ts'
import { factorName, PENDING_SIGN_IN_MS, stepUpFresh, type Holder } from '../domain/second-factor.ts'
import { langOf, translate, type Lang } from '../i18n/catalogue.ts'
import { serveAsset } from './assets.ts'
import { createSealer, type Secrets } from '../secrets/seal.ts'
import type { Store } from '../store/store.ts'
import type { Clock } from '../clock.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { AuthFailureLimiter } from './auth-failures.ts'
import { passkeyJs, webauthnBrowserFiles } from './page-assets.ts'
import { sendPage as html } from './page-shell.ts'
import { checkBody, factorsBody, recoveryCodesBody, totpEnrolBody, type FactorBody, type FactorPage } from './factor-pages.ts'

declare module 'fastify' {
  interface Session {
    /** Signed in with the e-mail code, waiting for the second factor: whose, and since when (ms). */
    pendingHolder?: string
    pendingSince?: number
    /** When a factor was last checked in this session (ms, service clock), and which. */
    factorCheckedAt?: number
    factorUsed?: string
    /** The WebAuthn challenge last handed out: taken by the first answer. */
    webauthnChallenge?: string
    /** The TOTP secret being enrolled, sealed, until a code from the app proves it was scanned. */
    totpSecret?: string
    /** New recovery codes, sealed, until the page that shows them once is read. */
    recoveryCodes?: string
  }
}

/** The second-factor checks a site's money pages make, in the Wallet and the console. */
export type FactorGate = {
  /** Refused with step_up_required unless the owner has no factor or checked one within 5 minutes. */
  stepUp(request: FastifyRequest): Promise<void>
  /** The factor check of the session, for a use case that checks the step-up inside its transaction. */
  stepUpProof(request: FastifyRequest): { holder: Holder; checkedAt: number | null }
  /** Whether the owner must check a factor before the page's form can be sent. */
  needsStepUp(request: FastifyRequest): Promise<boolean>
  /** Which factor the session last checked (`kind:name`), for the audit log. */
  factorUsed(request: FastifyRequest): string | null
}

/** The relying party of the deployment's passkeys: BASE_URL's host and origin. */
export function relyingPartyOf(baseUrl: string): { id: string; name: string; origin: string } {
  const url = new URL(baseUrl)
  return { id: url.hostname, name: `Pix (${url.hostname})`, origin: url.origin }
}

/** A path under `prefix` to go on to after a check; anything else is the prefix's home. */
export function nextUnder(prefix: string, value: unknown): string {
  const pattern = new RegExp(`^${prefix}(/[A-Za-z0-9_/-]{0,120})?(\\?[A-Za-z0-9_=&%.-]{0,200})?$`)
  return typeof value === 'string' && pattern.test(value) ? value : prefix
}

/** The page whose form was sent to `url` (a POST refused for want of a step-up goes back there after the check). */
export function formPageOf(prefix: '/wallet' | '/console', url: string): string {
  const path = url.split('?')[0]!
  if (path === `${prefix}/token` || path === `${prefix}/recovery-codes`) return prefix
  if (path.startsWith(`${prefix}/factors/`) && path !== `${prefix}/factors/totp`) return `${prefix}/factors`
  if (prefix === '/console') {
    if (path === '/console/quotes') return '/console/money'
    return nextUnder(prefix, path.replace(/\/(factors\/reset|review|paid|payout|identity)$/, '').replace(/^\/console\/(tokens\/[^/]+\/activate|operators)$/, '/console').replace(/^\/console\/refund-payouts\/.*$/, '/console'))
  }
  return nextUnder(prefix, path.replace(/\/confirm$/, ''))
}

/** What the factor routes need of the site they serve. */
export type FactorSite = {
  prefix: '/wallet' | '/console'
  deps: { store: Store; clock: Clock; mailSeal: MailSeal; opsTokens: Secrets; authFailures: AuthFailureLimiter; baseUrl: string }
  langCookie: string
  /** The signed-in holder of the session, if any. */
  signedInHolder(request: FastifyRequest): Holder | null
  /** The session of `holder` becomes signed in (its factor passed). */
  signIn(request: FastifyRequest, holder: Holder): void
  emailOf(holder: Holder): Promise<string>
  /** The holder's notices' texts that differ by site: what a factor protects, with and without one. */
  intro(lang: Lang): { on: string; off: string }
  /** Renders a body in the site's layout (`signedIn`: the navigation of a signed-in session). */
  frame(request: FastifyRequest, reply: FastifyReply, page: FactorBody, signedIn: boolean): string
  /** The page's CSRF token and language. */
  pageOf(request: FastifyRequest, reply: FastifyReply): { lang: Lang; csrf: string }
  field(body: unknown, name: string, max: number): string
  protect: RouteShorthandOptions
  signedIn: RouteShorthandOptions
  protectSignedIn: RouteShorthandOptions
  /** Headers for a page that runs the passkey script (the console forbids scripts elsewhere). */
  scriptPage?(reply: FastifyReply): void
}

export function registerFactorRoutes(app: FastifyInstance, site: FactorSite): FactorGate {
  const { prefix, deps, field, protect, signedIn, protectSignedIn } = site
  const factorDeps: FactorDeps = { store: deps.store, clock: deps.clock, mailSeal: deps.mailSeal, totpSeal: createSealer(deps.opsTokens, 'totp-secret'), relyingParty: relyingPartyOf(deps.baseUrl) }
  const codesSeal = createSealer(deps.opsTokens, `${prefix.slice(1)}-recovery-codes`)
  const secretSeal = createSealer(deps.opsTokens, `${prefix.slice(1)}-totp-enrolment`)
  const now = () => deps.clock.now()
  const langFor = (request: FastifyRequest): Lang => langOf(request.cookies[site.langCookie])
  const notifyOf = async (request: FastifyRequest, holder: Holder) => ({ email: await site.emailOf(holder), lang: langFor(request) })
  const signedHolder = (request: FastifyRequest) => site.signedInHolder(request)!
  const page = (request: FastifyRequest, reply: FastifyReply): FactorPage => ({ ...site.pageOf(request, reply), prefix })

  serveAsset(app, `${prefix}/assets/passkey.js`, passkeyJs(`${prefix}/assets/webauthn/index.js`))
  for (const [path, body] of webauthnBrowserFiles()) serveAsset(app, `${prefix}/assets/webauthn/${path}` as `/${string}.js`, body)

  const gate: FactorGate = {
    async stepUp(request) {
      await requireStepUp(deps.store, { holder: signedHolder(request), checkedAt: request.session.factorCheckedAt, now: now() })
    },
    stepUpProof: (request) => ({ holder: signedHolder(request), checkedAt: request.session.factorCheckedAt ?? null }),
    async needsStepUp(request) {
      return !stepUpFresh(request.session.factorCheckedAt, now()) && (await hasFactor(deps, signedHolder(request)))
    },
    factorUsed: (request) => request.session.factorUsed ?? null,
  }

  /** The holder a check is for: the signed-in one, or the one waiting for its factor to sign in. */
  const checkingHolder = (request: FastifyRequest): Holder | null => {
    const signed = site.signedInHolder(request)
    if (signed !== null) return signed
    const pending = request.session.pendingHolder
    const since = request.session.pendingSince
    const age = typeof since === 'number' ? now().getTime() - since : -1
    return typeof pending === 'string' && age >= 0 && age <= PENDING_SIGN_IN_MS ? (pending as Holder) : null
  }
  const requireChecking = (request: FastifyRequest): Holder => {
    const holder = checkingHolder(request)
    if (holder === null) throw new DomainError('wallet_code_invalid', { message: translate(langFor(request), 'checkExpired'), localized: true })
    return holder
  }
  /** A factor passed: a pending sign-in completes, and the session remembers the check. */
  const passed = (request: FastifyRequest, holder: Holder, checked: CheckedFactor) => {
    if (site.signedInHolder(request) === null) site.signIn(request, holder)
    delete request.session.pendingHolder
    delete request.session.pendingSince
    request.session.factorCheckedAt = now().getTime()
    request.session.factorUsed = factorLabel(checked)
  }
  const json = (reply: FastifyReply, body: unknown) => reply.header('cache-control', 'no-store').send(body)
  const scriptPage = (reply: FastifyReply) => site.scriptPage?.(reply)

  // The check: sign-in's second step, and the step-up before a money action.
  app.get<{ Querystring: { next?: string } }>(`${prefix}/check`, async (request, reply) => {
    const holder = checkingHolder(request)
    if (holder === null) return reply.redirect(prefix, 303)
    const view = await factorsOf(deps, holder)
    const isSignedIn = site.signedInHolder(request) !== null
    scriptPage(reply)
    return html(reply, site.frame(request, reply, checkBody(page(request, reply), {
      next: nextUnder(prefix, request.query.next), passkey: view.factors.some((factor) => factor.kind === 'passkey'), totp: view.factors.some((factor) => factor.kind === 'totp'), signedIn: isSignedIn,
    }), isSignedIn))
  })

  app.post(`${prefix}/check/passkey/options`, protect, async (request, reply) => {
    const options = await passkeyCheckOptions(factorDeps, { holder: requireChecking(request) })
    if (options === null) throw new DomainError('second_factor_required')
    request.session.webauthnChallenge = options.challenge
    return json(reply, options)
  })

  const afterCheck = async (request: FastifyRequest, reply: FastifyReply, check: (holder: Holder) => Promise<CheckedFactor>) => {
    const holder = requireChecking(request)
    await takeFactorTry(deps, holder)
    const checked = await deps.authFailures.guard(request, () => check(holder))
    passed(request, holder, checked)
    return reply.redirect(nextUnder(prefix, (request.body as Record<string, unknown>).next), 303)
  }

  app.post(`${prefix}/check/passkey`, protect, async (request, reply) => {
    const challenge = request.session.webauthnChallenge
    delete request.session.webauthnChallenge
    const response = parseJsonField(field(request.body, 'response', 8000))
    return afterCheck(request, reply, (holder) => checkPasskey(factorDeps, { holder, response, challenge }))
  })

  app.post(`${prefix}/check/totp`, protect, async (request, reply) =>
    afterCheck(request, reply, (holder) => checkTotp(factorDeps, { holder, code: field(request.body, 'code', 20) })))

  app.post(`${prefix}/check/recovery`, protect, async (request, reply) =>
    afterCheck(request, reply, async (holder) => useRecoveryCode(factorDeps, { holder, code: field(request.body, 'recovery_code', 40), notify: await notifyOf(request, holder) })))

  // The holder's factors.
  app.get<{ Querystring: { notice?: string } }>(`${prefix}/factors`, signedIn, async (request, reply) => {
    const view: FactorsView = await factorsOf(deps, signedHolder(request))
    const notice = ['added', 'removed', 'removal', 'canceled'].includes(request.query.notice ?? '') ? request.query.notice! : null
    scriptPage(reply)
    return html(reply, site.frame(request, reply, factorsBody(page(request, reply), view, notice, stepUpFresh(request.session.factorCheckedAt, now()), site.intro(langFor(request))), true))
  })

  /** A factor enrolled counts as a check; the holder's first comes with recovery codes, shown once. */
  const enrolled = (request: FastifyRequest, reply: FastifyReply, result: { factorId: number; recoveryCodes: string[] | null }, checked: CheckedFactor) => {
    request.session.factorCheckedAt = now().getTime()
    request.session.factorUsed = factorLabel(checked)
    if (result.recoveryCodes === null) return reply.redirect(`${prefix}/factors?notice=added`, 303)
    request.session.recoveryCodes = codesSeal.seal(JSON.stringify(result.recoveryCodes))
    return reply.redirect(`${prefix}/recovery-codes`, 303)
  }
  const nameFrom = (request: FastifyRequest, fallback: 'passkeyDefaultName' | 'totpDefaultName') =>
    factorName(typeof (request.body as Record<string, unknown>).name === 'string' ? field(request.body, 'name', 200) : '', translate(langFor(request), fallback))

  // Adding a factor to a holder who has one, removing one, new recovery codes: a fresh check first.
  app.post(`${prefix}/factors/passkey/options`, protectSignedIn, async (request, reply) => {
    await gate.stepUp(request)
    const holder = signedHolder(request)
    const options = await passkeyRegistrationOptions(factorDeps, { holder, userName: await site.emailOf(holder) })
    request.session.webauthnChallenge = options.challenge
    return json(reply, options)
  })

  app.post(`${prefix}/factors/passkey`, protectSignedIn, async (request, reply) => {
    const challenge = request.session.webauthnChallenge
    delete request.session.webauthnChallenge
    await gate.stepUp(request)
    const holder = signedHolder(request)
    const name = nameFrom(request, 'passkeyDefaultName')
    const result = await enrolPasskey(factorDeps, { holder, response: parseJsonField(field(request.body, 'response', 8000)), challenge, name, notify: await notifyOf(request, holder) })
    return enrolled(request, reply, result, { factorId: result.factorId, kind: 'passkey', name })
  })

  const openSecret = (request: FastifyRequest) => (request.session.totpSecret === undefined ? null : secretSeal.open(request.session.totpSecret))

  app.get(`${prefix}/factors/totp`, signedIn, async (request, reply) => {
    let secret = openSecret(request)
    if (secret === null) {
      secret = newTotpSecret(await site.emailOf(signedHolder(request)), factorDeps.relyingParty.name).secret
      request.session.totpSecret = secretSeal.seal(secret)
    }
    return html(reply, site.frame(request, reply, totpEnrolBody(page(request, reply), { secret, needsStepUp: await gate.needsStepUp(request) }), true))
  })

  app.get(`${prefix}/factors/totp/qr.png`, signedIn, async (request, reply) => {
    const secret = openSecret(request)
    if (secret === null) throw new DomainError('not_found')
    const uri = totpUriOf(secret, await site.emailOf(signedHolder(request)), factorDeps.relyingParty.name)
    return reply.type('image/png').header('cache-control', 'no-store').send(await QRCode.toBuffer(uri, { type: 'png', errorCorrectionLevel: 'M', margin: 2, scale: 5 }))
  })

  app.post(`${prefix}/factors/totp`, protectSignedIn, async (request, reply) => {
    await gate.stepUp(request)
    const secret = openSecret(request)
    if (secret === null) return reply.redirect(`${prefix}/factors/totp`, 303)
    const holder = signedHolder(request)
    const name = nameFrom(request, 'totpDefaultName')
    await takeFactorTry(deps, holder)
    const result = await enrolTotp(factorDeps, { holder, secret, code: field(request.body, 'code', 20), name, notify: await notifyOf(request, holder) })
    delete request.session.totpSecret
    return enrolled(request, reply, result, { factorId: result.factorId, kind: 'totp', name })
  })

  app.post<{ Params: { id: string } }>(`${prefix}/factors/:id/remove`, protectSignedIn, async (request, reply) => {
    await gate.stepUp(request)
    const holder = signedHolder(request)
    const factorId = /^\d{1,15}$/.test(request.params.id) ? Number(request.params.id) : -1
    const removed = await removeFactor(factorDeps, { holder, factorId, actor: holder, notify: await notifyOf(request, holder) })
    return reply.redirect(`${prefix}/factors?notice=${removed.effectiveAt === null ? 'removed' : 'removal'}`, 303)
  })

  app.post(`${prefix}/factors/removal/cancel`, protectSignedIn, async (request, reply) => {
    await gate.stepUp(request)
    await cancelRemoval(factorDeps, { holder: signedHolder(request), actor: signedHolder(request) })
    return reply.redirect(`${prefix}/factors?notice=canceled`, 303)
  })

  app.post(`${prefix}/recovery-codes`, protectSignedIn, async (request, reply) => {
    await gate.stepUp(request)
    const holder = signedHolder(request)
    const codes = await renewRecoveryCodes(factorDeps, { holder, notify: await notifyOf(request, holder) })
    request.session.recoveryCodes = codesSeal.seal(JSON.stringify(codes))
    return reply.redirect(`${prefix}/recovery-codes`, 303)
  })

  // Shown once: the page read again (a reload, the back button) shows them no more.
  app.get(`${prefix}/recovery-codes`, signedIn, async (request, reply) => {
    const opened = request.session.recoveryCodes === undefined ? null : codesSeal.open(request.session.recoveryCodes)
    delete request.session.recoveryCodes
    if (opened === null) return reply.redirect(`${prefix}/factors`, 303)
    return html(reply, site.frame(request, reply, recoveryCodesBody(page(request, reply), JSON.parse(opened) as string[]), true))
  })

  return gate
}

/** The JSON a passkey form carries from the browser's answer; anything else answers nothing. */
function parseJsonField(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}
