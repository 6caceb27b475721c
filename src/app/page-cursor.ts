// The one page-walking rule of every list by keyset (charges, withdrawals, the statement, the
// exports, the console's queues and audit log): an opaque cursor naming the last row's key, one row
// more read than the page to tell whether another follows, and dates in ISO 8601. The API's lists
// are newest first by (created_at, id); each queue is oldest first by its own time.
import { DomainError } from '../domain/errors.ts'
import type { RowKey } from '../store/keyset.ts'

/** How a list's rows follow each other: a row's key as a cursor's text, and read back (null: not this list's). */
export type CursorKey<Row, Key> = { write: (row: Row) => string; read: (text: string) => Key | null }

const opaque = (text: string) => Buffer.from(text).toString('base64url')

const refused = () => new DomainError('invalid_request', { param: 'cursor', message: 'This cursor was not given by us.' })

/** A cursor's text, or null for the first page. */
function cursorText(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : Buffer.from(value, 'base64url').toString()
}

/**
 * A cursor's text matched by the list's own pattern: null for the first page, refused when it was
 * not given by us (or `valid` says its parts are not).
 */
export function readCursor(value: string | undefined, pattern: RegExp, valid: (match: RegExpExecArray) => boolean = () => true): RegExpExecArray | null {
  const text = cursorText(value)
  if (text === null) return null
  const match = pattern.exec(text)
  if (!match || !valid(match)) throw refused()
  return match
}

/** A key-named cursor of another list (the statement's names a posting and its part). */
export function encodeKeyCursor(text: string): string {
  return opaque(text)
}

/**
 * The key of most lists: a time (the list's own) and an id, ties broken by id; the id checked by
 * `isId`. A time past 2286 (14 digits) is none we wrote, and one the database could not read back.
 */
export function timeAndId<Row>(keyOf: (row: Row) => RowKey, isId: (id: string) => boolean): CursorKey<Row, RowKey> {
  return {
    write: (row) => {
      const key = keyOf(row)
      return `${key.at.getTime()}_${key.id}`
    },
    read: (text) => {
      const match = /^(\d{1,13})_(.+)$/.exec(text)
      return match && isId(match[2]!) ? { at: new Date(Number(match[1])), id: match[2]! } : null
    },
  }
}

/** One page after the cursor, and the cursor of the next page when there is one. */
export async function pageAfter<Row, Key>(
  page: { cursor: string | undefined; limit: number },
  key: CursorKey<Row, Key>,
  read: (after: Key | null, limit: number) => Promise<Row[]>,
): Promise<{ rows: Row[]; nextCursor: string | null }> {
  const text = cursorText(page.cursor)
  const after = text === null ? null : key.read(text)
  if (text !== null && after === null) throw refused()
  const found = await read(after, page.limit + 1)
  const rows = found.slice(0, page.limit)
  return { rows, nextCursor: found.length > page.limit ? opaque(key.write(rows.at(-1)!)) : null }
}

/** A page of a newest-first list by (created_at, id): the API's and the Wallet's. */
export function keysetPage<Row extends { created_at: Date; id: string }>(
  page: { cursor: string | undefined; limit: number; isId: (id: string) => boolean },
  read: (before: RowKey | null, limit: number) => Promise<Row[]>,
): Promise<{ rows: Row[]; nextCursor: string | null }> {
  return pageAfter(page, timeAndId((row: Row) => ({ at: row.created_at, id: row.id }), page.isId), read)
}

/** Every row, a batch at a time (an export), each batch read after the last row of the one before. */
export async function* keysetBatches<Row extends { created_at: Date; id: string }>(batch: number, read: (before: RowKey | null) => Promise<Row[]>): AsyncGenerator<Row[]> {
  let before: RowKey | null = null
  for (;;) {
    const rows = await read(before)
    if (rows.length > 0) yield rows
    if (rows.length < batch) return
    const last = rows.at(-1)!
    before = { at: last.created_at, id: last.id }
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
