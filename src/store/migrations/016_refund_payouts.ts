import { sql, type Kysely } from 'kysely'

// Refunds owed paid by a Pix-out from the treasury (docs/rules.md#refunds-owed): support orders it,
// the payout worker makes it with the withdrawals' steps (the provider's nonce stored before POST
// /withdraw, the signed transaction stored before it is broadcast), so a refund is paid once. One
// live payout per refund; a failed one (nothing left) may be tried again. The provider's payout
// fee, which the service bears so the payer gets all that is owed, is kept on the refund.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table refund_payouts (
      id text primary key,
      refund_id text not null references refunds(id),
      -- the payer's own CPF/CNPJ key, as the provider takes it (digits)
      pix_key text not null,
      tax_number text not null,
      -- what the payer's key receives: all that is owed
      amount_cents int8 not null check (amount_cents > 0),
      status text not null check (status in ('sending', 'in_review', 'sent', 'completed', 'failed')),
      review_reason text,
      failure_code text,
      created_by text not null,
      note text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      sent_at timestamptz,
      completed_at timestamptz,
      psbt text,
      tx_hex text,
      txid text,
      confirmations int4,
      provider_nonce text unique,
      provider_withdrawal_id text unique,
      provider_deposit_address text,
      provider_deposit_cents int8,
      provider_expires_at timestamptz,
      provider_status text,
      provider_receipt_url text,
      payout_cents int8
    )`.execute(db)
  await sql`create unique index refund_payouts_live on refund_payouts (refund_id) where status <> 'failed'`.execute(db)
  await sql`alter table refunds add column payout_fee_cents int8 not null default 0`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table refunds drop column payout_fee_cents`.execute(db)
  await sql`drop table refund_payouts`.execute(db)
}
