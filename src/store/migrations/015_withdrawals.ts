import { sql, type Kysely } from 'kysely'

// Withdrawals (docs/rules.md#withdrawals). An owner's destinations (a Pix key of their own
// CPF/CNPJ, or a Liquid address matched by its script), each confirmed by an e-mail code and usable
// after a cool-down; withdrawals, whose every step toward the treasury or the provider is written
// before it is taken (the provider's nonce before POST /withdraw, the signed transaction before it
// is broadcast), so a crash resumes the same payout and never starts a second. Action codes share
// the sign-in codes' table, bound to their purpose and subject.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table withdrawal_destinations (
      id text primary key,
      account_id int8 not null references accounts(id),
      type text not null check (type in ('pix', 'liquid')),
      -- pix: the key as Eulen takes it (the CPF/CNPJ digits); liquid: the address as given
      value text not null,
      -- liquid: the output script, what "the same destination" means (confidential or not)
      script_hex text,
      label text,
      state text not null check (state in ('unconfirmed', 'confirmed', 'canceled')),
      created_at timestamptz not null,
      confirmed_at timestamptz,
      usable_at timestamptz,
      canceled_at timestamptz,
      cancel_token_hash text not null unique
    )`.execute(db)
  // One live destination per key or script per account.
  await sql`create unique index withdrawal_destinations_one on withdrawal_destinations (account_id, type, coalesce(script_hex, value)) where state <> 'canceled'`.execute(db)
  await sql`create index withdrawal_destinations_account on withdrawal_destinations (account_id, created_at)`.execute(db)

  await sql`
    create table withdrawals (
      id text primary key,
      account_id int8 not null references accounts(id),
      destination_id text not null references withdrawal_destinations(id),
      destination_type text not null check (destination_type in ('pix', 'liquid')),
      currency text not null check (currency in ('DEPIX', 'BTC', 'USDt')),
      amount int8 not null check (amount > 0),
      fee int8 not null check (fee >= 0),
      net_amount int8 not null check (net_amount > 0),
      -- Pix-out: what the key receives (estimated, then Eulen's word)
      payout_cents int8,
      -- the amount in BRL cents when it was asked for, for the rolling limits
      brl_cents int8 not null,
      status text not null,
      review_reason text,
      failure_code text,
      via text not null check (via in ('wallet', 'api')),
      -- the language the owner's e-mails about it are written in
      lang text not null check (lang in ('pt-BR', 'en')),
      webhook_url text,
      webhook_secret text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      confirmed_at timestamptz,
      sent_at timestamptz,
      completed_at timestamptz,
      -- the treasury's transaction: funded, then signed (hex and txid stored before broadcast)
      psbt text,
      tx_hex text,
      txid text,
      network_fee_sats int8,
      confirmations int4,
      -- the provider's payout (Pix-out): our nonce, stored before POST /withdraw, then its reply
      provider_nonce text unique,
      provider_withdrawal_id text unique,
      provider_deposit_address text,
      provider_deposit_cents int8,
      provider_expires_at timestamptz,
      provider_status text,
      provider_receipt_url text
    )`.execute(db)
  await sql`create index withdrawals_account on withdrawals (account_id, created_at desc, id desc)`.execute(db)
  await sql`create index withdrawals_review on withdrawals (updated_at) where status = 'in_review'`.execute(db)

  await sql`alter table ledger_postings add column withdrawal_id text references withdrawals(id)`.execute(db)
  await sql`create index ledger_postings_withdrawal on ledger_postings (withdrawal_id) where withdrawal_id is not null`.execute(db)

  // A withdrawal made through the API may carry webhook_url/webhook_secret like a charge.
  await sql`alter table webhook_events alter column charge_id drop not null`.execute(db)
  await sql`alter table webhook_events add column withdrawal_id text references withdrawals(id)`.execute(db)
  await sql`alter table webhook_events add constraint webhook_events_subject check ((charge_id is null) <> (withdrawal_id is null))`.execute(db)

  await sql`alter table wallet_codes add column purpose text not null default 'sign_in' check (purpose in ('sign_in', 'destination', 'withdrawal'))`.execute(db)
  await sql`alter table wallet_codes add column subject text`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table wallet_codes drop column subject`.execute(db)
  await sql`alter table wallet_codes drop column purpose`.execute(db)
  await sql`alter table webhook_events drop constraint webhook_events_subject`.execute(db)
  await sql`alter table webhook_events drop column withdrawal_id`.execute(db)
  await sql`alter table ledger_postings drop column withdrawal_id`.execute(db)
  await sql`drop table withdrawals`.execute(db)
  await sql`drop table withdrawal_destinations`.execute(db)
}
