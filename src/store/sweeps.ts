import type { Kysely } from 'kysely'
import type { SweepCursor } from '../domain/reconciliation.ts'
import type { Database } from './schema.ts'

/** Where the deposit sweep stands, per provider status (domain/reconciliation.ts reads the windows). */
export function sweepsRepository(db: Kysely<Database>) {
  return {
    async cursor(status: string, initialSpanMs: number): Promise<SweepCursor> {
      const row = await db.selectFrom('provider_sweeps').select(['cursor_at', 'span_ms']).where('status', '=', status).executeTakeFirst()
      return row ? { cursor: row.cursor_at, spanMs: row.span_ms } : { cursor: null, spanMs: initialSpanMs }
    },

    async save(status: string, state: SweepCursor): Promise<void> {
      const values = { cursor_at: state.cursor, span_ms: state.spanMs }
      await db.insertInto('provider_sweeps').values({ status, ...values }).onConflict((oc) => oc.column('status').doUpdateSet(values)).execute()
    },
  }
}
