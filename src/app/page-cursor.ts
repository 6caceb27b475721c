// The one page-walking rule of every list by keyset (charges, withdrawals, the statement, the
// exports): newest first, an opaque cursor naming the last row's key, one row more read than the
// page to tell whether another follows, and dates in ISO 8601.
import { DomainError } from '../domain/errors.ts'

/** A row's key: its creation time and id (ties broken by id). */
export type Keyset = { createdAt: Date; id: string }

const opaque = (text: string) => Buffer.from(text).toString('base64url')

/**
 * A cursor's text matched by the list's own pattern: null for the first page, refused when it was
 * not given by us (or `valid` says its parts are not).
 */
export function readCursor(value: string | undefined, pattern: RegExp, valid: (match: RegExpExecArray) => boolean = () => true): RegExpExecArray | null {
  if (value === undefined || value === '') return null
  const match = pattern.exec(Buffer.from(value, 'base64url').toString('latin1'))
  if (!match || !valid(match)) throw new DomainError('invalid_request', { param: 'cursor', message: 'This cursor was not given by us.' })
  return match
}

/** The cursor is opaque to clients: the last row's creation time and id, base64url. */
function encodeCursor(row: { created_at: Date; id: string }): string {
  return opaque(`${row.created_at.getTime()}_${row.id}`)
}

/** A key-named cursor of another list (the statement's names a posting and its part). */
export function encodeKeyCursor(text: string): string {
  return opaque(text)
}

function parseCursor(value: string | undefined, isId: (id: string) => boolean): Keyset | null {
  const match = readCursor(value, /^(\d{1,15})_(\w+)$/, (found) => isId(found[2]!))
  return match === null ? null : { createdAt: new Date(Number(match[1])), id: match[2]! }
}

/** One page after the cursor, and the cursor of the next page when there is one. */
export async function keysetPage<Row extends { created_at: Date; id: string }>(
  page: { cursor: string | undefined; limit: number; isId: (id: string) => boolean },
  read: (before: Keyset | null, limit: number) => Promise<Row[]>,
): Promise<{ rows: Row[]; nextCursor: string | null }> {
  const found = await read(parseCursor(page.cursor, page.isId), page.limit + 1)
  const rows = found.slice(0, page.limit)
  return { rows, nextCursor: found.length > page.limit ? encodeCursor(rows.at(-1)!) : null }
}

/** Every row, a batch at a time (an export), each batch read after the last row of the one before. */
export async function* keysetBatches<Row extends { created_at: Date; id: string }>(batch: number, read: (before: Keyset | null) => Promise<Row[]>): AsyncGenerator<Row[]> {
  let before: Keyset | null = null
  for (;;) {
    const rows = await read(before)
    if (rows.length > 0) yield rows
    if (rows.length < batch) return
    const last = rows.at(-1)!
    before = { createdAt: last.created_at, id: last.id }
  }
}

export function dateFilter(value: string | undefined, param: string): Date | null {
  if (value === undefined || value === '') return null
  const date = new Date(value)
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(value) || Number.isNaN(date.getTime())) {
    throw new DomainError('invalid_request', { param, message: `${param} must be an ISO 8601 date or time.` })
  }
  return date
}
