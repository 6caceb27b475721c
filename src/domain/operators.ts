// The support console's operators (docs/rules.md#console): named people, each with a role, listed
// by configuration (OPERATORS). What each role may do is decided here and nowhere else.

export const operatorRoles = ['support', 'admin'] as const
export type OperatorRole = (typeof operatorRoles)[number]

export type Operator = { email: string; role: OperatorRole }

/**
 * What an operator does in the console. `support` works the queues: holds, refunds, blocks and
 * withdrawal reviews; `admin` also sets quotes, releases identities, activates tokens and resets
 * the second factors of someone who lost them all.
 */
export const operatorActions = {
  'hold.review': 'support',
  // An amount typed for a held payment beyond the tolerance counts once a second operator, an admin, confirms it.
  'hold.confirm_paid_amount': 'admin',
  'refund.record_paid': 'support',
  'refund.pay': 'support',
  'block.add': 'support',
  'block.lift': 'support',
  'withdrawal.review': 'support',
  'quotes.set': 'admin',
  'identity.assign': 'admin',
  'token.activate': 'admin',
  'factors.reset': 'admin',
} as const satisfies Record<string, OperatorRole>
export type OperatorAction = keyof typeof operatorActions

/** Whether the role may take the action: admin may do everything support may. */
export function mayTake(role: OperatorRole, action: OperatorAction): boolean {
  return role === 'admin' || operatorActions[action] === role
}

const emailPattern = /^[^@\s,:]{1,64}@[^@\s,:]+\.[^@\s,:]+$/

/**
 * `ana@example.com:admin,joao@example.com:support`: e-mails (compared lower-case) and roles. A
 * malformed entry, an unknown role or an e-mail listed twice is refused: the service does not
 * start with a list it had to guess at.
 */
export function parseOperators(text: string): Operator[] {
  const operators: Operator[] = []
  for (const entry of text.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const at = entry.lastIndexOf(':')
    const email = (at < 0 ? entry : entry.slice(0, at)).trim().toLowerCase()
    const role = at < 0 ? '' : entry.slice(at + 1).trim()
    if (!emailPattern.test(email) || email.length > 254) throw new Error(`has "${entry}", which is not e-mail:role`)
    if (!(operatorRoles as readonly string[]).includes(role)) throw new Error(`gives ${email} the role "${role}"; roles are ${operatorRoles.join(', ')}`)
    if (operators.some((operator) => operator.email === email)) throw new Error(`lists ${email} twice`)
    operators.push({ email, role: role as OperatorRole })
  }
  return operators
}

export function findOperator(operators: readonly Operator[], email: string): Operator | null {
  return operators.find((operator) => operator.email === email.trim().toLowerCase()) ?? null
}
