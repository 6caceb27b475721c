// The Wallet's second factors (docs/design.md, "Second factors"): an owner enrols a passkey or a
// TOTP app, names, lists and removes them, and keeps ten recovery codes shown once. Once the owner
// has a factor, sign-in asks for it after the e-mail code, and the money actions ask for it again
// when it was last checked more than 5 minutes ago (a step-up). Registered inside walletRoutes:
// its session, CSRF and headers apply. The passkey script is the service's own (wallet.ts serves
// @simplewebauthn/browser's ESM files from /wallet/assets/webauthn/).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import QRCode from 'qrcode'
import {
  cancelRemoval, checkPasskey, checkTotp, enrolPasskey, enrolTotp, factorLabel, factorsOf, hasFactor, newTotpSecret, passkeyCheckOptions, totpUriOf,
  passkeyRegistrationOptions, removeFactor, renewRecoveryCodes, requireStepUp, useRecoveryCode, type CheckedFactor, type FactorDeps,
} from '../app/second-factors.ts'
import { DomainError } from '../domain/errors.ts'
import { accountHolder, factorName, PENDING_SIGN_IN_MS, stepUpFresh } from '../domain/second-factor.ts'
import { langOf, translate, type Lang } from '../i18n/catalogue.ts'
import { createSealer } from '../secrets/seal.ts'
import type { FactorGate, WalletDeps } from './deps.ts'
import { checkPage, factorsPage, recoveryCodesPage, totpEnrolPage } from './factor-pages.ts'
import type { WalletPageHelpers } from './withdrawal-routes.ts'

