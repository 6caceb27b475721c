// The one-time codes mailed to a person, one service with one set of rules for all of them:
// signing in to the Wallet, signing in to the console, confirming a new destination, confirming
// a withdrawal. Six digits, valid 10 minutes, used once, burned after 5 wrong tries, kept only as
// a hash bound to the e-mail and to what the code is for, sent from the outbox; an hourly budget
// per e-mail for each kind (sign-in, console sign-in, and actions together), counted only for
// codes whose mail was handed to the server (docs/design.md, "Codes that guard money").
import { codeHash, CODE_VALIDITY_MS, matchingCodes, MAX_WRONG_TRIES, newCode, typedCode } from '../secrets/one-time-code.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { CodePurpose, WalletSignup } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { queueMail } from './queue-mail.ts'

const HOUR_MS = 3_600_000

/** Codes mailed per e-mail per hour, by budget: the Wallet's sign-in, the console's, and actions (destinations and withdrawals together). */
export const EMAIL_CODES_PER_HOUR = { sign_in: 5, console_sign_in: 5, actions: 10 } as const

/**
 * What a code is for. A Wallet sign-in code is hashed with the e-mail alone (as it always was);
 * every other code is bound to its purpose and subject, so it works for nothing else.
 */
export type CodeFor = { purpose: CodePurpose; subject: string | null }

export type CodeRow = Awaited<ReturnType<Store['wallet']['usableCodes']>>[number]

function budgetOf(purpose: CodePurpose): keyof typeof EMAIL_CODES_PER_HOUR {
  return purpose === 'destination' || purpose === 'withdrawal' || purpose === 'refund' ? 'actions' : purpose
}

function hashFor(email: string, code: string, codeFor: CodeFor): string {
  const bound = codeFor.subject === null ? undefined : { purpose: codeFor.purpose, subject: codeFor.subject }
  return codeHash(email, code, bound).toString('hex')
}

/**
 * Inside the caller's transaction: a new code for `codeFor`, stored hashed, its mail (made by
 * `mail` from the code) queued to leave before the code expires. Answers false, storing nothing,
 * when the e-mail's hourly budget for this kind of code is spent, or when `mayReceive` is false
 * (an e-mail that may not sign in): the budget is read either way, so the answer takes the same
 * work whether or not the e-mail has an account.
 */
export async function mailCode(
  deps: { store: Store; mailSeal: MailSeal },
  request: { email: string; codeFor: CodeFor; now: Date; address: string; signup?: WalletSignup | null; mayReceive?: boolean; mail: (code: string) => { subject: string; text: string } },
): Promise<boolean> {
  const { store } = deps
  const budget = budgetOf(request.codeFor.purpose)
  const mailed = await store.wallet.codesMailedSince(request.email, new Date(request.now.getTime() - HOUR_MS), budget)
  if (request.mayReceive === false || mailed >= EMAIL_CODES_PER_HOUR[budget]) return false
  const code = newCode()
  const expiresAt = new Date(request.now.getTime() + CODE_VALIDITY_MS)
  const codeId = await store.wallet.insertCode({
    email: request.email, codeHash: hashFor(request.email, code, request.codeFor), signup: request.signup ?? null, expiresAt, now: request.now, address: request.address,
    purpose: request.codeFor.purpose, ...(request.codeFor.subject === null ? {} : { subject: request.codeFor.subject }),
  })
  await queueMail(deps, { to: request.email, ...request.mail(code), code, codeId, now: request.now, sendBefore: expiresAt })
  return true
}

/**
 * The usable code (unused, unexpired, fewer than 5 wrong tries) the typed one matches, used now;
 * or, when none matches, the ids of those it was tried against, for the caller to count a wrong
 * try on each (at once, or after its transaction rolled back); or `raced` when another request
 * used the matching code first. Any usable code the person received
 * works until used or expired; the comparison takes the same time whichever matched.
 */
export async function takeCode(store: Store, request: { email: string; codeFor: CodeFor; code: string; now: Date }): Promise<{ used: CodeRow } | { wrong: number[] } | { raced: true }> {
  const rows = await store.wallet.usableCodes(request.email, request.now, MAX_WRONG_TRIES, request.codeFor)
  const row = matchingCodes(rows, Buffer.from(hashFor(request.email, typedCode(request.code), request.codeFor), 'hex'))[0]
  if (!row) return { wrong: rows.map((candidate) => candidate.id) }
  // Another request used it first: refused, and no wrong try to count.
  if (!(await store.wallet.useCode(row.id, request.now))) return { raced: true }
  return { used: row }
}
