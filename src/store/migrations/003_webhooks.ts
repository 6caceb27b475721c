import { sql, type Kysely } from 'kysely'

// A merchant webhook event keeps the exact bytes it sends, so every attempt and every
// redelivery signs and sends the same body under the same webhook-id.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_events (
      id text primary key,
      charge_id text not null references charges(id),
      event text not null,
      body text not null,
      state text not null check (state in ('pending', 'delivered', 'failed', 'gone')),
      attempts int4 not null default 0,
      created_at timestamptz not null,
      delivered_at timestamptz
    )`.execute(db)
  await sql`create index webhook_events_charge on webhook_events (charge_id, created_at)`.execute(db)
  await sql`
    create table webhook_attempts (
      id int8 generated always as identity primary key,
      event_id text not null references webhook_events(id),
      at timestamptz not null,
      status_code int4,
      duration_ms int4 not null,
      error text
    )`.execute(db)
  await sql`create index webhook_attempts_event on webhook_attempts (event_id, id)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table webhook_attempts`.execute(db)
  await sql`drop table webhook_events`.execute(db)
}
