import { sql, type Kysely } from 'kysely'

// Token buckets every instance of a deployment draws from, so limits that protect the provider
// account hold for the deployment, not per instance.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table rate_buckets (
      key text primary key,
      tokens float8 not null,
      updated_at timestamptz not null
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table rate_buckets`.execute(db)
}
