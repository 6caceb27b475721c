import type { Kysely } from 'kysely'
import type { Database } from './schema.ts'

/** Every operator action: who, what, on what, why, when. */
export function auditRepository(db: Kysely<Database>) {
  return {
    async record(entry: { actor: string; action: string; subject: string; details: Record<string, unknown>; at: Date }): Promise<void> {
      await db.insertInto('audit_log').values({ ...entry, details: JSON.stringify(entry.details) }).execute()
    },

    list(limit = 100) {
      return db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(limit).execute()
    },
  }
}
