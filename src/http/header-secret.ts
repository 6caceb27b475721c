// Compares an Authorization header with the one expected, in constant time whatever the lengths:
// both sides are hashed first, so neither length nor content leaks through timing.
import { createHash, timingSafeEqual } from 'node:crypto'

const digest = (value: string) => createHash('sha256').update(value).digest()

export function headerMatcher(expectedHeader: string): (header: unknown) => boolean {
  const expected = digest(expectedHeader)
  return (header) => typeof header === 'string' && timingSafeEqual(digest(header), expected)
}
