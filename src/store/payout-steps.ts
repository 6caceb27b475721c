// What a payout writes step by step, the same for an owner's withdrawal and for a refund support
// pays: the funded and signed transaction, the provider's nonce and reply. Those columns are
// written once: a value already there stays, so two runs that raced each keep the first, and the
// row answered is what stands.
import { type Kysely, type Selectable, type Updateable } from 'kysely'
import type { Database, WithdrawalsTable } from './schema.ts'

export type PayoutTable = 'withdrawals' | 'refund_payouts'

const writeOnceColumns = ['psbt', 'tx_hex', 'txid', 'network_fee_sats', 'provider_nonce', 'provider_withdrawal_id', 'provider_deposit_address', 'provider_deposit_cents', 'provider_expires_at'] as const
const writeOnce = new Set<string>(writeOnceColumns)

/** The step columns both payout tables have, with the values a step may write. */
export type PayoutStep = Pick<Updateable<WithdrawalsTable>, (typeof writeOnceColumns)[number] | 'confirmations' | 'provider_status' | 'provider_receipt_url' | 'payout_cents'>

export function payoutStepsRepository<T extends PayoutTable>(db: Kysely<Database>, table: T) {
  // Both tables have every step column; Kysely cannot see that through the union of names.
  const on = db as unknown as Kysely<Pick<Database, 'withdrawals'>>
  const name = table as 'withdrawals'
  return {
    async storeStep(id: string, values: PayoutStep): Promise<Selectable<Database[T]>> {
      const row = await on
        .updateTable(name)
        .set((eb) => Object.fromEntries(Object.entries(values).map(([column, value]) =>
          [column, writeOnce.has(column) ? eb.fn.coalesce(eb.ref(column as (typeof writeOnceColumns)[number]), eb.val(value as string)) : value],
        )))
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow()
      return row as unknown as Selectable<Database[T]>
    },

    /** A nonce that was never sent (the provider said "not now"): the next run makes a new request. */
    async forgetNonce(id: string, nonce: string): Promise<void> {
      await on.updateTable(name).set({ provider_nonce: null }).where('id', '=', id).where('provider_nonce', '=', nonce).where('provider_withdrawal_id', 'is', null).execute()
    },
  }
}
