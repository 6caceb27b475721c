import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table charges add column hold_reason text`.execute(db)
  await sql`alter table charges add column quote_cents int8`.execute(db)
  await sql`alter table charges add column credited_units int8`.execute(db)
  await sql`alter table charges add column release_at timestamptz`.execute(db)
  await sql`create index charges_status on charges (status, created_at)`.execute(db)

  await sql`
    create table audit_log (
      id int8 generated always as identity primary key,
      actor text not null,
      action text not null,
      subject text not null,
      details jsonb not null,
      at timestamptz not null
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table audit_log`.execute(db)
  await sql`drop index charges_status`.execute(db)
  for (const column of ['release_at', 'credited_units', 'quote_cents', 'hold_reason']) {
    await sql`alter table charges drop column ${sql.ref(column)}`.execute(db)
  }
}
