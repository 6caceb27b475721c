import { sql, type Kysely } from 'kysely'

// The statement (GET /api/balance-transactions, the Wallet's Extrato, the CSV exports) walks an
// account's entries in posting order, a page or a batch at a time, and sums what came before a
// page for its balances: one index serves both without touching the table. Each account owner
// has a time zone its dates are shown in (America/Sao_Paulo unless set).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index ledger_entries_statement on ledger_entries (account_id, posting_id) include (currency, book, amount) where account_id is not null`.execute(db)
  await sql`create index ledger_postings_created on ledger_postings (created_at)`.execute(db)
  await sql`alter table accounts add column time_zone text not null default 'America/Sao_Paulo'`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts drop column time_zone`.execute(db)
  await sql`drop index ledger_postings_created`.execute(db)
  await sql`drop index ledger_entries_statement`.execute(db)
}
