import { sql, type Kysely } from 'kysely'

// A sent Liquid payout is followed to its confirmations by one job for them all
// (app/follow-liquid-payouts.ts): one such job per deployment, and the sent ones found without
// reading every payout ever made.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create unique index jobs_one_follow_liquid_payouts on jobs (kind) where kind = 'follow_liquid_payouts'`.execute(db)
  await sql`create index payouts_sent_liquid on payouts (id) where status = 'sent' and rail = 'liquid'`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // The code before followed each sent payout by its own send_payout job: each gets one back.
  await sql`
    insert into jobs (kind, payload, run_at, created_at)
    select 'send_payout', jsonb_build_object('payoutId', p.id), now(), now() from payouts p
    where p.status = 'sent' and p.rail = 'liquid'
      and not exists (select 1 from jobs j where j.kind = 'send_payout' and j.payload->>'payoutId' = p.id)`.execute(db)
  await sql`drop index payouts_sent_liquid`.execute(db)
  await sql`delete from jobs where kind = 'follow_liquid_payouts'`.execute(db)
  await sql`drop index jobs_one_follow_liquid_payouts`.execute(db)
}
