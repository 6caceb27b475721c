import { sql, type Kysely } from 'kysely'

// One payout (docs/treasury.md, "Payouts"): every movement out of the treasury is a row of its own
// with one state machine, owned by a withdrawal or by a refund owed. Until now each owner carried
// the payout's steps in its own columns (withdrawals, refund_payouts), two copies of one life. The
// rows are moved here as they stand, steps and all, so a payout in flight resumes from what it
// wrote; the owners keep only what is theirs. Queued sends become send_payout jobs.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table payouts (
      id text primary key,
      withdrawal_id text references withdrawals(id),
      refund_id text references refunds(id),
      constraint payouts_one_owner check ((withdrawal_id is null) <> (refund_id is null)),
      rail text not null check (rail in ('pix', 'liquid')),
      currency text not null check (currency in ('DEPIX', 'BTC', 'USDt')),
      -- what we offer: Liquid, what the address receives; a withdrawal's Pix-out, the DePix sent
      -- to the provider; a refund's, what the payer's key receives
      amount int8 not null check (amount > 0),
      pix_key text,
      tax_number text,
      address text,
      status text not null check (status in ('queued', 'sending', 'sent', 'completed', 'in_review', 'failed', 'returned')),
      review_reason text,
      failure_code text,
      created_by text not null,
      note text not null default '',
      created_at timestamptz not null,
      updated_at timestamptz not null,
      sent_at timestamptz,
      completed_at timestamptz,
      psbt text,
      tx_hex text,
      txid text,
      network_fee_sats int8,
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
  // One live payout per owner: a failed or returned one may be followed by another.
  await sql`create unique index payouts_live_withdrawal on payouts (withdrawal_id) where withdrawal_id is not null and status not in ('failed', 'returned')`.execute(db)
  await sql`create unique index payouts_live_refund on payouts (refund_id) where refund_id is not null and status not in ('failed', 'returned')`.execute(db)
  await sql`create index payouts_by_withdrawal on payouts (withdrawal_id, created_at) where withdrawal_id is not null`.execute(db)
  await sql`create index payouts_by_refund on payouts (refund_id, created_at) where refund_id is not null`.execute(db)
  await sql`create index payouts_review on payouts (updated_at) where status = 'in_review'`.execute(db)
  await sql`create index payouts_live_funding on payouts (id) where psbt is not null and status in ('queued', 'sending', 'in_review', 'sent')`.execute(db)

  // A withdrawal's payout exists once the withdrawal was queued to send (confirmed, or approved).
  await sql`
    insert into payouts (id, withdrawal_id, rail, currency, amount, pix_key, tax_number, address, status, review_reason, failure_code, created_by, created_at, updated_at,
      sent_at, completed_at, psbt, tx_hex, txid, network_fee_sats, confirmations, provider_nonce, provider_withdrawal_id, provider_deposit_address, provider_deposit_cents,
      provider_expires_at, provider_status, provider_receipt_url, payout_cents)
    select 'po_' || substr(w.id, 4), w.id, w.destination_type, w.currency, w.net_amount,
      case when w.destination_type = 'pix' then d.value end, case when w.destination_type = 'pix' then a.owner_tax_number end, case when w.destination_type = 'liquid' then d.value end,
      case
        when w.status = 'confirmed' then 'queued'
        when w.status in ('sending', 'sent', 'completed', 'in_review') then w.status
        when w.failure_code = 'payout_returned' then 'returned'
        else 'failed'
      end,
      case when w.status = 'in_review' then w.review_reason end,
      case
        when w.status not in ('failed', 'canceled') then null
        when w.failure_code in ('canceled_by_owner', 'code_expired') then 'owner_withdrew'
        else w.failure_code
      end,
      'owner', coalesce(w.confirmed_at, w.created_at), w.updated_at,
      w.sent_at, w.completed_at, w.psbt, w.tx_hex, w.txid, w.network_fee_sats, w.confirmations, w.provider_nonce, w.provider_withdrawal_id, w.provider_deposit_address,
      w.provider_deposit_cents, w.provider_expires_at, w.provider_status, w.provider_receipt_url, w.payout_cents
    from withdrawals w join withdrawal_destinations d on d.id = w.destination_id join accounts a on a.id = w.account_id
    where w.status in ('confirmed', 'sending', 'sent', 'completed')
      or w.psbt is not null or w.provider_nonce is not null
      or (w.status = 'in_review' and w.review_reason not in ('over_threshold', 'daily_limit', 'monthly_limit'))
      or w.failure_code in ('provider_refused', 'payout_expired', 'payout_returned')`.execute(db)
  await sql`
    insert into payouts (id, refund_id, rail, currency, amount, pix_key, tax_number, status, review_reason, failure_code, created_by, note, created_at, updated_at,
      sent_at, completed_at, psbt, tx_hex, txid, network_fee_sats, confirmations, provider_nonce, provider_withdrawal_id, provider_deposit_address, provider_deposit_cents,
      provider_expires_at, provider_status, provider_receipt_url, payout_cents)
    select id, refund_id, 'pix', 'DEPIX', amount_cents, pix_key, tax_number,
      -- A refund payout that had asked nothing yet had not been checked either: it starts as a new one.
      case
        when status = 'sending' and provider_nonce is null and psbt is null then 'queued'
        when status = 'failed' and failure_code = 'payout_returned' then 'returned'
        else status
      end,
      review_reason,
      case when failure_code = 'refund_settled' then 'owner_withdrew' else failure_code end,
      created_by, note, created_at, updated_at,
      sent_at, completed_at, psbt, tx_hex, txid, network_fee_sats, confirmations, provider_nonce, provider_withdrawal_id, provider_deposit_address, provider_deposit_cents,
      provider_expires_at, provider_status, provider_receipt_url, payout_cents
    from refund_payouts`.execute(db)

  // Sends already queued go on as the payout's own job.
  await sql`
    update jobs set kind = 'send_payout', payload = jsonb_build_object('payoutId', p.id)
    from payouts p where jobs.kind = 'send_withdrawal' and p.withdrawal_id = jobs.payload->>'withdrawalId' and p.status not in ('failed', 'returned')`.execute(db)
  await sql`update jobs set kind = 'send_payout', payload = jsonb_build_object('payoutId', payload->>'refundPayoutId') where kind = 'send_refund_payout'`.execute(db)
  await sql`delete from jobs where kind = 'send_withdrawal'`.execute(db)

  await sql`drop index if exists withdrawals_live_funding`.execute(db)
  await sql`drop table refund_payouts`.execute(db)
  await sql`
    alter table withdrawals
      drop column psbt, drop column tx_hex, drop column txid, drop column network_fee_sats, drop column confirmations,
      drop column provider_nonce, drop column provider_withdrawal_id, drop column provider_deposit_address, drop column provider_deposit_cents,
      drop column provider_expires_at, drop column provider_status, drop column provider_receipt_url`.execute(db)
}

export async function down(): Promise<void> {
  throw new Error('028_payouts moves every payout into one table and is not undone: restore the backup taken before the upgrade')
}
