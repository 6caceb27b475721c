// Second factors (docs/design.md, "Second factors"): a passkey or a TOTP app guards what moves
// money or trust, so a mailbox alone is never enough. These are the rules as pure functions: how
// fresh a check must be, how long the removal of a last factor waits, what a recovery code looks
// like, and which actions need a fresh check (a step-up).

/** A factor checked this recently counts for a money action (step-up). */
export const STEP_UP_MS = 5 * 60 * 1000
/** Removing a holder's last factor, or a support reset, takes effect this long after it is asked. */
export const REMOVAL_WAIT_MS = 72 * 3600 * 1000
/** How many recovery codes a holder gets, each used once. */
export const RECOVERY_CODE_COUNT = 10
/** A sign-in's e-mail code waits this long at most for its second factor. */
export const PENDING_SIGN_IN_MS = 10 * 60 * 1000

export type FactorKind = 'passkey' | 'totp'

/** Who holds factors: an account's owner, or an operator (by e-mail). */
export type Holder = `account:${number}` | `operator:${string}`

export function accountHolder(accountId: number): Holder {
  return `account:${accountId}`
}

export function operatorHolder(email: string): Holder {
  return `operator:${email.trim().toLowerCase()}`
}

/** Whether a factor checked at `checkedAt` still counts at `now` (never when the clock went back past it). */
export function stepUpFresh(checkedAt: number | null | undefined, now: Date): boolean {
  if (typeof checkedAt !== 'number') return false
  const age = now.getTime() - checkedAt
  return age >= 0 && age <= STEP_UP_MS
}

export function removalEffectiveAt(requestedAt: Date): Date {
  return new Date(requestedAt.getTime() + REMOVAL_WAIT_MS)
}

/** Letters and digits that cannot be misread for one another (no 0/O, 1/I/L). */
export const RECOVERY_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ'

/** A recovery code as it is shown: three groups of four, e.g. `7KQM-2XHD-9RTB`. */
export function formatRecoveryCode(characters: string): string {
  return characters.match(/.{1,4}/g)!.join('-')
}

/**
 * A typed recovery code in its one stored form: upper case, without spaces or dashes. Anything
 * not 12 characters of the alphabet is null.
 */
export function normalizeRecoveryCode(input: string): string | null {
  const compact = input.toUpperCase().replace(/[\s-]/g, '')
  if (compact.length !== 12) return null
  for (const character of compact) if (!RECOVERY_ALPHABET.includes(character)) return null
  return compact
}

/** What an owner does in the Wallet that needs a fresh factor, once the owner has one. */
export const ownerStepUpActions = ['destination.add', 'destination.confirm', 'withdrawal.confirm', 'token.issue', 'factor.remove'] as const
export type OwnerStepUpAction = (typeof ownerStepUpActions)[number]

/**
 * What an operator does in the console that needs a fresh factor: releasing or reviewing a hold,
 * ordering or reviewing a refund payout, reviewing a withdrawal, quotes, identity releases, token
 * activation, and a support reset of someone's factors. Blocks and recording a refund paid
 * elsewhere move no money from here and need the signed-in operator only.
 */
export const operatorStepUpActions = ['hold.review', 'refund.pay', 'withdrawal.review', 'quotes.set', 'identity.assign', 'token.activate', 'factors.reset'] as const

export function operatorActionNeedsStepUp(action: string): boolean {
  return (operatorStepUpActions as readonly string[]).includes(action)
}

/** The name a factor is shown by: trimmed, single-spaced, 1 to 60 characters, else the default. */
export function factorName(input: string, fallback: string): string {
  const name = input.trim().replace(/\s+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '')
  return name === '' ? fallback : name.slice(0, 60)
}
