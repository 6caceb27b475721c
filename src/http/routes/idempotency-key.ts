import { DomainError } from '../../domain/errors.ts'

const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/

/** The Idempotency-Key header of a create (a charge, a withdrawal): 1 to 255 printable ASCII characters, or none. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined
  if (typeof header !== 'string' || !idempotencyKeyPattern.test(header)) {
    throw new DomainError('idempotency_key_invalid', { param: 'Idempotency-Key' })
  }
  return header
}
