// The embedded database's upkeep. PGlite is PostgreSQL in one process, without the autovacuum
// workers a server runs beside it: the versions left by deletes and updates (every job, each
// charge's moves, sessions, rate buckets) are never reclaimed, so tables and their indexes only
// grow, and the planner's statistics never follow the data.
import { sql, type Kysely } from 'kysely'
import type { Database } from './schema.ts'

export function upkeepRepository(db: Kysely<Database>) {
  return {
    /**
     * VACUUM (ANALYZE) of every table of the schema, one statement a table: the embedded
     * database runs one statement at a time, and requests waiting on it get in between tables.
     * Answers the tables vacuumed. Never inside a transaction (VACUUM cannot run in one).
     */
    async vacuumTables(): Promise<string[]> {
      const { rows } = await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema() order by tablename`.execute(db)
      for (const { name } of rows) await sql`vacuum (analyze) ${sql.table(name)}`.execute(db)
      return rows.map(({ name }) => name)
    },
  }
}
