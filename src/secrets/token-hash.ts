// API tokens are stored as their SHA-256 (decisions 6): a database leak yields no usable token.
import { createHash } from 'node:crypto'

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}
