import { sql, type Kysely } from 'kysely'

// The support console (docs/rules.md#console): operators sign in with the Wallet's codes (a
// purpose of their own, so their budget and tries are theirs) and have sessions of their own,
// stored hashed; a charge keeps what the provider reported and each status it took, so its
// timeline can be shown; the audit log is read by operator and by action; the daily digest to
// operators is one job per deployment.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table wallet_codes drop constraint wallet_codes_purpose_check`.execute(db)
  await sql`alter table wallet_codes add constraint wallet_codes_purpose_check check (purpose in ('sign_in', 'destination', 'withdrawal', 'console_sign_in'))`.execute(db)
  await sql`
    create table console_sessions (
      id_hash text primary key,
      operator_email text,
      data jsonb not null,
      created_at timestamptz not null,
      last_seen_at timestamptz not null
    )`.execute(db)
  await sql`
    create table charge_events (
      id int8 generated always as identity primary key,
      charge_id text not null references charges(id),
      -- a provider report (its body as received), or a change of status
      kind text not null check (kind in ('report', 'status')),
      source text,
      from_status text,
      to_status text,
      body jsonb,
      at timestamptz not null
    )`.execute(db)
  await sql`create index charge_events_charge on charge_events (charge_id, id)`.execute(db)
  await sql`create index audit_log_actor on audit_log (actor, id)`.execute(db)
  await sql`create index audit_log_action on audit_log (action, id)`.execute(db)
  await sql`create index audit_log_subject on audit_log (subject)`.execute(db)
  await sql`create unique index jobs_one_operator_digest on jobs (kind) where kind = 'operator_digest'`.execute(db)
  await sql`create index jobs_failing_reconciliations on jobs (attempts) where kind = 'reconcile_charge' and attempts >= 3`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index jobs_failing_reconciliations`.execute(db)
  await sql`drop index jobs_one_operator_digest`.execute(db)
  await sql`drop index audit_log_subject`.execute(db)
  await sql`drop index audit_log_action`.execute(db)
  await sql`drop index audit_log_actor`.execute(db)
  await sql`drop table charge_events`.execute(db)
  await sql`drop table console_sessions`.execute(db)
  await sql`delete from wallet_codes where purpose = 'console_sign_in'`.execute(db)
  await sql`alter table wallet_codes drop constraint wallet_codes_purpose_check`.execute(db)
  await sql`alter table wallet_codes add constraint wallet_codes_purpose_check check (purpose in ('sign_in', 'destination', 'withdrawal'))`.execute(db)
}
