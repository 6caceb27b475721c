import type { Kysely, Selectable } from 'kysely'
import type { Database, PaidAmountProposalsTable } from './schema.ts'

export type PaidAmountProposalRow = Selectable<PaidAmountProposalsTable>

/** Amounts typed beyond the tolerance for held charges, one per charge, waiting for a second operator. */
export function paidAmountProposalsRepository(db: Kysely<Database>) {
  return {
    find(chargeId: string): Promise<PaidAmountProposalRow | undefined> {
      return db.selectFrom('paid_amount_proposals').selectAll().where('charge_id', '=', chargeId).executeTakeFirst()
    },

    forCharges(chargeIds: readonly string[]): Promise<PaidAmountProposalRow[]> {
      if (chargeIds.length === 0) return Promise.resolve([])
      return db.selectFrom('paid_amount_proposals').selectAll().where('charge_id', 'in', chargeIds).execute()
    },

    /** This proposal replaces any earlier one for the charge. */
    async put(row: PaidAmountProposalRow): Promise<void> {
      const { charge_id: _id, ...values } = row
      await db.insertInto('paid_amount_proposals').values(row).onConflict((oc) => oc.column('charge_id').doUpdateSet(values)).execute()
    },

    async remove(chargeId: string): Promise<void> {
      await db.deleteFrom('paid_amount_proposals').where('charge_id', '=', chargeId).execute()
    },
  }
}
