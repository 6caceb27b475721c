import { sql, type Kysely } from 'kysely'

// Money the provider takes back, refunds owed, sane quotes and reconciliation without blind spots
// (docs/rules.md#clawbacks):
// - a charge keeps what was taken back (DEPIX centavos, and what that took from the account), the
//   latest claw-back the provider reported, and where its paid amount came from;
// - every claw-back report is kept (deduplicated per charge), refund obligations are rows;
// - prices are micro-reais (USDt keeps its decimals); overrides expire; the last accepted price
//   per currency is the reference fetched prices are checked against;
// - the deposit sweep keeps a cursor per provider status;
// - MEDs posted the old way (the credited currency into provider_clearing, nothing for the DePix
//   the provider took) are restated in DEPIX against clearing, through conversion and MED losses,
//   so the books say what happened. The accounts' own entries do not change.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table charges add column taken_back_cents int8 not null default 0`.execute(db)
  await sql`alter table charges add column taken_back_units int8 not null default 0`.execute(db)
  await sql`alter table charges add column clawback text check (clawback in ('med', 'refunded', 'will_refund'))`.execute(db)
  await sql`alter table charges add column taken_back_all boolean not null default false`.execute(db)
  await sql`alter table charges add column provider_returning boolean not null default false`.execute(db)
  await sql`alter table charges add column paid_source text check (paid_source in ('provider', 'support', 'charge_value'))`.execute(db)
  await sql`update charges set paid_source = 'provider' where paid_cents is not null`.execute(db)
  // Credits made before the paid amount was kept were computed from the charge value.
  await sql`update charges set paid_cents = value_cents, paid_source = 'charge_value' where paid_cents is null and credited_units is not null`.execute(db)

  await sql`alter table charges add column quote_micros int8`.execute(db)
  await sql`update charges set quote_micros = quote_cents * 10000 where quote_cents is not null`.execute(db)
  await sql`alter table charges drop column quote_cents`.execute(db)

  await sql`alter table quotes add column brl_micros int8`.execute(db)
  await sql`alter table quotes add column expires_at timestamptz`.execute(db)
  await sql`update quotes set brl_micros = brl_cents * 10000, expires_at = updated_at + interval '1 hour'`.execute(db)
  await sql`alter table quotes drop column brl_cents`.execute(db)
  await sql`alter table quotes alter column brl_micros set not null`.execute(db)
  await sql`alter table quotes alter column expires_at set not null`.execute(db)
  await sql`alter table quotes add constraint quotes_positive check (brl_micros > 0)`.execute(db)

  await sql`
    create table quote_references (
      currency text primary key check (currency in ('BTC', 'USDt')),
      brl_micros int8 not null check (brl_micros > 0),
      source text not null,
      accepted_at timestamptz not null
    )`.execute(db)

  await sql`
    create table charge_clawbacks (
      id int8 generated always as identity primary key,
      charge_id text not null references charges(id),
      report_key text not null,
      kind text not null check (kind in ('med', 'refunded', 'will_refund')),
      principal_cents int8,
      taken_back_cents int8 not null,
      charge_status text not null,
      report jsonb not null,
      reported_at timestamptz not null,
      unique (charge_id, report_key)
    )`.execute(db)

  await sql`
    create table refunds (
      id text primary key,
      charge_id text not null unique references charges(id),
      amount_cents int8 not null check (amount_cents > 0),
      owed_cents int8 not null check (owed_cents >= 0),
      paid_by_us_cents int8 not null default 0,
      loss_cents int8 not null default 0,
      payer_name text,
      payer_tax_number text,
      status text not null check (status in ('owed', 'paid', 'taken_back')),
      created_by text not null,
      created_at timestamptz not null,
      settled_by text,
      settled_at timestamptz,
      reference text
    )`.execute(db)
  await sql`create index refunds_owed on refunds (created_at) where status = 'owed'`.execute(db)

  await sql`
    create table provider_sweeps (
      status text primary key,
      cursor_at timestamptz,
      span_ms int8 not null
    )`.execute(db)

  // Reading one charge's postings (the ledger check, a charge's history) walks these.
  await sql`create index ledger_postings_charge on ledger_postings (charge_id) where charge_id is not null`.execute(db)
  await sql`create index ledger_entries_posting on ledger_entries (posting_id)`.execute(db)

  // The old MED postings, restated: their account entries stand; their service entries are
  // replaced by what the provider did. For each, one posting nets to exactly the difference.
  const restated = await sql<{ charge_id: string; currency: string; arrived: string; credited: string; created_at: Date }>`
    select p.charge_id, c.currency, coalesce(c.paid_cents, c.value_cents)::text as arrived,
           coalesce(c.credited_units, 0)::text as credited, p.created_at
    from ledger_postings p join charges c on c.id = p.charge_id
    where p.kind = 'med_debit'`.execute(db)
  for (const row of restated.rows) {
    const arrived = Number(row.arrived)
    const credited = Number(row.credited)
    const fee = Math.min(100, Math.max(0, arrived))
    const net = arrived - fee
    const entries: Array<[string, string, number]> = row.currency === 'DEPIX'
      ? [['provider_clearing', 'DEPIX', arrived - credited], ['med_losses', 'DEPIX', -(arrived - credited)]]
      : [
          ['provider_clearing', row.currency, -credited],
          ['provider_clearing', 'DEPIX', arrived],
          ['conversion', 'DEPIX', -net],
          ['conversion', row.currency, credited],
          ['med_losses', 'DEPIX', -fee],
        ]
    const posting = await sql<{ id: string }>`
      insert into ledger_postings (key, charge_id, kind, created_at)
      values (${`clawback_restated:${row.charge_id}`}, ${row.charge_id}, 'clawback', ${row.created_at}) returning id::text as id`.execute(db)
    for (const [book, currency, amount] of entries.filter(([, , amount]) => amount !== 0)) {
      await sql`insert into ledger_entries (posting_id, account_id, book, currency, amount) values (${posting.rows[0]!.id}, null, ${book}, ${currency}, ${amount})`.execute(db)
    }
    await sql`update charges set taken_back_cents = ${arrived}, taken_back_units = ${credited}, taken_back_all = true, clawback = 'med' where id = ${row.charge_id}`.execute(db)
  }
  await sql`update ledger_postings set kind = 'clawback' where kind = 'med_debit'`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index ledger_entries_posting`.execute(db)
  await sql`drop index ledger_postings_charge`.execute(db)
  for (const table of ['provider_sweeps', 'refunds', 'charge_clawbacks', 'quote_references']) await sql`drop table ${sql.table(table)}`.execute(db)
  await sql`alter table quotes drop constraint quotes_positive`.execute(db)
  await sql`alter table quotes add column brl_cents int8`.execute(db)
  await sql`update quotes set brl_cents = brl_micros / 10000`.execute(db)
  await sql`alter table quotes drop column brl_micros`.execute(db)
  await sql`alter table quotes drop column expires_at`.execute(db)
  await sql`alter table charges add column quote_cents int8`.execute(db)
  await sql`update charges set quote_cents = quote_micros / 10000 where quote_micros is not null`.execute(db)
  for (const column of ['quote_micros', 'paid_source', 'provider_returning', 'taken_back_all', 'clawback', 'taken_back_units', 'taken_back_cents']) {
    await sql`alter table charges drop column ${sql.ref(column)}`.execute(db)
  }
}
