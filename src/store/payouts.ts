// Payouts (docs/treasury.md, "Payouts"): one row per movement out of the treasury, owned by a
// withdrawal, a refund owed, or a merchant's refund. The steps toward the treasury and the provider (the funded and
// signed transaction, the provider's nonce and reply) are written once: a value already there
// stays, so two runs that raced each keep the first, and the row answered is what stands.
import { sql, type Insertable, type Kysely, type Updateable } from 'kysely'
import { columnsApart } from './columns-apart.ts'
import { compiledOnce } from './database.ts'
import type { Database, Payout, PayoutsTable } from './schema.ts'

const writeOnceColumns = ['psbt', 'tx_hex', 'txid', 'network_fee_sats', 'provider_nonce', 'provider_withdrawal_id', 'provider_deposit_address', 'provider_deposit_cents', 'provider_expires_at'] as const
const writeOnce = new Set<string>(writeOnceColumns)

/** What a step may write on a payout. */
export type PayoutStep = Pick<Updateable<PayoutsTable>, (typeof writeOnceColumns)[number] | 'confirmations' | 'provider_status' | 'provider_receipt_url' | 'payout_cents'>

/** Who a payout pays for: a withdrawal, a refund owed to a payer, or a merchant's refund. */
export type PayoutOwner = { withdrawalId: string } | { refundId: string } | { merchantRefundId: string }

/** A provider reply that failed or was refunded after our DePix left: support looks. */
const failedAtProvider = ['error', 'canceled', 'refunded']

const payoutColumns = {
  id: true, withdrawal_id: true, refund_id: true, merchant_refund_id: true, rail: true, currency: true, amount: true, pix_key: true, tax_number: true, address: true, status: true,
  review_reason: true, failure_code: true, created_by: true, note: true, created_at: true, updated_at: true, sent_at: true, completed_at: true,
  psbt: true, tx_hex: true, txid: true, network_fee_sats: true, confirmations: true, provider_nonce: true, provider_withdrawal_id: true, provider_deposit_address: true,
  provider_deposit_cents: true, provider_expires_at: true, provider_status: true, provider_receipt_url: true, payout_cents: true,
} as const
/** The payout's columns in a row that carries its withdrawal's too (locked with it: store/withdrawals.ts). */
export const payoutApart = columnsApart<PayoutsTable>('payouts', 'payout', payoutColumns)
/** The same, of the payout a statement moved with its withdrawal (its CTE moved_payout). */
export const movedPayoutApart = columnsApart<PayoutsTable>('moved_payout', 'payout', payoutColumns)

