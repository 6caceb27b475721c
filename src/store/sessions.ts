// The sessions of the pages for people (docs/rules.md#sessions), one repository for both sites:
// the Wallet's rows name an account, the console's an operator. A row is keyed by the SHA-256 of
// the session id, so a database leak gives no usable session.
import type { Kysely } from 'kysely'
import type { Database } from './schema.ts'

/** Where one site's sessions are kept, and whose each is: an account's id or an operator's e-mail. */
export type SessionRows<Owner> = {
  findSession(idHash: string): Promise<{ data: unknown; created_at: Date; last_seen_at: Date } | undefined>
  saveSession(idHash: string, owner: Owner | null, data: string, now: Date): Promise<void>
  touchSession(idHash: string, now: Date): Promise<void>
  deleteSession(idHash: string): Promise<void>
}

function sessionRows<Owner>(db: Kysely<Database>, table: 'wallet_sessions' | 'console_sessions', ownerColumn: 'account_id' | 'operator_email'): SessionRows<Owner> {
  return {
    findSession(idHash) {
      return db.selectFrom(table).select(['data', 'created_at', 'last_seen_at']).where('id_hash', '=', idHash).executeTakeFirst()
    },
    async saveSession(idHash, owner, data, now) {
      // The owner's column differs by table; the values are checked by the callers' Owner type.
      const values = { id_hash: idHash, [ownerColumn]: owner, data, created_at: now, last_seen_at: now } as never
      await db
        .insertInto(table)
        .values(values)
        .onConflict((oc) => oc.column('id_hash').doUpdateSet({ [ownerColumn]: owner, data, last_seen_at: now } as never))
        .execute()
    },
    async touchSession(idHash, now) {
      await db.updateTable(table).set({ last_seen_at: now }).where('id_hash', '=', idHash).execute()
    },
    async deleteSession(idHash) {
      await db.deleteFrom(table).where('id_hash', '=', idHash).execute()
    },
  }
}

export function sessionsRepository(db: Kysely<Database>) {
  return {
    wallet: sessionRows<number>(db, 'wallet_sessions', 'account_id'),
    console: sessionRows<string>(db, 'console_sessions', 'operator_email'),
  }
}
