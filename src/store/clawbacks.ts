import type { Insertable, Kysely } from 'kysely'
import type { ChargeClawback, ChargeClawbacksTable, Database } from './schema.ts'

/** What the provider reported taking back, per charge, each report once. */
export function clawbacksRepository(db: Kysely<Database>) {
  return {
    async has(chargeId: string, reportKey: string): Promise<boolean> {
      const row = await db.selectFrom('charge_clawbacks').select('id').where('charge_id', '=', chargeId).where('report_key', '=', reportKey).executeTakeFirst()
      return row !== undefined
    },

    async record(values: Omit<Insertable<ChargeClawbacksTable>, 'report'> & { report: unknown }): Promise<void> {
      await db
        .insertInto('charge_clawbacks')
        .values({ ...values, report: JSON.stringify(values.report) })
        .onConflict((oc) => oc.columns(['charge_id', 'report_key']).doNothing())
        .execute()
    },

    /** The reports on these charges, oldest first. */
    forCharges(chargeIds: readonly string[]): Promise<ChargeClawback[]> {
      if (chargeIds.length === 0) return Promise.resolve([])
      return db.selectFrom('charge_clawbacks').selectAll().where('charge_id', 'in', chargeIds).orderBy('id').execute()
    },
  }
}
