// Codes that confirm an owner's action (a new destination, one withdrawal): the one service's
// codes (app/email-codes.ts: 6 digits, 10 minutes, single use, 5 wrong tries, sent from the
// outbox), bound to what they confirm, with a budget of their own so actions and sign-ins never
// starve each other.
// A wrong try is counted in a statement of its own, after the refused action's transaction has
// rolled back: counted inside it, it rolled back too and the code never burned
// (docs/design.md, "Codes that guard money").
import { DomainError } from '../domain/errors.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import { MAX_WRONG_TRIES } from '../secrets/one-time-code.ts'
import type { CodePurpose } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { EMAIL_CODES_PER_HOUR, mailCode, takeCode } from './email-codes.ts'

/** Action codes mailed per e-mail per hour. */
export const ACTION_CODES_PER_HOUR = EMAIL_CODES_PER_HOUR.actions

export type ActionPurpose = Exclude<CodePurpose, 'sign_in'>

type CodeRequest = { email: string; purpose: ActionPurpose; subject: string; code: string; now: Date }

/**
 * A typed code that matches none of the subject's usable codes, thrown inside the action's
 * transaction; `confirmingWithCode` counts it once that transaction has rolled back. Outside that
 * wrapper it is still the catalogue's `action_code_invalid` (nothing counted).
 */
class WrongActionCode extends DomainError {
  readonly codeIds: readonly number[]
  readonly request: CodeRequest
  constructor(codeIds: readonly number[], request: CodeRequest) {
    super('action_code_invalid', { param: 'code' })
    this.codeIds = codeIds
    this.request = request
  }
}

/** Inside the caller's transaction: a code for `subject`, mailed with the text `mail` makes of it. */
export async function issueActionCode(
  deps: { store: Store; mailSeal: MailSeal },
  request: { email: string; purpose: ActionPurpose; subject: string; now: Date; address: string; mail: (code: string) => { subject: string; text: string } },
): Promise<void> {
  const mailed = await mailCode(deps, { email: request.email, codeFor: { purpose: request.purpose, subject: request.subject }, now: request.now, address: request.address, mail: request.mail })
  if (!mailed) throw new DomainError('rate_limited', { retryAfterSeconds: 3_600 })
}

/**
 * Inside the transaction of `confirmingWithCode`: uses the code if it is one of the e-mail's
 * usable codes for this very subject; a wrong one is thrown, to be counted on each of them.
 */
export async function useActionCode(store: Store, request: CodeRequest): Promise<void> {
  const taken = await takeCode(store, { email: request.email, codeFor: { purpose: request.purpose, subject: request.subject }, code: request.code, now: request.now })
  if ('used' in taken) return
  // Another request used the code first: refused, nothing to count.
  if ('raced' in taken) throw new DomainError('action_code_invalid', { param: 'code' })
  throw new WrongActionCode(taken.wrong, request)
}

/**
 * Runs an action that checks a code in one transaction. A wrong code rolls the action back, then
 * its try is counted and committed on its own, so it holds although the request was refused. The
 * fifth wrong try burns a code: while the subject has no usable code left but a burned one, every
 * try answers `action_code_burned` (whatever was typed, so it tells nothing of the code), and the
 * owner asks for a new code.
 */
export async function confirmingWithCode<T>(store: Store, work: (store: Store) => Promise<T>): Promise<T> {
  try {
    return await store.transaction(work)
  } catch (error) {
    if (!(error instanceof WrongActionCode)) throw error
    const { email, purpose, subject, now } = error.request
    await store.wallet.countWrongTry(error.codeIds)
    const live = await store.wallet.liveCodes(email, now, MAX_WRONG_TRIES, { purpose, subject })
    throw new DomainError(live.usable === 0 && live.burned > 0 ? 'action_code_burned' : 'action_code_invalid', { param: 'code' })
  }
}
