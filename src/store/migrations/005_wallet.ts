import { sql, type Kysely } from 'kysely'

// The Wallet (docs/rules.md#wallet): sign-in codes, sessions (both stored hashed), what a token
// shows after it is issued (last 4 characters, last use), and identity purchases, which are charges
// made for the account owner without a merchantId.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table wallet_codes (
      id int8 generated always as identity primary key,
      email text not null,
      code_hash text not null,
      signup jsonb,
      attempts int4 not null default 0,
      used_at timestamptz,
      expires_at timestamptz not null,
      created_at timestamptz not null,
      requested_from text not null
    )`.execute(db)
  await sql`create index wallet_codes_email on wallet_codes (email, created_at)`.execute(db)
  await sql`create index wallet_codes_address on wallet_codes (requested_from, created_at)`.execute(db)
  await sql`
    create table wallet_sessions (
      id_hash text primary key,
      account_id int8 references accounts(id),
      data jsonb not null,
      created_at timestamptz not null,
      last_seen_at timestamptz not null
    )`.execute(db)
  await sql`create index wallet_sessions_account on wallet_sessions (account_id)`.execute(db)
  await sql`alter table api_tokens add column last4 text`.execute(db)
  await sql`alter table api_tokens add column last_used_at timestamptz`.execute(db)
  await sql`alter table charges alter column merchant_id drop not null`.execute(db)
  await sql`create index charges_account on charges (account_id, created_at)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index charges_account`.execute(db)
  await sql`alter table charges alter column merchant_id set not null`.execute(db)
  await sql`alter table api_tokens drop column last_used_at`.execute(db)
  await sql`alter table api_tokens drop column last4`.execute(db)
  await sql`drop table wallet_sessions`.execute(db)
  await sql`drop table wallet_codes`.execute(db)
}
