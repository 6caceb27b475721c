// Second factors for owners and operators (docs/design.md, "Second factors"): enrol a passkey
// (WebAuthn, @simplewebauthn/server) or a TOTP app (RFC 6238, otpauth), check one, use a recovery
// code, remove one, and the support reset. Every change is e-mailed to the holder at once through
// the outbox. The pages keep the WebAuthn challenge and the TOTP secret being enrolled in the
// session; everything here is given them and the clock.
import { createHash, randomInt, timingSafeEqual } from 'node:crypto'
import type {
  AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON,
} from '@simplewebauthn/server'
import { Secret, TOTP } from 'otpauth'
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import {
  formatRecoveryCode, normalizeRecoveryCode, RECOVERY_ALPHABET, RECOVERY_CODE_COUNT, removalEffectiveAt, stepUpFresh, type FactorKind, type Holder,
} from '../domain/second-factor.ts'
import { catalogues, fill, formatDateTime, type Lang } from '../i18n/catalogue.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { Sealer } from '../secrets/seal.ts'
import type { SecondFactor } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { queueMail } from './queue-mail.ts'

export type RelyingParty = { id: string; name: string; origin: string }

export type FactorDeps = { store: Store; clock: Clock; mailSeal: MailSeal; totpSeal: Sealer; relyingParty: RelyingParty }

/** The session's last factor check (ms on the service clock), handed to an action that needs a step-up. */
export type StepUpProof = { checkedAt: number | null }

/** Who is told of a change, in which language. */
export type Notify = { email: string; lang: Lang }

/** A factor that passed a check: which (for the session and the audit log). */
export type CheckedFactor = { factorId: number | null; kind: FactorKind | 'recovery_code'; name: string }

/** How the audit log names the factor an action was confirmed with. */
export function factorLabel(checked: { kind: string; name: string }): string {
  return `${checked.kind}:${checked.name}`
}

const TOTP_PERIOD = 30
const TOTP_WINDOW = 1
const NOTICE_VALID_MS = 24 * 3_600_000

async function notify(store: Store, deps: { mailSeal: MailSeal }, to: Notify, now: Date, key: 'factorAdded' | 'factorRemoved' | 'factorRemovalPending' | 'recoveryCodeUsed' | 'factorReset' | 'recoveryCodesRenewed' | 'tokenIssued', values: Record<string, string>): Promise<void> {
  const texts = catalogues[to.lang].mail
  const all = { ...values, when: formatDateTime(to.lang, now) }
  await queueMail({ store, mailSeal: deps.mailSeal }, {
    to: to.email, subject: fill(texts[`${key}Subject`], all), text: fill(texts[`${key}Text`], all), codeId: null, now, sendBefore: new Date(now.getTime() + NOTICE_VALID_MS),
  })
}

/** E-mails the owner that a new API token was issued (the token itself never leaves the page). */
export async function noticeTokenIssued(deps: { store: Store; clock: Clock; mailSeal: MailSeal }, to: Notify, last4: string): Promise<void> {
  await notify(deps.store, deps, to, deps.clock.now(), 'tokenIssued', { last4 })
}

/**
 * The removal asked for the holder's last factor (or a support reset), once its wait is over:
 * the factor (or all of them) and the recovery codes go. Inside the caller's transaction.
 */
async function settleRemoval(store: Store, holder: Holder, now: Date): Promise<void> {
  const removal = await store.factors.openRemoval(holder)
  if (!removal || removal.effective_at.getTime() > now.getTime()) return
  if (!(await store.factors.endRemoval(removal.id, 'done', now))) return
  const factors = await store.factors.lockAll(holder)
  const gone = removal.factor_id === null ? factors.map((factor) => factor.id) : [removal.factor_id]
  await store.factors.delete(holder, gone)
  if (factors.every((factor) => gone.includes(factor.id))) await store.factors.deleteRecoveryCodes(holder)
  await store.audit.record({ actor: 'service', action: 'factors.removed', subject: holder, details: { factor_ids: gone, asked_by: removal.requested_by }, at: now })
}

export type FactorsView = { factors: SecondFactor[]; removal: { factorId: number | null; effectiveAt: Date; requestedBy: string } | null; recoveryCodesLeft: number }

