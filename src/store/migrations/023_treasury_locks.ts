import { sql, type Kysely } from 'kysely'

// The treasury's locked coins are checked on a schedule (app/unlock-orphaned-coins.ts): one such
// job per deployment, and the stored transactions of live payouts found without reading every
// payout ever made (the lists are store/treasury-locks.ts's).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create unique index jobs_one_unlock_treasury_coins on jobs (kind) where kind = 'unlock_treasury_coins'`.execute(db)
  await sql`create index withdrawals_live_funding on withdrawals (id) where psbt is not null and status in ('confirmed', 'in_review', 'sending', 'sent')`.execute(db)
  await sql`create index refund_payouts_live_funding on refund_payouts (id) where psbt is not null and status in ('sending', 'in_review', 'sent')`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index refund_payouts_live_funding`.execute(db)
  await sql`drop index withdrawals_live_funding`.execute(db)
  await sql`drop index jobs_one_unlock_treasury_coins`.execute(db)
}
