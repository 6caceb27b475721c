import { sql, type Kysely } from 'kysely'

// Mail that leaves while the owner is away (a sale, a payout's outcome, a refund) speaks the
// language the owner last chose in the Wallet; until they choose, Portuguese.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts add column language text not null default 'pt-BR' check (language in ('pt-BR', 'en'))`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts drop column language`.execute(db)
}