/** The holder's factors as they stand now (a removal whose wait is over has taken effect). */
export async function factorsOf(deps: { store: Store; clock: Clock }, holder: Holder): Promise<FactorsView> {
  return deps.store.transaction(async (store) => {
    await settleRemoval(store, holder, deps.clock.now())
    const removal = await store.factors.openRemoval(holder)
    return {
      factors: await store.factors.list(holder),
      removal: removal ? { factorId: removal.factor_id, effectiveAt: removal.effective_at, requestedBy: removal.requested_by } : null,
      recoveryCodesLeft: (await store.factors.unusedRecoveryCodes(holder)).length,
    }
  })
}

export async function hasFactor(deps: { store: Store; clock: Clock }, holder: Holder): Promise<boolean> {
  return (await factorsOf(deps, holder)).factors.length > 0
}

/** Per holder: tries at a factor an hour, across sessions and addresses. */
const FACTOR_TRIES = { perMinute: 20 / 60, burst: 20 }

/** Counts one try at the holder's factor (a code, a passkey's answer); rate_limited once the hour's tries are spent. */
export async function takeFactorTry(deps: { store: Store }, holder: Holder): Promise<void> {
  const wait = await deps.store.rateBuckets.take(`factor:${holder}`, FACTOR_TRIES)
  if (wait > 0) throw new DomainError('rate_limited', { retryAfterSeconds: wait })
}

/**
 * Refused with step_up_required unless the holder has no factor, or one was checked within the
 * last 5 minutes (`checkedAt`, from the session). Inside the action's transaction when it has one.
 */
export async function requireStepUp(store: Store, request: { holder: Holder; checkedAt: number | null | undefined; now: Date }): Promise<void> {
  if (stepUpFresh(request.checkedAt, request.now)) return
  await settleRemoval(store, request.holder, request.now)
  if ((await store.factors.list(request.holder)).length > 0) throw new DomainError('step_up_required')
}

// Recovery codes

function recoveryHash(holder: Holder, normalized: string): string {
  return createHash('sha256').update(`recovery\n${holder}\n${normalized}`).digest('hex')
}

function newRecoveryCode(): string {
  let characters = ''
  for (let i = 0; i < 12; i++) characters += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]
  return characters
}

/** Ten new codes for the holder (the old ones stop working): answered once, stored hashed. */
async function issueRecoveryCodes(store: Store, holder: Holder, now: Date): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode)
  await store.factors.replaceRecoveryCodes(holder, codes.map((code) => recoveryHash(holder, code)), now)
  return codes.map(formatRecoveryCode)
}

/** New recovery codes on the holder's asking (after a fresh check): the old ones stop working. */
export async function renewRecoveryCodes(deps: FactorDeps, request: { holder: Holder; notify: Notify }): Promise<string[]> {
  const now = deps.clock.now()
  return deps.store.transaction(async (store) => {
    if ((await store.factors.lockAll(request.holder)).length === 0) throw new DomainError('second_factor_required')
    const codes = await issueRecoveryCodes(store, request.holder, now)
    await notify(store, deps, request.notify, now, 'recoveryCodesRenewed', {})
    return codes
  })
}

/** A recovery code in place of a factor: used once; the holder is told at once. */
export async function useRecoveryCode(deps: FactorDeps, request: { holder: Holder; code: string; notify: Notify }): Promise<CheckedFactor> {
  const now = deps.clock.now()
  const normalized = normalizeRecoveryCode(request.code)
  return deps.store.transaction(async (store) => {
    const rows = await store.factors.unusedRecoveryCodes(request.holder)
    const given = Buffer.from(recoveryHash(request.holder, normalized ?? 'x'), 'hex')
    const row = rows.filter((candidate) => timingSafeEqual(given, Buffer.from(candidate.code_hash, 'hex')))[0]
    if (normalized === null || !row || !(await store.factors.useRecoveryCode(row.id, now))) throw new DomainError('second_factor_invalid', { param: 'recovery_code' })
    await notify(store, deps, request.notify, now, 'recoveryCodeUsed', { left: String(rows.length - 1) })
    await store.audit.record({ actor: request.holder, action: 'factors.recovery_code', subject: request.holder, details: { left: rows.length - 1 }, at: now })
    return { factorId: null, kind: 'recovery_code', name: '' }
  })
}

// TOTP

/** A new TOTP secret (160 bits, base32) and the otpauth:// URI its QR carries. */
export function newTotpSecret(label: string, issuer: string): { secret: string; uri: string } {
  const secret = new Secret({ size: 20 }).base32
  return { secret, uri: totpOf(secret, label, issuer).toString() }
}