declare module 'fastify' {
  interface Session {
    /** Signed in with the e-mail code, waiting for the second factor (since when, ms). */
    pendingAccountId?: number
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

/** The relying party of the deployment's passkeys: BASE_URL's host and origin. */
export function relyingPartyOf(baseUrl: string): { id: string; name: string; origin: string } {
  const url = new URL(baseUrl)
  return { id: url.hostname, name: `Pix (${url.hostname})`, origin: url.origin }
}

/** A path on the Wallet to go on to after a check; anything else is the Wallet's home. */
export function walletNext(value: unknown): string {
  return typeof value === 'string' && /^\/wallet(\/[A-Za-z0-9_/-]{0,120})?(\?[A-Za-z0-9_=&%.-]{0,200})?$/.test(value) ? value : '/wallet'
}

/** The page whose form was sent to `url` (a POST refused for want of a step-up goes back there after the check). */
export function formPageOf(url: string): string {
  const path = url.split('?')[0]!
  if (/^\/wallet\/(token|recovery-codes)$/.test(path)) return '/wallet'
  if (/^\/wallet\/factors\/(passkey(\/options)?|\d+\/remove|removal\/cancel)$/.test(path)) return '/wallet/factors'
  return walletNext(path.replace(/\/confirm$/, ''))
}

/** Per holder: tries at a factor an hour, across sessions and addresses. */
const FACTOR_TRIES = { perMinute: 20 / 60, burst: 20 }

export type { FactorGate }

export function registerFactorPages(app: FastifyInstance, deps: WalletDeps, helpers: WalletPageHelpers): FactorGate {
  const { pageOf, html, accountOf, field, signedIn, protect, protectSignedIn } = helpers
  const factorDeps: FactorDeps = { store: deps.store, clock: deps.clock, mailSeal: deps.mailSeal, totpSeal: createSealer(deps.opsTokens, 'totp-secret'), relyingParty: relyingPartyOf(deps.config.baseUrl) }
  const codesSeal = createSealer(deps.opsTokens, 'wallet-recovery-codes')
  const secretSeal = createSealer(deps.opsTokens, 'wallet-totp-enrolment')
  const now = () => deps.clock.now()
  const holderOf = (request: FastifyRequest) => accountHolder(accountOf(request)!)
  const langFor = (request: FastifyRequest): Lang => langOf(request.cookies.wallet_lang)
  const notifyOf = async (request: FastifyRequest, accountId: number) => ({ email: (await deps.store.accounts.findById(accountId))!.email, lang: langFor(request) })

  const gate: FactorGate = {
    async stepUp(request) {
      await requireStepUp(deps.store, { holder: holderOf(request), checkedAt: request.session.factorCheckedAt, now: now() })
    },
    stepUpProof: (request) => ({ holder: holderOf(request), checkedAt: request.session.factorCheckedAt ?? null }),
    async needsStepUp(request) {
      return !stepUpFresh(request.session.factorCheckedAt, now()) && (await hasFactor(deps, holderOf(request)))
    },
  }

  /** The account a check is for: the signed-in owner's, or the one waiting for its factor to sign in. */
  const checkingAccount = (request: FastifyRequest): number | null => {
    const signed = accountOf(request)
    if (signed !== null) return signed
    const pending = request.session.pendingAccountId
    const since = request.session.pendingSince
    return typeof pending === 'number' && typeof since === 'number' && now().getTime() - since <= PENDING_SIGN_IN_MS && now().getTime() >= since ? pending : null
  }
  const requireChecking = (request: FastifyRequest): number => {
    const accountId = checkingAccount(request)
    if (accountId === null) throw new DomainError('wallet_code_invalid', { message: translate(langFor(request), 'checkExpired'), localized: true })
    return accountId
  }
  const takeTry = async (request: FastifyRequest, accountId: number) => {
    const wait = await deps.store.rateBuckets.take(`factor:${accountHolder(accountId)}`, FACTOR_TRIES)
    if (wait > 0) throw new DomainError('rate_limited', { retryAfterSeconds: wait })
  }
  /** A factor passed: the pending sign-in completes, and the session remembers the check. */
  const passed = (request: FastifyRequest, accountId: number, checked: CheckedFactor) => {
    delete request.session.pendingAccountId
    delete request.session.pendingSince
    request.session.accountId = accountId
    request.session.factorCheckedAt = now().getTime()
    request.session.factorUsed = factorLabel(checked)
  }
  const json = (reply: FastifyReply, body: unknown) => reply.header('cache-control', 'no-store').send(body)

  // The check: sign-in's second step, and the step-up before a money action.
  app.get<{ Querystring: { next?: string } }>('/wallet/check', async (request, reply) => {
    const accountId = checkingAccount(request)
    if (accountId === null) return reply.redirect('/wallet', 303)
    const view = await factorsOf(deps, accountHolder(accountId))
    return html(reply, checkPage({ ...pageOf(request, reply), signedIn: accountOf(request) !== null }, {
      next: walletNext(request.query.next), passkey: view.factors.some((factor) => factor.kind === 'passkey'), totp: view.factors.some((factor) => factor.kind === 'totp'),
    }))
  })

  app.post('/wallet/check/passkey/options', protect, async (request, reply) => {
    const accountId = requireChecking(request)
    const options = await passkeyCheckOptions(factorDeps, { holder: accountHolder(accountId) })
    if (options === null) throw new DomainError('second_factor_required')
    request.session.webauthnChallenge = options.challenge
    return json(reply, options)
  })

  const afterCheck = async (request: FastifyRequest, reply: FastifyReply, check: (accountId: number) => Promise<CheckedFactor>) => {
    const accountId = requireChecking(request)
    await takeTry(request, accountId)
    const checked = await deps.authFailures.guard(request, () => check(accountId))
    passed(request, accountId, checked)
    return reply.redirect(walletNext((request.body as Record<string, unknown>).next), 303)
  }

  app.post('/wallet/check/passkey', protect, async (request, reply) => {
    const challenge = request.session.webauthnChallenge
    delete request.session.webauthnChallenge
    const response = parseJsonField(field(request.body, 'response', 8000))
    return afterCheck(request, reply, (accountId) => checkPasskey(factorDeps, { holder: accountHolder(accountId), response, challenge }))
  })

  app.post('/wallet/check/totp', protect, async (request, reply) =>
    afterCheck(request, reply, (accountId) => checkTotp(factorDeps, { holder: accountHolder(accountId), code: field(request.body, 'code', 20) })))

  app.post('/wallet/check/recovery', protect, async (request, reply) =>
    afterCheck(request, reply, async (accountId) => useRecoveryCode(factorDeps, { holder: accountHolder(accountId), code: field(request.body, 'recovery_code', 40), notify: await notifyOf(request, accountId) })))

  // The owner's factors.
  app.get<{ Querystring: { notice?: string } }>('/wallet/factors', signedIn, async (request, reply) => {
    const view = await factorsOf(deps, holderOf(request))
    const notice = ['added', 'removed', 'removal', 'canceled'].includes(request.query.notice ?? '') ? request.query.notice! : null
    return html(reply, factorsPage(pageOf(request, reply), view, notice, stepUpFresh(request.session.factorCheckedAt, now())))
  })

  /** Adding a factor to an owner who has one, removing one, new recovery codes: a fresh check first. */
  const enrolled = (request: FastifyRequest, reply: FastifyReply, result: { factorId: number; recoveryCodes: string[] | null }, checked: CheckedFactor) => {
    // Enrolling proves the factor: it counts as a check.
    request.session.factorCheckedAt = now().getTime()
    request.session.factorUsed = factorLabel(checked)
    if (result.recoveryCodes === null) return reply.redirect('/wallet/factors?notice=added', 303)
    request.session.recoveryCodes = codesSeal.seal(JSON.stringify(result.recoveryCodes))
    return reply.redirect('/wallet/recovery-codes', 303)
  }

  app.post('/wallet/factors/passkey/options', protectSignedIn, async (request, reply) => {
    await gate.stepUp(request)
    const account = (await deps.store.accounts.findById(accountOf(request)!))!
    const options = await passkeyRegistrationOptions(factorDeps, { holder: holderOf(request), userName: account.email })
    request.session.webauthnChallenge = options.challenge
    return json(reply, options)
  })

  app.post('/wallet/factors/passkey', protectSignedIn, async (request, reply) => {
    const challenge = request.session.webauthnChallenge
    delete request.session.webauthnChallenge
    await gate.stepUp(request)
    const lang = langFor(request)
    const name = factorName(typeof (request.body as Record<string, unknown>).name === 'string' ? field(request.body, 'name', 200) : '', translate(lang, 'passkeyDefaultName'))
    const result = await enrolPasskey(factorDeps, { holder: holderOf(request), response: parseJsonField(field(request.body, 'response', 8000)), challenge, name, notify: await notifyOf(request, accountOf(request)!) })
    return enrolled(request, reply, result, { factorId: result.factorId, kind: 'passkey', name })
  })

  app.get('/wallet/factors/totp', signedIn, async (request, reply) => {
    const account = (await deps.store.accounts.findById(accountOf(request)!))!
    const relyingParty = relyingPartyOf(deps.config.baseUrl)
    let secret = request.session.totpSecret === undefined ? null : secretSeal.open(request.session.totpSecret)
    if (secret === null) {
      secret = newTotpSecret(account.email, relyingParty.name).secret
      request.session.totpSecret = secretSeal.seal(secret)
    }
    return html(reply, totpEnrolPage(pageOf(request, reply), { secret, qrUrl: '/wallet/factors/totp/qr.png', needsStepUp: await gate.needsStepUp(request) }))
  })

  app.get('/wallet/factors/totp/qr.png', signedIn, async (request, reply) => {
    const secret = request.session.totpSecret === undefined ? null : secretSeal.open(request.session.totpSecret)
    if (secret === null) throw new DomainError('not_found')
    const account = (await deps.store.accounts.findById(accountOf(request)!))!
    const uri = totpUriOf(secret, account.email, relyingPartyOf(deps.config.baseUrl).name)
    return reply.type('image/png').header('cache-control', 'no-store').send(await QRCode.toBuffer(uri, { type: 'png', errorCorrectionLevel: 'M', margin: 2, scale: 5 }))
  })

  app.post('/wallet/factors/totp', protectSignedIn, async (request, reply) => {
    await gate.stepUp(request)
    const secret = request.session.totpSecret === undefined ? null : secretSeal.open(request.session.totpSecret)
    if (secret === null) return reply.redirect('/wallet/factors/totp', 303)
    const lang = langFor(request)
    const name = factorName(typeof (request.body as Record<string, unknown>).name === 'string' ? field(request.body, 'name', 200) : '', translate(lang, 'totpDefaultName'))
    await takeTry(request, accountOf(request)!)
    const result = await enrolTotp(factorDeps, { holder: holderOf(request), secret, code: field(request.body, 'code', 20), name, notify: await notifyOf(request, accountOf(request)!) })
    delete request.session.totpSecret
    return enrolled(request, reply, result, { factorId: result.factorId, kind: 'totp', name })
  })

  app.post<{ Params: { id: string } }>('/wallet/factors/:id/remove', protectSignedIn, async (request, reply) => {
    await gate.stepUp(request)
    const factorId = /^\d{1,15}$/.test(request.params.id) ? Number(request.params.id) : -1
    const removed = await removeFactor(factorDeps, { holder: holderOf(request), factorId, actor: `owner:${accountOf(request)}`, notify: await notifyOf(request, accountOf(request)!) })
    return reply.redirect(`/wallet/factors?notice=${removed.effectiveAt === null ? 'removed' : 'removal'}`, 303)
  })

  app.post('/wallet/factors/removal/cancel', protectSignedIn, async (request, reply) => {
    await gate.stepUp(request)
    await cancelRemoval(factorDeps, { holder: holderOf(request), actor: `owner:${accountOf(request)}` })
    return reply.redirect('/wallet/factors?notice=canceled', 303)
  })

  app.post('/wallet/recovery-codes', protectSignedIn, async (request, reply) => {
    await gate.stepUp(request)
    const codes = await renewRecoveryCodes(factorDeps, { holder: holderOf(request), notify: await notifyOf(request, accountOf(request)!) })
    request.session.recoveryCodes = codesSeal.seal(JSON.stringify(codes))
    return reply.redirect('/wallet/recovery-codes', 303)
  })

  // Shown once: the page read again (a reload, the back button) shows them no more.
  app.get('/wallet/recovery-codes', signedIn, async (request, reply) => {
    const opened = request.session.recoveryCodes === undefined ? null : codesSeal.open(request.session.recoveryCodes)
    delete request.session.recoveryCodes
    if (opened === null) return reply.redirect('/wallet/factors', 303)
    return html(reply, recoveryCodesPage(pageOf(request, reply), JSON.parse(opened) as string[]))
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
