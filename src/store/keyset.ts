import { sql, type RawBuilder } from 'kysely'

/** Where a newest-first page resumes: rows strictly older than the cursor's (creation time, then id). */
export type PageBefore = { createdAt: Date; id: string }

/** The one keyset condition of every list (app/page-cursor.ts makes and reads the cursor). */
export function olderThan(table: 'charges' | 'withdrawals' | 'payment_links', before: PageBefore): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${table}.created_at`)}, ${sql.ref(`${table}.id`)}) < (${before.createdAt}, ${before.id})`
}