/** The otpauth:// URI of a secret, for its QR. */
export function totpUriOf(secret: string, label: string, issuer: string): string {
  return totpOf(secret, label, issuer).toString()
}

function totpOf(secret: string, label = '', issuer = ''): TOTP {
  return new TOTP({ issuer, label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD })
}

/** The time step a typed code matches at `now` (this one, or one either side), or null. */
function matchingStep(secret: string, code: string, now: Date): number | null {
  const token = code.replace(/\s/g, '')
  if (!/^\d{6}$/.test(token)) return null
  const totp = totpOf(secret)
  const delta = totp.validate({ token, timestamp: now.getTime(), window: TOTP_WINDOW })
  return delta === null ? null : totp.counter({ timestamp: now.getTime() }) + delta
}

/**
 * Enrols a TOTP app once it shows it has the secret (a code that matches now). The holder's first
 * factor comes with ten recovery codes, answered once.
 */
export async function enrolTotp(deps: FactorDeps, request: { holder: Holder; secret: string; code: string; name: string; notify: Notify }): Promise<{ factorId: number; recoveryCodes: string[] | null }> {
  const now = deps.clock.now()
  const step = matchingStep(request.secret, request.code, now)
  if (step === null) throw new DomainError('second_factor_invalid', { param: 'code' })
  return deps.store.transaction(async (store) => {
    const existing = await store.factors.lockAll(request.holder)
    const factorId = await store.factors.insert({ holder: request.holder, kind: 'totp', name: request.name, now, totp: { sealedSecret: deps.totpSeal.seal(request.secret), lastStep: step } })
    const recoveryCodes = existing.length === 0 ? await issueRecoveryCodes(store, request.holder, now) : null
    await notify(store, deps, request.notify, now, 'factorAdded', { name: request.name })
    await store.audit.record({ actor: request.holder, action: 'factors.add', subject: request.holder, details: { kind: 'totp', factor_id: factorId, name: request.name }, at: now })
    return { factorId, recoveryCodes }
  })
}

/**
 * Seals again, under the current secret, every TOTP secret that only a previous one opens: run at
 * start, so the restart that begins an OPS_TOKEN rotation carries every app over before the old
 * secret is dropped. Answers how many were sealed again.
 */
export async function resealTotpSecrets(deps: { store: Store; totpSeal: Sealer }): Promise<number> {
  let count = 0
  for (const factor of await deps.store.factors.sealedTotp()) {
    if (deps.totpSeal.isCurrent(factor.totp_secret_sealed)) continue
    const secret = deps.totpSeal.open(factor.totp_secret_sealed)
    if (secret === null) continue
    if (await deps.store.factors.reseal(factor.id, factor.totp_secret_sealed, deps.totpSeal.seal(secret))) count++
  }
  return count
}

/**
 * Checks a typed TOTP code against the holder's TOTP factors. A code is taken once: its time step
 * must be later than the last one the factor accepted, so a code seen over a shoulder, or sent
 * twice, is refused within its window too.
 */
export async function checkTotp(deps: FactorDeps, request: { holder: Holder; code: string }): Promise<CheckedFactor> {
  const now = deps.clock.now()
  return deps.store.transaction(async (store) => {
    await settleRemoval(store, request.holder, now)
    for (const factor of await store.factors.lockAll(request.holder)) {
      if (factor.kind !== 'totp' || factor.totp_secret_sealed === null) continue
      const secret = deps.totpSeal.open(factor.totp_secret_sealed)
      if (secret === null) continue
      const step = matchingStep(secret, request.code, now)
      if (step === null) continue
      // Sealed again under the current secret at each use, so a rotation of OPS_TOKEN carries it over.
      if (!(await store.factors.useTotpStep(factor.id, step, deps.totpSeal.seal(secret), now))) throw new DomainError('second_factor_invalid', { param: 'code', message: 'This code was already used; wait for the next one.' })
      return { factorId: factor.id, kind: 'totp', name: factor.name }
    }
    throw new DomainError('second_factor_invalid', { param: 'code' })
  })
}

// Passkeys

// Loaded at the first passkey, not with the service: with its ASN.1 and X.509 libraries it is
// about 290 modules, 170 ms of CPU at every start (docs/performance.md, "Smaller choices, measured").
const webauthn = () => import('@simplewebauthn/server')

