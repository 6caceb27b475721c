import { sql, type Kysely } from 'kysely'

// Times are always written by the service from its injected clock, never by now(), so the
// sandbox clock and tests can move time.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table accounts (
      id int8 generated always as identity primary key,
      email text not null unique,
      owner_tax_number text,
      owner_name text,
      euid text unique,
      kyc text not null default 'none' check (kyc in ('none', 'unidentified', 'verified')),
      created_at timestamptz not null
    )`.execute(db)

  await sql`
    create table api_tokens (
      id text primary key,
      account_id int8 not null references accounts(id),
      token_hash text not null unique,
      status text not null check (status in ('active', 'pending', 'revoked')),
      merchant_id text,
      expires_at timestamptz,
      created_at timestamptz not null,
      revoked_at timestamptz
    )`.execute(db)
  // Spec: one live token per account. Issuance locks the account row; this index is the backstop.
  await sql`create unique index api_tokens_one_live_per_account on api_tokens (account_id) where status <> 'revoked'`.execute(db)

  await sql`
    create table identity_bindings (
      kind text not null check (kind in ('euid', 'tax_number')),
      value text not null,
      account_id int8 not null references accounts(id),
      bound_at timestamptz not null,
      primary key (kind, value)
    )`.execute(db)

  await sql`
    create table blocks (
      id int8 generated always as identity primary key,
      kind text not null check (kind in ('email', 'tax_number', 'euid')),
      value text not null,
      reason text not null,
      charge_id text,
      created_by text not null,
      created_at timestamptz not null
    )`.execute(db)
  await sql`create index blocks_identity on blocks (kind, value)`.execute(db)

  await sql`
    create table charges (
      id text primary key,
      merchant_account_id int8 not null references accounts(id),
      merchant_id text not null,
      account_id int8 not null references accounts(id),
      value_cents int8 not null,
      currency text not null check (currency in ('DEPIX', 'BTC', 'USDt')),
      informed_euid text,
      informed_tax_number text,
      informed_payer_name text,
      webhook_url text,
      webhook_secret text,
      provider_deposit_id text not null unique,
      qr_copy_paste text not null,
      status text not null,
      provider_status text not null,
      payer_name text,
      payer_tax_number text,
      payer_euid text,
      confirmed_at timestamptz,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db)
  await sql`create index charges_merchant on charges (merchant_account_id, created_at)`.execute(db)
  await sql`create index charges_payer_euid on charges (payer_euid, status) where payer_euid is not null`.execute(db)

  await sql`
    create table idempotency_keys (
      account_id int8 not null references accounts(id),
      key text not null,
      request_hash text not null,
      state text not null check (state in ('in_flight', 'done')),
      response_status int4,
      response_body jsonb,
      created_at timestamptz not null,
      primary key (account_id, key)
    )`.execute(db)

  await sql`
    create table jobs (
      id int8 generated always as identity primary key,
      kind text not null,
      payload jsonb not null,
      run_at timestamptz not null,
      attempts int4 not null default 0,
      locked_until timestamptz,
      last_error text,
      created_at timestamptz not null
    )`.execute(db)
  await sql`create index jobs_due on jobs (run_at)`.execute(db)

  // Double-entry ledger: a posting's entries sum to zero per currency; its key makes a replayed
  // event post nothing. Customer books carry account_id; the service's own books do not.
  await sql`
    create table ledger_postings (
      id int8 generated always as identity primary key,
      key text not null unique,
      charge_id text references charges(id),
      kind text not null,
      created_at timestamptz not null
    )`.execute(db)
  await sql`
    create table ledger_entries (
      id int8 generated always as identity primary key,
      posting_id int8 not null references ledger_postings(id),
      account_id int8 references accounts(id),
      book text not null,
      currency text not null check (currency in ('DEPIX', 'BTC', 'USDt')),
      amount int8 not null
    )`.execute(db)
  await sql`create index ledger_entries_account on ledger_entries (account_id, book, currency) include (amount)`.execute(db)

  await sql`
    create table quotes (
      currency text primary key check (currency in ('BTC', 'USDt')),
      brl_cents int8 not null check (brl_cents > 0),
      updated_at timestamptz not null
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['quotes', 'ledger_entries', 'ledger_postings', 'jobs', 'idempotency_keys', 'charges', 'blocks', 'identity_bindings', 'api_tokens', 'accounts']) {
    await sql`drop table ${sql.table(table)}`.execute(db)
  }
}
