import type { Insertable, Kysely, Updateable } from 'kysely'
import { payoutStepsRepository } from './payout-steps.ts'
import type { Database, RefundPayout, RefundPayoutsTable } from './schema.ts'

/** Refunds owed that support pays by Pix-out from the treasury: one live payout per refund. */
export function refundPayoutsRepository(db: Kysely<Database>) {
  return {
    ...payoutStepsRepository(db, 'refund_payouts'),

    /** Undefined when the refund already has a live payout (the unique index keeps one). */
    async insert(values: Insertable<RefundPayoutsTable>): Promise<RefundPayout | undefined> {
      return db.insertInto('refund_payouts').values(values).onConflict((oc) => oc.column('refund_id').where('status', '<>', 'failed').doNothing()).returningAll().executeTakeFirst()
    },

    findById(id: string): Promise<RefundPayout | undefined> {
      return db.selectFrom('refund_payouts').selectAll().where('id', '=', id).executeTakeFirst()
    },

    findByProviderWithdrawalId(providerWithdrawalId: string): Promise<RefundPayout | undefined> {
      return db.selectFrom('refund_payouts').selectAll().where('provider_withdrawal_id', '=', providerWithdrawalId).executeTakeFirst()
    },

    /** Inside a transaction: the payout, locked until commit. */
    lockById(id: string): Promise<RefundPayout | undefined> {
      return db.selectFrom('refund_payouts').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
    },

    update(id: string, values: Updateable<RefundPayoutsTable>): Promise<RefundPayout> {
      return db.updateTable('refund_payouts').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
    },

    /** Every payout tried for these refunds, newest first. */
    listForRefunds(refundIds: readonly string[]): Promise<RefundPayout[]> {
      if (refundIds.length === 0) return Promise.resolve([])
      return db.selectFrom('refund_payouts').selectAll().where('refund_id', 'in', refundIds).orderBy('created_at', 'desc').orderBy('id', 'desc').execute()
    },

    /** Pix-outs whose DePix left but whose Pix the provider reports failed (alerts). */
    failedAfterSending(): Promise<RefundPayout[]> {
      return db.selectFrom('refund_payouts').selectAll().where('status', '=', 'sent').where('provider_status', 'in', ['error', 'canceled', 'refunded']).orderBy('updated_at').execute()
    },

    /** Refund payouts whose transaction was broadcast: sent, completed, or sent and since come back. */
    sentTransactions(): Promise<RefundPayout[]> {
      return db.selectFrom('refund_payouts').selectAll().where('txid', 'is not', null).where((eb) => eb.or([eb('status', 'in', ['sent', 'completed']), eb('failure_code', '=', 'payout_returned')])).orderBy('created_at').execute()
    },

    /** Payouts waiting for support, oldest first. */
    inReview(limit = 200): Promise<RefundPayout[]> {
      return db.selectFrom('refund_payouts').selectAll().where('status', '=', 'in_review').orderBy('updated_at').orderBy('id').limit(limit).execute()
    },
  }
}
