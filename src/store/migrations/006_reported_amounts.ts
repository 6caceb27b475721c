import { sql, type Kysely } from 'kysely'

// What the provider reports about a payment (docs/rules.md#amount-arrived): the
// amount that arrived, which the credit is computed from, and the bank and
// blockchain transaction ids support looks up.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table charges add column paid_cents int8`.execute(db)
  await sql`alter table charges add column bank_tx_id text`.execute(db)
  await sql`alter table charges add column blockchain_tx_id text`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['blockchain_tx_id', 'bank_tx_id', 'paid_cents']) {
    await sql`alter table charges drop column ${sql.ref(column)}`.execute(db)
  }
}
