// Codes that confirm an owner's action (a new destination, one withdrawal): the sign-in codes'
// rules (6 digits, 10 minutes, single use, 5 wrong tries, sent from the outbox), bound to what
// they confirm, with a budget of their own so actions and sign-ins never starve each other.
import { DomainError } from '../domain/errors.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import { codeHash, CODE_VALIDITY_MS, matchingCodes, MAX_WRONG_TRIES, newCode, typedCode } from '../secrets/one-time-code.ts'
import type { CodePurpose } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { queueMail } from './queue-mail.ts'

/** Action codes mailed per e-mail per hour. */
export const ACTION_CODES_PER_HOUR = 10
const HOUR_MS = 3_600_000

export type ActionPurpose = Exclude<CodePurpose, 'sign_in'>

/** Inside the caller's transaction: a code for `subject`, mailed with the text `mail` makes of it. */
export async function issueActionCode(
  deps: { store: Store; mailSeal: MailSeal },
  request: { email: string; purpose: ActionPurpose; subject: string; now: Date; address: string; mail: (code: string) => { subject: string; text: string } },
): Promise<void> {
  const { store } = deps
  const mailed = await store.wallet.codesMailedSince(request.email, new Date(request.now.getTime() - HOUR_MS), 'actions')
  if (mailed >= ACTION_CODES_PER_HOUR) throw new DomainError('rate_limited', { retryAfterSeconds: 3_600 })
  const code = newCode()
  const expiresAt = new Date(request.now.getTime() + CODE_VALIDITY_MS)
  const bound = { purpose: request.purpose, subject: request.subject }
  const codeId = await store.wallet.insertCode({ email: request.email, codeHash: codeHash(request.email, code, bound).toString('hex'), signup: null, expiresAt, now: request.now, address: request.address, ...bound })
  await queueMail(deps, { to: request.email, ...request.mail(code), code, codeId, now: request.now, sendBefore: expiresAt })
}

/** Uses the code if it is one of the e-mail's usable codes for this very subject; a wrong one counts a try on each. */
export async function useActionCode(store: Store, request: { email: string; purpose: ActionPurpose; subject: string; code: string; now: Date }): Promise<void> {
  const bound = { purpose: request.purpose, subject: request.subject }
  const rows = await store.wallet.usableCodes(request.email, request.now, MAX_WRONG_TRIES, bound)
  const row = matchingCodes(rows, codeHash(request.email, typedCode(request.code), bound))[0]
  if (!row) {
    await store.wallet.countWrongTry(rows.map((candidate) => candidate.id))
    throw new DomainError('action_code_invalid', { param: 'code' })
  }
  if (!(await store.wallet.useCode(row.id, request.now))) throw new DomainError('action_code_invalid', { param: 'code' })
}
