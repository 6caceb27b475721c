import { sql, type Kysely } from 'kysely'

// An amount support typed for a held payment, beyond the tolerance around its value, waits here
// for a second operator (an admin, not the one who typed it): one per charge, the latest typed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table paid_amount_proposals (
      charge_id text primary key references charges(id),
      decision text not null check (decision in ('release', 'refund')),
      paid_cents int8 not null check (paid_cents > 0),
      proposed_by text not null,
      note text not null,
      proposed_at timestamptz not null
    )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table paid_amount_proposals`.execute(db)
}
