// Operators sign in to the support console (docs/rules.md#console) with the Wallet's rules:
// a 6-digit code by e-mail, valid 10 minutes, single use, burned after 5 wrong tries, at
// most 5 mailed per e-mail per hour, sent from the outbox, and the same answer whether or
// not the e-mail is an operator's. The codes are the one service's (app/email-codes.ts),
// with a purpose and a budget of their own.
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import { findOperator, type Operator } from '../domain/operators.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { Store } from '../store/store.ts'
import { EMAIL_CODES_PER_HOUR, mailCode, takeCode } from './email-codes.ts'

export const OPERATOR_CODES_PER_HOUR = EMAIL_CODES_PER_HOUR.console_sign_in
const codeFor = { purpose: 'console_sign_in', subject: 'console' } as const

export type OperatorSignInDeps = { store: Store; clock: Clock; mailSeal: MailSeal; operators: readonly Operator[] }

/** Queues a code for an operator's e-mail; for any other e-mail nothing, in the same time. */
export async function sendOperatorCode(deps: OperatorSignInDeps, request: { email: string; address: string; mail: (code: string) => { subject: string; text: string } }): Promise<void> {
  const now = deps.clock.now()
  await deps.store.transaction(async (store) => {
    const operator = findOperator(deps.operators, request.email)
    await mailCode({ store, mailSeal: deps.mailSeal }, { email: operator?.email ?? request.email, codeFor, now, address: request.address, mayReceive: operator !== null, mail: request.mail })
  })
}

/**
 * The operator the code signs in: any usable code of the e-mail works once; a wrong one counts a
 * try on each. An operator removed from OPERATORS since the code was sent signs in no more.
 */
export async function verifyOperatorCode(deps: OperatorSignInDeps, request: { email: string; code: string }): Promise<Operator> {
  const now = deps.clock.now()
  const taken = await takeCode(deps.store, { email: request.email, codeFor, code: request.code, now })
  if (!('used' in taken)) {
    if ('wrong' in taken) await deps.store.wallet.countWrongTry(taken.wrong)
    throw new DomainError('wallet_code_invalid', { param: 'code' })
  }
  const operator = findOperator(deps.operators, request.email)
  if (operator === null) throw new DomainError('wallet_code_invalid', { param: 'code' })
  await deps.store.audit.record({ actor: operator.email, action: 'console.sign_in', subject: `operator:${operator.email}`, details: { role: operator.role }, at: now })
  return operator
}
