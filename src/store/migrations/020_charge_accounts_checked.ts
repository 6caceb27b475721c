import { sql, type Kysely } from 'kysely'

// A charge's two accounts are checked as the charge is stored (charges.open reads each by its key),
// not by foreign keys: a key's check locks the account's row until the commit (FOR KEY SHARE,
// written to the log), so every create of one merchant locked the same row, and concurrent ones
// shared it through MultiXacts (docs/performance.md, "Creating a charge"). What the keys also
// guaranteed afterwards, that a charge's accounts stay, holds because accounts are never
// deleted, nor their ids changed: this trigger refuses it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table charges drop constraint charges_merchant_account_id_fkey, drop constraint charges_account_id_fkey`.execute(db)
  await sql`
    create function accounts_are_kept() returns trigger language plpgsql as $$
    begin
      raise exception 'accounts are never deleted, nor their ids changed' using errcode = 'restrict_violation';
    end $$`.execute(db)
  await sql`create trigger accounts_are_kept before delete or truncate or update of id on accounts for each statement execute function accounts_are_kept()`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger accounts_are_kept on accounts`.execute(db)
  await sql`drop function accounts_are_kept()`.execute(db)
  await sql`
    alter table charges
      add constraint charges_merchant_account_id_fkey foreign key (merchant_account_id) references accounts(id),
      add constraint charges_account_id_fkey foreign key (account_id) references accounts(id)`.execute(db)
}
