import { sql, type Kysely } from 'kysely'

// The quote a conversion used is recorded with where it came from and when it was taken.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table charges add column quote_source text`.execute(db)
  await sql`alter table charges add column quote_at timestamptz`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table charges drop column quote_at`.execute(db)
  await sql`alter table charges drop column quote_source`.execute(db)
}
