// Merchant refunds (docs/rules.md#merchant-refunds): one row per refund, priced when asked; its
// payout (store/payouts.ts) carries the money and the refund follows it.
import { sql, type Insertable, type Kysely, type Updateable } from 'kysely'
import type { Database, MerchantRefund, MerchantRefundsTable } from './schema.ts'

export function merchantRefundsRepository(db: Kysely<Database>) {
  return {
    insert(values: Insertable<MerchantRefundsTable>): Promise<MerchantRefund> {
      return db.insertInto('merchant_refunds').values(values).returningAll().executeTakeFirstOrThrow()
    },

    findById(id: string): Promise<MerchantRefund | undefined> {
      return db.selectFrom('merchant_refunds').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** A refund as the charge's merchant, or its receiving account, sees it: another account's is simply not there. */
    findForAccount(id: string, accountId: number): Promise<MerchantRefund | undefined> {
      return db.selectFrom('merchant_refunds').innerJoin('charges', 'charges.id', 'merchant_refunds.charge_id').selectAll('merchant_refunds')
        .where('merchant_refunds.id', '=', id).where((eb) => eb.or([eb('charges.merchant_account_id', '=', accountId), eb('merchant_refunds.account_id', '=', accountId)])).executeTakeFirst()
    },

    /** Inside a transaction, after its charge's lock: the refund, locked until commit. */
    lockById(id: string): Promise<MerchantRefund | undefined> {
      return db.selectFrom('merchant_refunds').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
    },

    update(id: string, values: Updateable<MerchantRefundsTable>): Promise<MerchantRefund> {
      return db.updateTable('merchant_refunds').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
    },

    /** The refunds of these charges, oldest first. */
    listForCharges(chargeIds: readonly string[]): Promise<MerchantRefund[]> {
      if (chargeIds.length === 0) return Promise.resolve([])
      return db.selectFrom('merchant_refunds').selectAll().where('charge_id', 'in', chargeIds).orderBy('created_at').orderBy('id').execute()
    },

    /** What a charge's completed refunds gave back, in centavos (read under the charge's lock). */
    async completedCents(chargeId: string): Promise<number> {
      const row = await db.selectFrom('merchant_refunds').select(sql<string>`coalesce(sum(amount_cents), 0)::text`.as('total'))
        .where('charge_id', '=', chargeId).where('status', '=', 'completed').executeTakeFirstOrThrow()
      return Number(row.total)
    },
  }
}
