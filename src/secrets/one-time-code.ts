// The 6-digit codes mailed to an owner (to sign in, to confirm a destination or a withdrawal):
// random, kept only as a hash bound to the e-mail and to what the code allows, compared in
// constant time.
import { createHash, randomInt, timingSafeEqual } from 'node:crypto'

export const CODE_VALIDITY_MS = 10 * 60 * 1000
export const MAX_WRONG_TRIES = 5

export function newCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0')
}

/**
 * The stored form of a code: the e-mail and, for an action, its purpose and subject (a withdrawal's
 * amount and destination) are in the hash, so a code works for nothing else. Sign-in codes hash
 * the e-mail alone, as they always have.
 */
export function codeHash(email: string, code: string, bound?: { purpose: string; subject: string }): Buffer {
  const input = bound === undefined ? `${email}\n${code}` : `${email}\n${bound.purpose}\n${bound.subject}\n${code}`
  return createHash('sha256').update(input).digest()
}

/** The candidates the given code matches, each compared in constant time so timing says nothing of which. */
export function matchingCodes<T extends { code_hash: string }>(candidates: readonly T[], given: Buffer): T[] {
  return candidates.filter((candidate) => timingSafeEqual(given, Buffer.from(candidate.code_hash, 'hex')))
}

/** A typed code as a code: six digits, or something that matches no hash. */
export function typedCode(input: string): string {
  return /^\d{6}$/.test(input.trim()) ? input.trim() : 'x'
}
