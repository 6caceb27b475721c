// Joining and signing in to the Wallet (docs/rules.md#one-time-codes) with a one-time 6-digit code
// sent by e-mail: valid 10 minutes, single use, burned after 5 wrong tries, at most 5 mailed per
// e-mail per hour, and the same answer, in the same time, whether or not the e-mail has an account.
import type { Clock } from '../clock.ts'
import { openAccount } from './open-account.ts'
import { EMAIL_CODES_PER_HOUR, mailCode, takeCode } from './email-codes.ts'
import { DomainError } from '../domain/errors.ts'
import { parseTaxNumber } from '../domain/tax-number.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { Store } from '../store/store.ts'
import { catalogues, fill, type Lang } from '../i18n/catalogue.ts'

export const CODES_PER_EMAIL_PER_HOUR = EMAIL_CODES_PER_HOUR.sign_in
export const CODES_PER_ADDRESS_PER_HOUR = 30
export const HOUR_MS = 3600 * 1000

export type SignInDeps = { store: Store; clock: Clock; mailSeal: MailSeal }

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
 * Queues a code for the e-mail when it may be used: sign-up always proves the address; sign-in only
 * for an account that has an owner. The mail leaves from the job queue (app/send-queued-mail.ts),
 * so the answer never waits on the mail server and takes the same time whoever asks. A code counts
 * against the e-mail's hourly budget only once its mail was handed to the server; past the budget
 * nothing is stored (an attacker asking codes for someone's e-mail cannot make the codes already
 * in their mailbox useless). The per-address limit is the caller's, before this runs.
 */
export async function sendCode(
  deps: SignInDeps,
  request: { email: string; lang: Lang; signUp: SignUpDetails | null; address: string },
): Promise<void> {
  const now = deps.clock.now()
  await deps.store.transaction(async (store) => {
    const account = await store.accounts.findByEmail(request.email)
    const mailable = request.signUp !== null || (account !== undefined && account.owner_tax_number !== null)
    const texts = catalogues[request.lang].mail
    // Past the hourly budget, or for an e-mail that may not sign in, nothing is stored nor sent, and the answer is the same.
    await mailCode({ store, mailSeal: deps.mailSeal }, {
      email: request.email, codeFor: { purpose: 'sign_in', subject: null }, now, address: request.address, signup: request.signUp, mayReceive: mailable,
      mail: (code) => ({ subject: fill(texts.codeSubject, { code }), text: fill(texts.codeText, { code }) }),
    })
  })
}

/**
 * Checks a code against every usable code of the e-mail (unused, unexpired, fewer than 5 wrong
 * tries each): any code the owner received works until used or expired. A wrong code counts a try
 * on each (its fifth burns it); a right one is used once. A sign-up code then opens the account,
 * or claims the customer account a merchant's charge created; an owner's tax number never changes.
 */
export async function verifyCode(deps: SignInDeps, request: { email: string; code: string }): Promise<{ accountId: number }> {
  const now = deps.clock.now()
  const taken = await takeCode(deps.store, { email: request.email, codeFor: { purpose: 'sign_in', subject: null }, code: request.code, now })
  if (!('used' in taken)) {
    if ('wrong' in taken) await deps.store.wallet.countWrongTry(taken.wrong)
    throw new DomainError('wallet_code_invalid', { param: 'code' })
  }
  const row = taken.used

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

/** Whether the mail server is known to be failing: the code page says the code may come late. */
export function codeMayComeLate(deps: { store: Store }): Promise<boolean> {
  return deps.store.mail.failing()
}
