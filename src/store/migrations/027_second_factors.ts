import { sql, type Kysely } from 'kysely'

// Second factors (docs/design.md, "Second factors"): passkeys and TOTP for account owners and for
// operators, each named by its holder (`account:<id>` or `operator:<e-mail>`). A passkey keeps its
// WebAuthn credential (id, public key, signature counter, transports); a TOTP factor keeps its
// secret sealed, never in the clear, and the last time step it accepted, so a code is taken once.
// Recovery codes are kept hashed and used once. Removing a holder's last factor, or a support
// reset, waits 72 hours in factor_removals before it takes effect.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table second_factors (
      id int8 generated always as identity primary key,
      holder text not null,
      kind text not null check (kind in ('passkey', 'totp')),
      name text not null,
      credential_id text unique,
      public_key text,
      counter int8,
      transports jsonb,
      totp_secret_sealed text,
      totp_last_step int8,
      created_at timestamptz not null,
      last_used_at timestamptz,
      check ((kind = 'passkey') = (credential_id is not null and public_key is not null and counter is not null)),
      check ((kind = 'totp') = (totp_secret_sealed is not null))
    )`.execute(db)
  await sql`create index second_factors_holder on second_factors (holder, id)`.execute(db)
  await sql`
    create table recovery_codes (
      id int8 generated always as identity primary key,
      holder text not null,
      code_hash text not null,
      created_at timestamptz not null,
      used_at timestamptz
    )`.execute(db)
  await sql`create index recovery_codes_holder on recovery_codes (holder) where used_at is null`.execute(db)
  await sql`
    create table factor_removals (
      id int8 generated always as identity primary key,
      holder text not null,
      -- one factor (the holder's last), or every factor (a support reset)
      factor_id int8 references second_factors(id) on delete cascade,
      requested_by text not null,
      requested_at timestamptz not null,
      effective_at timestamptz not null,
      canceled_at timestamptz,
      done_at timestamptz
    )`.execute(db)
  await sql`create unique index factor_removals_one_open on factor_removals (holder) where canceled_at is null and done_at is null`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table factor_removals`.execute(db)
  await sql`drop table recovery_codes`.execute(db)
  await sql`drop table second_factors`.execute(db)
}
