import { sql, type Kysely } from 'kysely'

// The payment page (docs/payment-pages.md): the name a payer sees for the merchant, set in the
// Wallet (null: the page names nobody), and where a charge's "Voltar à loja" leads (null: no link).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts add column display_name text`.execute(db)
  await sql`alter table charges add column return_url text`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table charges drop column return_url`.execute(db)
  await sql`alter table accounts drop column display_name`.execute(db)
}
