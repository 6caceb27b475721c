import type { Kysely } from 'kysely'
import type { ProviderDeposit } from '../domain/provider-report.ts'
import type { Database } from './schema.ts'

export type UnknownDepositSource = 'webhook' | 'sweep' | 'lost_reply'

/** Provider deposits that match no charge of ours, for support; the latest word on each is kept. */
export function unknownDepositsRepository(db: Kysely<Database>) {
  return {
    async record(deposit: ProviderDeposit, source: UnknownDepositSource, now: Date): Promise<void> {
      const latest = {
        status: deposit.statusText,
        value_cents: deposit.valueInCents,
        payer_name: deposit.payerName,
        payer_tax_number: deposit.payerTaxNumber,
        payer_euid: deposit.payerEuid,
        bank_tx_id: deposit.bankTxId,
        seen_by: source,
        last_seen_at: now,
      }
      await db
        .insertInto('unknown_deposits')
        .values({ qr_id: deposit.qrId, ...latest, first_seen_at: now })
        .onConflict((oc) => oc.column('qr_id').doUpdateSet(latest))
        .execute()
    },

    /** Newest first; a deposit that has since turned out to be a charge's (a reply that was only slow) is left out. */
    list(limit = 200) {
      return db
        .selectFrom('unknown_deposits')
        .selectAll()
        .where((eb) => eb.not(eb.exists(eb.selectFrom('charges').select('id').whereRef('charges.provider_deposit_id', '=', 'unknown_deposits.qr_id'))))
        .orderBy('last_seen_at', 'desc')
        .limit(limit)
        .execute()
    },
  }
}
