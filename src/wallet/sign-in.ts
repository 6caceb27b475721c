// Joining and signing in to the Wallet (decisions 11) with a one-time 6-digit code sent by
// e-mail: valid 10 minutes, single use, burned after 5 wrong tries, at most 5 per e-mail per hour,
// and the same answer whether or not the e-mail has an account.
import { createHash, randomInt, timingSafeEqual } from 'node:crypto'
import type { Clock } from '../clock.ts'
import { openAccount } from '../app/open-account.ts'
import { DomainError } from '../domain/errors.ts'
import { parseTaxNumber } from '../domain/tax-number.ts'
import type { Mailer } from '../mail/mailer.ts'
import type { Store } from '../store/store.ts'
import { translate, type Lang } from './i18n.ts'

export const CODE_VALIDITY_MS = 10 * 60 * 1000
export const MAX_WRONG_TRIES = 5
export const CODES_PER_EMAIL_PER_HOUR = 5
export const CODES_PER_ADDRESS_PER_HOUR = 30
const HOUR_MS = 3600 * 1000

export type SignInDeps = { store: Store; clock: Clock; mailer: Mailer }

const hashCode = (email: string, code: string) => createHash('sha256').update(`${email}\n${code}`).digest()
const emailPattern = /^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$/

export function normalizeEmail(input: string): string {
  const email = input.trim().toLowerCase()
  if (email.length > 254 || !emailPattern.test(email)) throw new DomainError('email_invalid', { param: 'email' })
  return email
}

export type SignUpDetails = { name: string; taxNumber: string }

export function parseSignUp(input: { name: string; taxNumber: string }): SignUpDetails {
  const name = input.name.trim().replace(/\s+/g, ' ')
  if (name.length < 3 || name.length > 100 || !name.includes(' ') || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new DomainError('name_invalid', { param: 'name' })
  }
  const taxNumber = parseTaxNumber(input.taxNumber)
  if (!taxNumber) throw new DomainError('tax_number_invalid', { param: 'tax_number' })
  return { name, taxNumber: taxNumber.value }
}

/**
 * Sends a code to the e-mail when it may be used: sign-up always proves the address; sign-in only
 * for an account that has an owner. Otherwise, or over the per-e-mail limit, nothing is sent, but
 * the request is recorded all the same, so neither the answer nor the limit tells who exists.
 */
export async function sendCode(
  deps: SignInDeps,
  request: { email: string; address: string; lang: Lang; signUp: SignUpDetails | null },
): Promise<void> {
  const now = deps.clock.now()
  const hourAgo = new Date(now.getTime() - HOUR_MS)
  if ((await deps.store.wallet.codesSince({ address: request.address }, hourAgo)) >= CODES_PER_ADDRESS_PER_HOUR) {
    throw new DomainError('rate_limited', { message: translate(request.lang, 'tooManyCodesFromAddress'), retryAfterSeconds: 3600 })
  }
  const overEmailLimit = (await deps.store.wallet.codesSince({ email: request.email }, hourAgo)) >= CODES_PER_EMAIL_PER_HOUR
  const account = await deps.store.accounts.findByEmail(request.email)
  const mailed = !overEmailLimit && (request.signUp !== null || (account !== undefined && account.owner_tax_number !== null))
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0')
  await deps.store.wallet.insertCode({
    email: request.email,
    // A code that is not mailed is stored as the hash of nothing anyone has: it can never match.
    codeHash: hashCode(request.email, mailed ? code : `unsent:${randomInt(0, 2 ** 47)}`).toString('hex'),
    signup: request.signUp,
    expiresAt: new Date(now.getTime() + CODE_VALIDITY_MS),
    now,
    address: request.address,
  })
  if (!mailed) return
  await deps.mailer.send({
    to: request.email,
    subject: translate(request.lang, 'codeMailSubject', { code }),
    text: translate(request.lang, 'codeMailText', { code }),
    code,
  })
}

/**
 * Checks a code against the newest usable one of the e-mail. A wrong code counts a try (the fifth
 * burns it); a right one is used once. A sign-up code then opens the account, or claims the
 * customer account a merchant's charge created; an owner's tax number never changes.
 */
export async function verifyCode(deps: SignInDeps, request: { email: string; code: string }): Promise<{ accountId: number }> {
  const now = deps.clock.now()
  const row = await deps.store.wallet.latestUsableCode(request.email, now, MAX_WRONG_TRIES)
  const given = /^\d{6}$/.test(request.code.trim()) ? request.code.trim() : 'x'
  if (!row || !timingSafeEqual(hashCode(request.email, given), Buffer.from(row.code_hash, 'hex'))) {
    if (row) await deps.store.wallet.countWrongTry(row.id)
    throw new DomainError('wallet_code_invalid', { param: 'code' })
  }
  if (!(await deps.store.wallet.useCode(row.id, now))) throw new DomainError('wallet_code_invalid', { param: 'code' })

  const account = await deps.store.accounts.findByEmail(request.email)
  if (row.signup === null) {
    if (!account || account.owner_tax_number === null) throw new DomainError('wallet_code_invalid', { param: 'code' })
    return { accountId: account.id }
  }
  if (account?.owner_tax_number != null) {
    if (account.owner_tax_number !== row.signup.taxNumber) throw new DomainError('account_exists', { param: 'tax_number' })
    return { accountId: account.id }
  }
  const opened = await openAccount(deps, { email: request.email, taxNumber: row.signup.taxNumber, name: row.signup.name, kyc: 'none', euid: null })
  return { accountId: opened.id }
}
