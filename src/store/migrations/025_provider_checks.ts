import { sql, type Kysely } from 'kysely'

// The deployment's last check of the provider (its /ping), which /readyz of every instance reads:
// the provider allows one ping a minute for the whole account, so no instance may keep its own.
// One row per kind of check; `claimed_at` is an instance on its way to ask, so no other asks too.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table provider_checks (
      name text primary key,
      checked_at timestamptz,
      ok boolean,
      detail text,
      claimed_at timestamptz
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table provider_checks`.execute(db)
}
