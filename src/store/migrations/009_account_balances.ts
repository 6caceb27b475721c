import { sql, type Kysely } from 'kysely'

// Each account's balance per book and currency, kept in the same transaction as every posting,
// so reading a balance costs one row whatever the history. The ledger entries stay the truth;
// /ops/ledger-check compares the two.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table account_balances (
      account_id int8 not null references accounts(id),
      book text not null,
      currency text not null check (currency in ('DEPIX', 'BTC', 'USDt')),
      amount int8 not null,
      primary key (account_id, book, currency)
    )`.execute(db)
  await sql`
    insert into account_balances (account_id, book, currency, amount)
    select account_id, book, currency, sum(amount) from ledger_entries where account_id is not null group by account_id, book, currency`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table account_balances`.execute(db)
}
