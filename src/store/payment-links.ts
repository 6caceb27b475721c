// Payment links and what was sold through them. A link's uses and totals are read from its
// charges: the paid ones, and (for the maximum uses) the QRs still open that may yet be paid.
import { sql, type Kysely } from 'kysely'
import type { Insertable } from 'kysely'
import type { Database, PaymentLink, PaymentLinksTable } from './schema.ts'
import { olderThan, type RowKey } from './keyset.ts'

/** A charge that took money through a link (received, whether final, held or credited). */
const paidStatuses = ['pending', 'under_review', 'security_hold', 'depix_sent', 'after7d'] as const

export type LinkSales = { paid: number; paidCents: number; open: number; charges: number }

export function paymentLinksRepository(db: Kysely<Database>) {
  const sales = async (ids: readonly string[], now: Date): Promise<Map<string, LinkSales>> => {
    if (ids.length === 0) return new Map()
    const rows = await db.selectFrom('charges')
      .select(['payment_link_id'])
      .select(sql<number>`count(*) filter (where status in (${sql.join(paidStatuses)}))`.as('paid'))
      .select(sql<number>`coalesce(sum(coalesce(paid_cents, value_cents)) filter (where status in (${sql.join(paidStatuses)})), 0)`.as('paid_cents'))
      .select(sql<number>`count(*) filter (where status = 'waiting_payment' and expires_at > ${now})`.as('open'))
      .select(sql<number>`count(*)`.as('charges'))
      .where('payment_link_id', 'in', ids)
      .groupBy('payment_link_id')
      .execute()
    return new Map(rows.map((row) => [row.payment_link_id!, { paid: Number(row.paid), paidCents: Number(row.paid_cents), open: Number(row.open), charges: Number(row.charges) }]))
  }

  return {
    async create(values: Insertable<PaymentLinksTable>): Promise<PaymentLink> {
      return db.insertInto('payment_links').values(values).returningAll().executeTakeFirstOrThrow()
    },

    findById(id: string): Promise<PaymentLink | undefined> {
      return db.selectFrom('payment_links').selectAll().where('id', '=', id).executeTakeFirst()
    },

    findForAccount(id: string, accountId: number): Promise<PaymentLink | undefined> {
      return db.selectFrom('payment_links').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()
    },

    /** A link by its public address, with the owner's name for payers, e-mail and EUID (its charges' merchant). */
    findBySlug(slug: string) {
      return db.selectFrom('payment_links').innerJoin('accounts', 'accounts.id', 'payment_links.account_id')
        .selectAll('payment_links')
        .select(['accounts.display_name', 'accounts.email as owner_email', 'accounts.euid as owner_euid'])
        .where('payment_links.slug', '=', slug)
        .executeTakeFirst()
    },

    /** The account's links, newest first, from just before a cursor's row. */
    listForAccount(accountId: number, page: { before: RowKey | null; limit: number }): Promise<PaymentLink[]> {
      let query = db.selectFrom('payment_links').selectAll().where('account_id', '=', accountId)
      if (page.before !== null) query = query.where(olderThan('payment_links', page.before))
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute()
    },

    setNotifySales(id: string, accountId: number, on: boolean): Promise<PaymentLink | undefined> {
      return db.updateTable('payment_links').set({ notify_sales: on }).where('id', '=', id).where('account_id', '=', accountId).returningAll().executeTakeFirst()
    },

    async deactivate(id: string, accountId: number, now: Date): Promise<PaymentLink | undefined> {
      return db.updateTable('payment_links').set({ active: false, deactivated_at: sql<Date>`coalesce(deactivated_at, ${now})` })
        .where('id', '=', id).where('account_id', '=', accountId).returningAll().executeTakeFirst()
    },

    sales,

    /** A link's charges, newest first. */
    chargesOf(linkId: string, limit: number) {
      return db.selectFrom('charges').select(['id', 'status', 'value_cents', 'paid_cents', 'created_at', 'informed_payer_name', 'payer_name'])
        .where('payment_link_id', '=', linkId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()
    },

    /** The EUID the provider gave a payer who paid a charge made with this tax number, as that charge informed it; null when none did. */
    async knownEuidOf(taxNumber: string): Promise<string | null> {
      const row = await db.selectFrom('charges').select('payer_euid')
        .where('informed_tax_number', '=', taxNumber).where('payer_euid', 'is not', null).where('status', 'in', ['depix_sent', 'after7d'])
        .orderBy('confirmed_at', 'desc').limit(1).executeTakeFirst()
      return row?.payer_euid ?? null
    },
  }
}
