import { sql, type Kysely, type Updateable } from 'kysely'
import { columnsApart } from './columns-apart.ts'
import { compiledOnce } from './database.ts'
import { probedBlocks } from './identities.ts'
import type { Account, AccountsTable, BlockKind, Database } from './schema.ts'

/** The account's columns in a row that carries another table's too (a charge's or a withdrawal's, locked with it). */
export const accountApart = columnsApart<AccountsTable>('accounts', 'account', {
  id: true, email: true, owner_tax_number: true, owner_name: true, euid: true, kyc: true, created_at: true, time_zone: true, display_name: true, notify_sales: true, language: true,
})

export function accountsRepository(db: Kysely<Database>) {
  // Every create-payment reads its receiving account: built once, prepared once per connection.
  const byEmail = compiledOnce(db, 'account-by-email', () => db.selectFrom('accounts').selectAll().where('email', '=', ''))
  // A create-payment's first read: its receiving account's id with the MED blocks on that e-mail
  // and on the payer's tax number and EUID (an absent one is a null, which matches nothing). The
  // id alone: a create needs no more of the account, and each column is one more to parse.
  const withBlocks = compiledOnce(db, 'account-with-blocks', () =>
    db.selectFrom('accounts').select('accounts.id')
      .select(probedBlocks(db).select(sql<BlockKind[] | null>`array_agg(distinct kind)`.as('kinds')).as('blocked_kinds'))
      .where('email', '=', ''))
  const findByEmail = async (email: string): Promise<Account | undefined> => (await byEmail([email]))[0]

  /** A new customer's account for this e-mail, or the one a request at the same moment made. */
  async function create(email: string, now: Date): Promise<Account> {
    const created = await db
      .insertInto('accounts')
      .values({ email, created_at: now })
      .onConflict((oc) => oc.column('email').doNothing())
      .returningAll()
      .executeTakeFirst()
    return created ?? (await findByEmail(email))!
  }

  return {
    findByEmail,

    /** Whether the owner asked to hear by e-mail of every charge paid, held or released (links' charges ask their link). */
    async notifiesSales(id: number): Promise<boolean> {
      return (await db.selectFrom('accounts').select('notify_sales').where('id', '=', id).executeTakeFirst())?.notify_sales ?? false
    },

    async setNotifySales(id: number, on: boolean): Promise<void> {
      await db.updateTable('accounts').set({ notify_sales: on }).where('id', '=', id).execute()
    },

    async setLanguage(id: number, language: 'pt-BR' | 'en'): Promise<void> {
      await db.updateTable('accounts').set({ language }).where('id', '=', id).where('language', '<>', language).execute()
    },

    /** The name payers see on the account's payment pages; null shows none. */
    async setDisplayName(id: number, displayName: string | null): Promise<void> {
      await db.updateTable('accounts').set({ display_name: displayName }).where('id', '=', id).execute()
    },

    findById(id: number): Promise<Account | undefined> {
      return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** Inside a transaction: serializes changes to one account (token issuance, postings). */
    /** Several accounts in one read (a support queue's rows). */
    findByIds(ids: readonly number[]): Promise<Account[]> {
      if (ids.length === 0) return Promise.resolve([])
      return db.selectFrom('accounts').selectAll().where('id', 'in', ids).execute()
    },

    lockById(id: number): Promise<Account | undefined> {
      return db.selectFrom('accounts').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
    },

    /**
     * A charge's receiving account's id and the MED blocks on its e-mail or the payer's identities,
     * in one round trip; undefined when the e-mail has no account yet (then ask blockedKinds, and create it).
     */
    async findWithBlocks(email: string, payer: { taxNumber: string | null; euid: string | null }): Promise<{ accountId: number; blocked: BlockKind[] } | undefined> {
      const [row] = await withBlocks([email, payer.taxNumber || null, payer.euid || null, email])
      return row && { accountId: row.id, blocked: row.blocked_kinds ?? [] }
    },

    create,

    /** The account for this e-mail, created as a new customer when there is none. */
    async ensure(email: string, now: Date): Promise<Account> {
      // Most e-mails are returning customers: one read, and the insert only for a new one.
      return (await findByEmail(email)) ?? create(email, now)
    },

    /** An account's e-mail is never changed: tokens carry it (get-balance reads it from there). */
    update(id: number, values: Omit<Updateable<AccountsTable>, 'email' | 'id'>): Promise<Account> {
      return db.updateTable('accounts').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
    },
  }
}
