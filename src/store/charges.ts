import { sql, type Insertable, type Kysely } from 'kysely'
import type { PayerHistory } from '../domain/payer-limits.ts'
import type { Charge, ChargesTable, Database } from './schema.ts'

export function chargesRepository(db: Kysely<Database>) {
  return {
    insert(values: Insertable<ChargesTable>): Promise<Charge> {
      return db.insertInto('charges').values(values).returningAll().executeTakeFirstOrThrow()
    },

    findById(id: string): Promise<Charge | undefined> {
      return db.selectFrom('charges').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** A charge as its merchant sees it: another account's charge is simply not there. */
    findForMerchant(id: string, merchantAccountId: number): Promise<Charge | undefined> {
      return db
        .selectFrom('charges')
        .selectAll()
        .where('id', '=', id)
        .where('merchant_account_id', '=', merchantAccountId)
        .executeTakeFirst()
    },

    /** Confirmed payments by one EUID: what the payer-limit ladder climbs on. */
    async payerHistory(euid: string): Promise<PayerHistory> {
      const row = await db
        .selectFrom('charges')
        .select([sql<number>`count(*)::int4`.as('confirmed'), sql<Date | null>`min(confirmed_at)`.as('first')])
        .where('payer_euid', '=', euid)
        .where('confirmed_at', 'is not', null)
        .executeTakeFirstOrThrow()
      return { confirmedPayments: row.confirmed, firstConfirmedAt: row.first }
    },
  }
}
