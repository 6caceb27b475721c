import { sql, type Kysely } from 'kysely'

// Merchant refunds (docs/rules.md#merchant-refunds): a merchant gives a payer money back from its
// own balance. The refund keeps what is its own (the amounts it was priced at, the part taken from
// the charge's hold, its status); the money leaves by a payout, now with a third owner, whose
// outcome the refund follows. The charge keeps running totals, read by every charge read and by
// the release of a held credit (docs/rules.md#merchant-refund-amounts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table merchant_refunds (
      id text primary key,
      charge_id text not null references charges(id),
      account_id int8 not null references accounts(id),
      currency text not null check (currency in ('DEPIX', 'BTC', 'USDt')),
      -- what the payer's key receives, in centavos
      amount_cents int8 not null check (amount_cents > 0),
      -- the provider's Pix-out fee on top, at most its published fee
      fee_cents int8 not null check (fee_cents >= 0),
      -- what the account pays, in the charge's currency, and the part of it taken from the charge's hold
      units int8 not null check (units > 0),
      held_units int8 not null check (held_units >= 0 and held_units <= units),
      quote_micros int8,
      brl_cents int8 not null,
      reason text,
      pix_key text not null,
      status text not null check (status in ('pending', 'sent', 'completed', 'failed')),
      failure_code text,
      review_reason text,
      network_fee_sats int8 not null default 0,
      deposit_cents int8,
      -- the language of the owner's e-mails about it: the Wallet's, or Portuguese through the API
      lang text not null default 'pt-BR' check (lang in ('pt-BR', 'en')),
      created_by text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db)
  await sql`create index merchant_refunds_by_charge on merchant_refunds (charge_id, created_at)`.execute(db)
  await sql`create index merchant_refunds_by_account on merchant_refunds (account_id, created_at)`.execute(db)
  // refund_dispute_loss_cents: what MEDs took back after the merchant refunded the payment in full, the service's loss until support settles it.
  await sql`alter table charges add column refunded_cents int8 not null default 0, add column refunded_held_units int8 not null default 0, add column refund_dispute_loss_cents int8 not null default 0`.execute(db)
  await sql`alter table payouts add column merchant_refund_id text references merchant_refunds(id)`.execute(db)
  await sql`alter table payouts drop constraint payouts_one_owner`.execute(db)
  await sql`alter table payouts add constraint payouts_one_owner check (num_nonnulls(withdrawal_id, refund_id, merchant_refund_id) = 1)`.execute(db)
  // The Wallet confirms a refund with an e-mail code when the owner has no second factor.
  await sql`alter table wallet_codes drop constraint wallet_codes_purpose_check`.execute(db)
  await sql`alter table wallet_codes add constraint wallet_codes_purpose_check check (purpose in ('sign_in', 'destination', 'withdrawal', 'console_sign_in', 'refund'))`.execute(db)
  await sql`create unique index payouts_live_merchant_refund on payouts (merchant_refund_id) where merchant_refund_id is not null and status not in ('failed', 'returned')`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from wallet_codes where purpose = 'refund'`.execute(db)
  await sql`alter table wallet_codes drop constraint wallet_codes_purpose_check`.execute(db)
  await sql`alter table wallet_codes add constraint wallet_codes_purpose_check check (purpose in ('sign_in', 'destination', 'withdrawal', 'console_sign_in'))`.execute(db)
  await sql`drop index payouts_live_merchant_refund`.execute(db)
  await sql`alter table payouts drop constraint payouts_one_owner`.execute(db)
  await sql`delete from payouts where merchant_refund_id is not null`.execute(db)
  await sql`alter table payouts add constraint payouts_one_owner check ((withdrawal_id is null) <> (refund_id is null))`.execute(db)
  await sql`alter table payouts drop column merchant_refund_id`.execute(db)
  await sql`alter table charges drop column refunded_cents, drop column refunded_held_units, drop column refund_dispute_loss_cents`.execute(db)
  await sql`drop table merchant_refunds`.execute(db)
}