/** Options for navigator.credentials.create(); the caller keeps `challenge` for the answer. */
export async function passkeyRegistrationOptions(deps: FactorDeps, request: { holder: Holder; userName: string }): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const passkeys = (await deps.store.factors.list(request.holder)).filter((factor) => factor.kind === 'passkey')
  const { generateRegistrationOptions } = await webauthn()
  return generateRegistrationOptions({
    rpName: deps.relyingParty.name,
    rpID: deps.relyingParty.id,
    userName: request.userName,
    userID: createHash('sha256').update(`webauthn-user\n${request.holder}`).digest().subarray(0, 16),
    attestationType: 'none',
    excludeCredentials: passkeys.map((factor) => ({ id: factor.credential_id!, transports: factor.transports ?? [] })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    // EdDSA, ES256, RS256: what passkeys use; not the post-quantum ones still experimental in Node.
    supportedAlgorithmIDs: [-8, -7, -257],
  })
}

function webauthnRefused(): DomainError {
  return new DomainError('second_factor_invalid', { param: 'passkey' })
}

export async function enrolPasskey(deps: FactorDeps, request: { holder: Holder; response: unknown; challenge: string | undefined; name: string; notify: Notify }): Promise<{ factorId: number; recoveryCodes: string[] | null }> {
  if (request.challenge === undefined) throw webauthnRefused()
  const now = deps.clock.now()
  const { verifyRegistrationResponse } = await webauthn()
  let verified
  try {
    verified = await verifyRegistrationResponse({
      response: request.response as RegistrationResponseJSON,
      expectedChallenge: request.challenge,
      expectedOrigin: deps.relyingParty.origin,
      expectedRPID: deps.relyingParty.id,
      requireUserVerification: false,
    })
  } catch {
    throw webauthnRefused()
  }
  if (!verified.verified) throw webauthnRefused()
  const credential = verified.registrationInfo.credential
  return deps.store.transaction(async (store) => {
    const existing = await store.factors.lockAll(request.holder)
    if (await store.factors.findByCredential(credential.id)) throw webauthnRefused()
    const factorId = await store.factors.insert({
      holder: request.holder, kind: 'passkey', name: request.name, now,
      passkey: { credentialId: credential.id, publicKey: Buffer.from(credential.publicKey).toString('base64url'), counter: credential.counter, transports: credential.transports ?? [] },
    })
    const recoveryCodes = existing.length === 0 ? await issueRecoveryCodes(store, request.holder, now) : null
    await notify(store, deps, request.notify, now, 'factorAdded', { name: request.name })
    await store.audit.record({ actor: request.holder, action: 'factors.add', subject: request.holder, details: { kind: 'passkey', factor_id: factorId, name: request.name }, at: now })
    return { factorId, recoveryCodes }
  })
}

/** Options for navigator.credentials.get() with the holder's passkeys, or null without one. */
export async function passkeyCheckOptions(deps: FactorDeps, request: { holder: Holder }): Promise<PublicKeyCredentialRequestOptionsJSON | null> {
  const passkeys = (await factorsOf(deps, request.holder)).factors.filter((factor) => factor.kind === 'passkey')
  if (passkeys.length === 0) return null
  const { generateAuthenticationOptions } = await webauthn()
  return generateAuthenticationOptions({
    rpID: deps.relyingParty.id,
    allowCredentials: passkeys.map((factor) => ({ id: factor.credential_id!, transports: factor.transports ?? [] })),
    userVerification: 'preferred',
  })
}

/**
 * Checks a passkey's signed answer to the challenge the session holds (each challenge is taken
 * once by the caller, so an answer replayed is refused) with the holder's own credential; the
 * signature counter only moves forward.
 */
export async function checkPasskey(deps: FactorDeps, request: { holder: Holder; response: unknown; challenge: string | undefined }): Promise<CheckedFactor> {
  if (request.challenge === undefined) throw webauthnRefused()
  const response = request.response as AuthenticationResponseJSON
  const now = deps.clock.now()
  const { verifyAuthenticationResponse } = await webauthn()
  return deps.store.transaction(async (store) => {
    await settleRemoval(store, request.holder, now)
    const factor = (await store.factors.lockAll(request.holder)).find((row) => row.kind === 'passkey' && typeof response?.id === 'string' && row.credential_id === response.id)
    if (!factor) throw webauthnRefused()
    let verified
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: request.challenge!,
        expectedOrigin: deps.relyingParty.origin,
        expectedRPID: deps.relyingParty.id,
        credential: { id: factor.credential_id!, publicKey: Buffer.from(factor.public_key!, 'base64url'), counter: factor.counter!, transports: factor.transports ?? [] },
        requireUserVerification: false,
      })
    } catch {
      throw webauthnRefused()
    }
    if (!verified.verified || !(await store.factors.usePasskey(factor.id, verified.authenticationInfo.newCounter, factor.counter!, now))) throw webauthnRefused()
    return { factorId: factor.id, kind: 'passkey', name: factor.name }
  })
}

