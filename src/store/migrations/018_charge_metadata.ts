import { sql, type Kysely } from 'kysely'

// A merchant's own labels on a charge (its order number, say): up to 20 string keys, shown back
// in get-payment, the list and every webhook. Null when the charge has none.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table charges add column metadata jsonb`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table charges drop column metadata`.execute(db)
}
