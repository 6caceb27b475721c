// The one page-walking rule of every list (charges, withdrawals): newest first, an opaque cursor
// naming the last row's creation time and id, and dates in ISO 8601.
import { DomainError } from '../domain/errors.ts'

/** The cursor is opaque to clients: the last row's creation time and id, base64url. */
export function encodeCursor(row: { created_at: Date; id: string }): string {
  return Buffer.from(`${row.created_at.getTime()}_${row.id}`).toString('base64url')
}

export function parseCursor(value: string | undefined, isId: (id: string) => boolean): { createdAt: Date; id: string } | null {
  if (value === undefined || value === '') return null
  const match = /^(\d{1,15})_(\w+)$/.exec(Buffer.from(value, 'base64url').toString('latin1'))
  if (!match || !isId(match[2]!)) throw new DomainError('invalid_request', { param: 'cursor', message: 'This cursor was not given by us.' })
  return { createdAt: new Date(Number(match[1])), id: match[2]! }
}

export function dateFilter(value: string | undefined, param: string): Date | null {
  if (value === undefined || value === '') return null
  const date = new Date(value)
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(value) || Number.isNaN(date.getTime())) {
    throw new DomainError('invalid_request', { param, message: `${param} must be an ISO 8601 date or time.` })
  }
  return date
}
