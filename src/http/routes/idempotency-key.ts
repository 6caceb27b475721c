import { DomainError } from '../../domain/errors.ts'
import { idempotencyKeyPattern } from '../schemas.ts'

const idempotencyKey = new RegExp(idempotencyKeyPattern)

/** A header no key can match is refused as the header it is (the routes' schema says the same pattern). */
export const idempotencyKeyCodes = { 'idempotency-key': 'idempotency_key_invalid' } as const

/** The Idempotency-Key header of a create (a charge, a withdrawal): 1 to 255 printable ASCII characters, or none. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined
  if (typeof header !== 'string' || !idempotencyKey.test(header)) {
    throw new DomainError('idempotency_key_invalid', { param: 'Idempotency-Key' })
  }
  return header
}
