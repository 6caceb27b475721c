import { sql, type Insertable, type Kysely, type Updateable } from 'kysely'
import type { Database, Refund, RefundsTable } from './schema.ts'

/** Refund obligations: what a held payment that support refunded owes its payer, until settled. */
export function refundsRepository(db: Kysely<Database>) {
  return {
    async open(values: Insertable<RefundsTable>): Promise<Refund> {
      return db.insertInto('refunds').values(values).returningAll().executeTakeFirstOrThrow()
    },

    findByCharge(chargeId: string): Promise<Refund | undefined> {
      return db.selectFrom('refunds').selectAll().where('charge_id', '=', chargeId).executeTakeFirst()
    },

    findById(id: string): Promise<Refund | undefined> {
      return db.selectFrom('refunds').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** Inside a transaction: the refund, locked until commit. */
    lockById(id: string): Promise<Refund | undefined> {
      return db.selectFrom('refunds').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
    },

    update(id: string, values: Updateable<RefundsTable>): Promise<Refund> {
      return db.updateTable('refunds').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
    },

    /** Refunds still owed, oldest first: the support queue. */
    listOwed(limit = 200): Promise<Refund[]> {
      return db.selectFrom('refunds').selectAll().where('status', '=', 'owed').orderBy('created_at').orderBy('id').limit(limit).execute()
    },

    /** How many refunds are owed, and how much in all (centavos). */
    async owedTotals(): Promise<{ count: number; cents: number }> {
      const row = await db.selectFrom('refunds').select([sql<number>`count(*)::int4`.as('count'), sql<string>`coalesce(sum(owed_cents), 0)::text`.as('cents')]).where('status', '=', 'owed').executeTakeFirstOrThrow()
      return { count: row.count, cents: Number(row.cents) }
    },

    /** The refund obligation of each of these charges that has one. */
    async owedFor(chargeIds: readonly string[]): Promise<Map<string, Refund>> {
      if (chargeIds.length === 0) return new Map()
      const rows = await db.selectFrom('refunds').selectAll().where('charge_id', 'in', chargeIds).execute()
      return new Map(rows.map((row) => [row.charge_id, row]))
    },
  }
}