// Removal

/**
 * Removes one of the holder's factors (the caller checked a factor just before). While another
 * remains it goes at once; the last one goes only after 72 hours, so whoever took the mailbox
 * and the session cannot strip the account bare before the owner reads the notice.
 */
export async function removeFactor(deps: FactorDeps, request: { holder: Holder; factorId: number; actor: string; notify: Notify }): Promise<{ effectiveAt: Date | null }> {
  const now = deps.clock.now()
  return deps.store.transaction(async (store) => {
    await settleRemoval(store, request.holder, now)
    const factors = await store.factors.lockAll(request.holder)
    const factor = factors.find((row) => row.id === request.factorId)
    if (!factor) throw new DomainError('not_found', { param: 'factor' })
    if (factors.length > 1) {
      await store.factors.delete(request.holder, [factor.id])
      await notify(store, deps, request.notify, now, 'factorRemoved', { name: factor.name })
      await store.audit.record({ actor: request.actor, action: 'factors.remove', subject: request.holder, details: { factor_id: factor.id, name: factor.name }, at: now })
      return { effectiveAt: null }
    }
    const open = await store.factors.openRemoval(request.holder)
    if (open) return { effectiveAt: open.effective_at }
    const effectiveAt = removalEffectiveAt(now)
    await store.factors.insertRemoval({ holder: request.holder, factorId: factor.id, requestedBy: request.actor, now, effectiveAt })
    await notify(store, deps, request.notify, now, 'factorRemovalPending', { name: factor.name, effective: formatDateTime(request.notify.lang, effectiveAt) })
    await store.audit.record({ actor: request.actor, action: 'factors.remove_requested', subject: request.holder, details: { factor_id: factor.id, name: factor.name, effective_at: effectiveAt.toISOString() }, at: now })
    return { effectiveAt }
  })
}

/** The holder (signed in, with a factor) calls off a pending removal or support reset. */
export async function cancelRemoval(deps: FactorDeps, request: { holder: Holder; actor: string }): Promise<void> {
  const now = deps.clock.now()
  await deps.store.transaction(async (store) => {
    await settleRemoval(store, request.holder, now)
    const open = await store.factors.openRemoval(request.holder)
    if (!open || !(await store.factors.endRemoval(open.id, 'canceled', now))) return
    await store.audit.record({ actor: request.actor, action: 'factors.removal_canceled', subject: request.holder, details: { removal_id: open.id }, at: now })
  })
}

/**
 * Support's reset for a holder who lost every factor and every recovery code, after checking who
 * they are: all the holder's factors go after the same 72 hours, and the holder is told at once,
 * so an attacker who talked support into it is found out by the owner in time.
 */
export async function resetFactors(deps: FactorDeps, request: { holder: Holder; actor: string; note: string; notify: Notify }): Promise<{ effectiveAt: Date }> {
  const now = deps.clock.now()
  return deps.store.transaction(async (store) => {
    await settleRemoval(store, request.holder, now)
    if ((await store.factors.lockAll(request.holder)).length === 0) throw new DomainError('second_factor_required')
    const open = await store.factors.openRemoval(request.holder)
    if (open) await store.factors.endRemoval(open.id, 'canceled', now)
    const effectiveAt = removalEffectiveAt(now)
    await store.factors.insertRemoval({ holder: request.holder, factorId: null, requestedBy: request.actor, now, effectiveAt })
    await notify(store, deps, request.notify, now, 'factorReset', { effective: formatDateTime(request.notify.lang, effectiveAt) })
    await store.audit.record({ actor: request.actor, action: 'factors.reset', subject: request.holder, details: { note: request.note, effective_at: effectiveAt.toISOString() }, at: now })
    return { effectiveAt }
  })
}

/**
 * The store for a console action confirmed with `factor`: every audit row the action writes (in
 * its transactions too) names the factor, so the log says who did it and with what.
 */
export function auditingWithFactor(store: Store, factor: string): Store {
  return {
    ...store,
    audit: { ...store.audit, record: (entry) => store.audit.record({ ...entry, details: { ...entry.details, factor } }) },
    transaction: (work) => store.transaction((inner) => work(auditingWithFactor(inner, factor))),
  }
}
