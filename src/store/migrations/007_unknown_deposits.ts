import { sql, type Kysely } from 'kysely'

// Deposits the provider reports that match no charge of ours (a webhook for an unknown qrId, a
// paid deposit the sweep finds, a deposit whose creation reply was lost): kept for support, never
// only logged. And one row at most for a job that must exist once per deployment.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table unknown_deposits (
      qr_id text primary key,
      status text not null,
      value_cents int8,
      payer_name text,
      payer_tax_number text,
      payer_euid text,
      bank_tx_id text,
      seen_by text not null,
      first_seen_at timestamptz not null,
      last_seen_at timestamptz not null
    )`.execute(db)
  await sql`create unique index jobs_one_sweep on jobs (kind) where kind = 'sweep_deposits'`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index jobs_one_sweep`.execute(db)
  await sql`drop table unknown_deposits`.execute(db)
}
