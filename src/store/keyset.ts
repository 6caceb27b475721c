import { sql, type RawBuilder } from 'kysely'

/**
 * Where a page resumes: the last row's time (the list's own: created, updated, first seen) and
 * id, ties broken by id.
 */
export type RowKey = { at: Date; id: string }

/** The one keyset condition of the newest-first lists (app/page-cursor.ts makes and reads the cursor). */
export function olderThan(table: 'charges' | 'withdrawals' | 'payment_links', before: RowKey): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${table}.created_at`)}, ${sql.ref(`${table}.id`)}) < (${before.at}, ${before.id})`
}

/** The same condition for the oldest-first lists (the support queues), by their own time column. */
export function newerThan(time: string, id: string, after: RowKey): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(time)}, ${sql.ref(id)}) > (${after.at}, ${after.id})`
}