export function payoutsRepository(db: Kysely<Database>) {
  const stepUpdate = (id: string, values: PayoutStep) => db
    .updateTable('payouts')
    .set((eb) => Object.fromEntries(Object.entries(values).map(([column, value]) =>
      [column, writeOnce.has(column) ? eb.fn.coalesce(eb.ref(column as (typeof writeOnceColumns)[number]), eb.val(value as string)) : value],
    )))
    .where('id', '=', id)
  // Each run of the payout worker starts with it: built once.
  const byId = compiledOnce(db, 'payout-by-id', () => db.selectFrom('payouts').selectAll().where('id', '=', ''))
  return {
    /** Undefined when the owner already has a live payout (a unique index keeps one). */
    async insert(values: Insertable<PayoutsTable>): Promise<Payout | undefined> {
      return db.insertInto('payouts').values(values).onConflict((oc) => oc.doNothing()).returningAll().executeTakeFirst()
    },

    async findById(id: string): Promise<Payout | undefined> {
      return (await byId([id]))[0]
    },

    /** Inside a transaction, after its owner's locks: the payout, locked until commit. */
    lockById(id: string): Promise<Payout | undefined> {
      return db.selectFrom('payouts').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
    },

    update(id: string, values: Updateable<PayoutsTable>): Promise<Payout> {
      return db.updateTable('payouts').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
    },

    async storeStep(id: string, values: PayoutStep): Promise<Payout> {
      return stepUpdate(id, values).returningAll().executeTakeFirstOrThrow()
    },

    /**
     * A step of a send, written only while the payout is still `sending`: a run that went on after
     * the payout moved (support held or ended it meanwhile, a lease lapsed) writes nothing and
     * learns so (undefined), and stops.
     */
    storeSendingStep(id: string, values: PayoutStep): Promise<Payout | undefined> {
      return stepUpdate(id, values).where('status', '=', 'sending').returningAll().executeTakeFirst()
    },

    /** A sent payout's confirmations, kept only while it is sent: a look that read it before it completed writes nothing. */
    async storeConfirmations(id: string, confirmations: number): Promise<void> {
      await stepUpdate(id, { confirmations }).where('status', '=', 'sent').execute()
    },

    /** A nonce that was never sent (the provider said "not now"): the next run makes a new request. */
    async forgetNonce(id: string, nonce: string): Promise<void> {
      await db.updateTable('payouts').set({ provider_nonce: null }).where('id', '=', id).where('provider_nonce', '=', nonce).where('provider_withdrawal_id', 'is', null).execute()
    },

    /** Sent Liquid payouts after `afterId` (in id order), at most `limit`: those waiting for confirmations. */
    listSentLiquid(afterId: string, limit: number): Promise<Payout[]> {
      return db.selectFrom('payouts').selectAll().where('status', '=', 'sent').where('rail', '=', 'liquid').where('id', '>', afterId).orderBy('id').limit(limit).execute()
    },

    findByProviderWithdrawalId(providerWithdrawalId: string): Promise<Payout | undefined> {
      return db.selectFrom('payouts').selectAll().where('provider_withdrawal_id', '=', providerWithdrawalId).executeTakeFirst()
    },

    /** The owner's live payout if it has one (at most one), else its newest. */
    latestOf(owner: PayoutOwner): Promise<Payout | undefined> {
      const query = db.selectFrom('payouts').selectAll()
      return ('withdrawalId' in owner ? query.where('withdrawal_id', '=', owner.withdrawalId) : 'refundId' in owner ? query.where('refund_id', '=', owner.refundId) : query.where('merchant_refund_id', '=', owner.merchantRefundId))
        .orderBy(sql`status in ('failed', 'returned')`).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst()
    },

    /** Every payout of these withdrawals, live ones first, then newest first. */
    listForWithdrawals(withdrawalIds: readonly string[]): Promise<Payout[]> {
      if (withdrawalIds.length === 0) return Promise.resolve([])
      return db.selectFrom('payouts').selectAll().where('withdrawal_id', 'in', withdrawalIds).orderBy(sql`status in ('failed', 'returned')`).orderBy('created_at', 'desc').orderBy('id', 'desc').execute()
    },

    /** Every payout of these refunds, newest first. */
    listForRefunds(refundIds: readonly string[]): Promise<Payout[]> {
      if (refundIds.length === 0) return Promise.resolve([])
      return db.selectFrom('payouts').selectAll().where('refund_id', 'in', refundIds).orderBy('created_at', 'desc').orderBy('id', 'desc').execute()
    },

    /** Payouts whose DePix left but whose Pix the provider reports failed, or refunded after it completed (alerts). */
    failedAfterSending(owner: 'withdrawal' | 'refund' | 'merchant_refund'): Promise<Payout[]> {
      return db.selectFrom('payouts').selectAll().where(owner === 'withdrawal' ? 'withdrawal_id' : owner === 'refund' ? 'refund_id' : 'merchant_refund_id', 'is not', null)
        .where('status', 'in', ['sent', 'completed']).where('provider_status', 'in', failedAtProvider).orderBy('updated_at').execute()
    },

    /** Payouts whose transaction was broadcast: sent, completed, or sent and since come back. */
    sentTransactions(): Promise<Payout[]> {
      return db.selectFrom('payouts').selectAll().where('txid', 'is not', null).where('status', 'in', ['sent', 'completed', 'returned']).orderBy('created_at').execute()
    },

    /** Refund payouts (owed, or a merchant's) waiting for support, oldest first (a withdrawal's are listed with its withdrawal). */
    refundPayoutsInReview(limit = 200): Promise<Payout[]> {
      return db.selectFrom('payouts').selectAll().where('withdrawal_id', 'is', null).where('status', '=', 'in_review').orderBy('updated_at').orderBy('id').limit(limit).execute()
    },
  }
}
