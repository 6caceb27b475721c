import { sql, type Kysely } from 'kysely'

// A delivery's destination host as a column with an index, so the runner's claim finds the
// destinations with due deliveries by walking the index instead of reading every queued job.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table jobs add column destination text generated always as (payload->>'destination') stored`.execute(db)
  await sql`create index jobs_deliveries on jobs (destination, run_at) where kind = 'deliver_webhook'`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index jobs_deliveries`.execute(db)
  await sql`alter table jobs drop column destination`.execute(db)
}
