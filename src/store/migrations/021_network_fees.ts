import { sql, type Kysely } from 'kysely'

// The L-BTC network fee of every payout's transaction, as the node built it, is kept with the
// payout when it is signed and posted to the network_fees book when it leaves (docs/treasury.md,
// "The books meet the treasury"). Withdrawals had the column; refund payouts get it, and a refund
// sums what its payouts' transactions paid, as it sums the provider's payout fees.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table refund_payouts add column network_fee_sats int8`.execute(db)
  await sql`alter table refunds add column network_fee_sats int8 not null default 0`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table refunds drop column network_fee_sats`.execute(db)
  await sql`alter table refund_payouts drop column network_fee_sats`.execute(db)
}
