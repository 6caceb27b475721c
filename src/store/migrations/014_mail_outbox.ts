import { sql, type Kysely } from 'kysely'

// The Wallet's mail leaves from the job queue: each message is a row, sealed (its code
// is readable only with the deployment's key), sent by a job, retried until its code expires.
// A sign-in code counts against its e-mail's hourly budget only once its mail was handed to the
// mail server (`mail_state` sent); a newer code supersedes one still waiting, so an outage never
// piles up mail for one address.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table wallet_codes add column mail_state text check (mail_state in ('pending', 'sent', 'failed', 'superseded'))`.execute(db)
  // Codes made before: their mail was sent in the request that made them.
  await sql`update wallet_codes set mail_state = 'sent'`.execute(db)
  await sql`
    create table mail_outbox (
      id int8 generated always as identity primary key,
      code_id int8 references wallet_codes(id),
      to_address text not null,
      sealed text not null,
      state text not null check (state in ('pending', 'sent', 'failed', 'superseded')),
      attempts int4 not null default 0,
      last_error text,
      last_attempt_at timestamptz,
      created_at timestamptz not null,
      send_before timestamptz not null,
      sent_at timestamptz
    )`.execute(db)
  await sql`create index mail_outbox_pending on mail_outbox (to_address) where state = 'pending'`.execute(db)
  await sql`create index mail_outbox_attempted on mail_outbox (last_attempt_at) where last_attempt_at is not null`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table mail_outbox`.execute(db)
  await sql`alter table wallet_codes drop column mail_state`.execute(db)
}
