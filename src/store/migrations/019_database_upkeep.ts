import { sql, type Kysely } from 'kysely'

// One upkeep job per deployment (app/vacuum-database.ts), queued where the database is PGlite.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create unique index jobs_one_vacuum_database on jobs (kind) where kind = 'vacuum_database'`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index jobs_one_vacuum_database`.execute(db)
}
