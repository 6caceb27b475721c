// API tokens are stored as their SHA-256 (docs/rules.md#tokens): a database leak yields no usable token.
import { hash } from 'node:crypto'

/** Every authenticated request hashes its token: one-shot, without a Hash object (docs/performance.md, "Smaller choices, measured"). */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex')
}
