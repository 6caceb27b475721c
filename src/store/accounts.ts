import type { Kysely, Updateable } from 'kysely'
import { compiledOnce } from './database.ts'
import type { Account, AccountsTable, Database } from './schema.ts'

export function accountsRepository(db: Kysely<Database>) {
  // Every create-payment reads its receiving account: built once, prepared once per connection.
  const byEmail = compiledOnce(db, () => db.selectFrom('accounts').selectAll().where('email', '=', ''))
  return {
    findByEmail(email: string): Promise<Account | undefined> {
      return db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst()
    },

    findById(id: number): Promise<Account | undefined> {
      return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** Inside a transaction: serializes changes to one account (token issuance, postings). */
    lockById(id: number): Promise<Account | undefined> {
      return db.selectFrom('accounts').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
    },

    /** The account for this e-mail, created as a new customer when there is none. */
    async ensure(email: string, now: Date): Promise<Account> {
      // Most e-mails are returning customers: one read, and the insert only for a new one.
      const [existing] = await byEmail([email])
      if (existing) return existing
      const created = await db
        .insertInto('accounts')
        .values({ email, created_at: now })
        .onConflict((oc) => oc.column('email').doNothing())
        .returningAll()
        .executeTakeFirst()
      return created ?? (await db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirstOrThrow())
    },

    /** An account's e-mail is never changed: tokens carry it (get-balance reads it from there). */
    update(id: number, values: Omit<Updateable<AccountsTable>, 'email' | 'id'>): Promise<Account> {
      return db.updateTable('accounts').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
    },
  }
}
