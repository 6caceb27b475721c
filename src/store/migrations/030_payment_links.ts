import { sql, type Kysely } from 'kysely'

// Payment links (docs/payment-pages.md): an owner's reusable checkout, public at /l/{slug}. A
// payer's submit makes an ordinary charge that names its link. Uses are counted from the charges
// themselves (paid, or an unexpired QR still open), so there is no counter to drift.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table payment_links (
      id text primary key,
      slug text not null unique,
      account_id int8 not null references accounts(id),
      title text not null,
      description text,
      amount_cents int8 check (amount_cents > 0),
      min_cents int8 check (min_cents > 0),
      max_cents int8 check (max_cents > 0),
      constraint payment_links_fixed_or_open check ((amount_cents is null) = (min_cents is not null and max_cents is not null)),
      currency text not null check (currency in ('DEPIX', 'BTC', 'USDt')),
      expires_at timestamptz,
      max_uses int4 check (max_uses > 0),
      active boolean not null default true,
      notify_sales boolean not null default true,
      created_at timestamptz not null,
      deactivated_at timestamptz
    )`.execute(db)
  await sql`create index payment_links_by_account on payment_links (account_id, created_at desc)`.execute(db)
  // Not a foreign key, as a charge's accounts are not (migration 020): the create statement stays as it is.
  await sql`alter table charges add column payment_link_id text`.execute(db)
  await sql`create index charges_by_payment_link on charges (payment_link_id) where payment_link_id is not null`.execute(db)
  await sql`alter table accounts add column notify_sales boolean not null default false`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts drop column notify_sales`.execute(db)
  await sql`alter table charges drop column payment_link_id`.execute(db)
  await sql`drop table payment_links`.execute(db)
}
