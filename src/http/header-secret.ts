// Compares an Authorization header with the ones accepted, in constant time whatever the lengths:
// both sides are hashed first, so neither length nor content leaks through timing. During a
// rotation two headers are accepted (the current secret's and the previous one's); each is
// compared every time, so timing does not tell which one matched either.
import { createHash, timingSafeEqual } from 'node:crypto'

const digest = (value: string) => createHash('sha256').update(value).digest()

export function headerMatcher(expectedHeaders: readonly string[]): (header: unknown) => boolean {
  const expected = expectedHeaders.map(digest)
  return (header) => {
    if (typeof header !== 'string') return false
    const given = digest(header)
    let matched = false
    for (const candidate of expected) matched = timingSafeEqual(given, candidate) || matched
    return matched
  }
}
