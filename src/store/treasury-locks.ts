// What the treasury node's locked coins are checked against (app/unlock-orphaned-coins.ts): the
// funded and signed transactions stored for payouts that may still be signed or broadcast. A coin
// the node holds locked that none of these spends was locked by a funding whose result was never
// stored, and nothing will ever spend it: it is unlocked.
import { sql, type Kysely } from 'kysely'
import type { PayoutStatus } from '../domain/payout.ts'
import type { Database } from './schema.ts'

/** A payout's stored transaction: the funded one (psbt), and the signed one (hex) once it is signed. */
export type StoredFunding = { payoutId: string; psbt: string | null; txHex: string | null }

/**
 * Statuses in which a payout's stored transaction may still be signed or broadcast: in review it
 * may be sent again, from the same stored steps. Once completed, failed or returned it never is.
 * Written into the statement as literals: the partial index of migration 028 names the same
 * list, and the planner uses such an index only for a condition it can see implies it.
 */
const live: readonly PayoutStatus[] = ['queued', 'sending', 'in_review', 'sent']

export function treasuryLocksRepository(db: Kysely<Database>) {
  return {
    /** The stored transactions of every live payout. */
    async liveFundings(): Promise<StoredFunding[]> {
      const rows = await db
        .selectFrom('payouts')
        .select(['id', 'psbt', 'tx_hex'])
        .where('psbt', 'is not', null)
        .where(sql<boolean>`status in (${sql.join(live.map((status) => sql.lit(status)))})`)
        .execute()
      return rows.map((row) => ({ payoutId: row.id, psbt: row.psbt, txHex: row.tx_hex }))
    },
  }
}
