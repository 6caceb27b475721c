// Operators sign in to the support console (decisions 16) with the Wallet's rules: a 6-digit code
// by e-mail, valid 10 minutes, single use, burned after 5 wrong tries, at most 5 mailed per e-mail
// per hour, sent from the outbox, and the same answer whether or not the e-mail is an operator's.
// The codes are the Wallet's (secrets/one-time-code.ts), with a purpose and a budget of their own.
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import { findOperator, type Operator } from '../domain/operators.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import { codeHash, CODE_VALIDITY_MS, matchingCodes, MAX_WRONG_TRIES, newCode, typedCode } from '../secrets/one-time-code.ts'
import type { Store } from '../store/store.ts'
import { queueMail } from './queue-mail.ts'

export const OPERATOR_CODES_PER_HOUR = 5
const HOUR_MS = 3_600_000
const bound = { purpose: 'console_sign_in', subject: 'console' } as const

export type OperatorSignInDeps = { store: Store; clock: Clock; mailSeal: MailSeal; operators: readonly Operator[] }

/** Queues a code for an operator's e-mail; for any other e-mail nothing, in the same time. */
export async function sendOperatorCode(deps: OperatorSignInDeps, request: { email: string; address: string; mail: (code: string) => { subject: string; text: string } }): Promise<void> {
  const now = deps.clock.now()
  await deps.store.transaction(async (store) => {
    const operator = findOperator(deps.operators, request.email)
    const sent = await store.wallet.codesMailedSince(request.email, new Date(now.getTime() - HOUR_MS), 'console_sign_in')
    if (operator === null || sent >= OPERATOR_CODES_PER_HOUR) return
    const code = newCode()
    const expiresAt = new Date(now.getTime() + CODE_VALIDITY_MS)
    const codeId = await store.wallet.insertCode({ email: operator.email, codeHash: codeHash(operator.email, code, bound).toString('hex'), signup: null, expiresAt, now, address: request.address, ...bound })
    await queueMail({ store, mailSeal: deps.mailSeal }, { to: operator.email, ...request.mail(code), code, codeId, now, sendBefore: expiresAt })
  })
}

/**
 * The operator the code signs in: any usable code of the e-mail works once; a wrong one counts a
 * try on each. An operator removed from OPERATORS since the code was sent signs in no more.
 */
export async function verifyOperatorCode(deps: OperatorSignInDeps, request: { email: string; code: string }): Promise<Operator> {
  const now = deps.clock.now()
  const rows = await deps.store.wallet.usableCodes(request.email, now, MAX_WRONG_TRIES, bound)
  const row = matchingCodes(rows, codeHash(request.email, typedCode(request.code), bound))[0]
  if (!row) {
    await deps.store.wallet.countWrongTry(rows.map((candidate) => candidate.id))
    throw new DomainError('wallet_code_invalid', { param: 'code' })
  }
  if (!(await deps.store.wallet.useCode(row.id, now))) throw new DomainError('wallet_code_invalid', { param: 'code' })
  const operator = findOperator(deps.operators, request.email)
  if (operator === null) throw new DomainError('wallet_code_invalid', { param: 'code' })
  await deps.store.audit.record({ actor: operator.email, action: 'console.sign_in', subject: `operator:${operator.email}`, details: { role: operator.role }, at: now })
  return operator
}
