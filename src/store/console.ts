// What the support console reads and keeps (docs/rules.md#console; its sessions are in
// sessions.ts): the queues with their counts, a charge's timeline, the audit log by operator and
// action, and the look-ups. Every queue is oldest first, paged by keyset (time, then id) after the
// last row of the page before.
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import type { ConsoleQueue } from '../domain/support-queues.ts'
import { newerThan, type RowKey } from './keyset.ts'
import type { Account, Charge, Database, Payout, Refund, Withdrawal } from './schema.ts'

/** Charges still waiting on the provider this long after creation are stuck. */
export const STUCK_AFTER_MS = 48 * 3_600_000
/** A reconciliation that failed this many times in a row is stuck. */
export const STUCK_AFTER_FAILURES = 3

/** A page of a queue: the rows after `after` (from the start when null), `limit` of them at most. */
export type Page<Key = RowKey> = { after: Key | null; limit: number }

/** Where the provider-refusals queue resumes: both kinds merge by time, claw-backs first at one time, each kind by id. */
export type RefusalKey = { at: Date; kind: 'clawback' | 'payout'; id: string }

/** A row's (time, id) past the key, compared as the database compares ids of one kind (hex after a fixed prefix). */
const pastKey = (at: Date, id: string, after: RowKey | null) => after === null || at.getTime() > after.at.getTime() || (at.getTime() === after.at.getTime() && id > after.id)

export type ChargeEventRow = { id: number; kind: 'report' | 'status'; source: string | null; from_status: string | null; to_status: string | null; body: unknown; at: Date }

export function consoleRepository(db: Kysely<Database>) {
  const count = async (query: SelectQueryBuilder<Database, any, object>): Promise<number> =>
    (await query.select(sql<number>`count(*)::int4`.as('n')).executeTakeFirstOrThrow() as { n: number }).n

  const refunds = () => db.selectFrom('refunds').where('status', '=', 'owed')
  const withdrawalsInReview = () => db.selectFrom('withdrawals').where('status', '=', 'in_review')
  const unknownDeposits = () =>
    db.selectFrom('unknown_deposits').where((eb) => eb.not(eb.exists(eb.selectFrom('charges').select('id').whereRef('charges.provider_deposit_id', '=', 'unknown_deposits.qr_id'))))
  // What the provider refused or takes back that support must look at: a Pix-out it did not pay
  // after our DePix left, a refund announced (or made) after a credit.
  const failedPayouts = () => db.selectFrom('payouts').where('payouts.status', 'in', ['sent', 'completed']).where('payouts.provider_status', 'in', ['error', 'canceled', 'refunded'])
  const clawbacksToReview = () =>
    db.selectFrom('charges').where((eb) => eb.or([
      eb.and([eb('status', 'in', ['depix_sent', 'after7d']), eb('clawback', 'in', ['will_refund', 'refunded'])]),
      eb.and([eb('status', '=', 'will_refund'), eb('clawback', '=', 'refunded')]),
    ]))
  // Stuck: still waiting on the provider long after creation (the charges_status index), or a
  // reconciliation that keeps failing (few jobs, a partial index); two reads, merged.
  const openTooLong = (now: Date) => db.selectFrom('charges').where('status', 'in', ['pending', 'under_review', 'will_refund']).where('created_at', '<', new Date(now.getTime() - STUCK_AFTER_MS))
  const failingReconciliations = () =>
    db.selectFrom('jobs').select(['attempts', 'last_error', sql<string>`payload->>'chargeId'`.as('charge_id')]).where('kind', '=', 'reconcile_charge').where('attempts', '>=', STUCK_AFTER_FAILURES)
  const stuckCharges = async (now: Date, page: Page) => {
    let open = openTooLong(now).selectAll().orderBy('created_at').orderBy('id')
    if (page.after !== null) open = open.where(newerThan('created_at', 'id', page.after))
    const [opened, failing] = await Promise.all([open.limit(page.limit).execute(), failingReconciliations().limit(1000).execute()])
    const failingCharges = failing.length === 0 ? [] : await db.selectFrom('charges').selectAll().where('id', 'in', failing.map((job) => job.charge_id)).execute()
    const byId = new Map<string, Charge>()
    for (const charge of [...opened, ...failingCharges.filter((charge) => pastKey(charge.created_at, charge.id, page.after))]) byId.set(charge.id, charge)
    const jobOf = new Map(failing.map((job) => [job.charge_id, job]))
    return [...byId.values()]
      .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, page.limit)
      .map((charge) => ({ ...charge, failures: jobOf.get(charge.id)?.attempts ?? null, last_error: jobOf.get(charge.id)?.last_error ?? null }))
  }

  return {
    /** How many items wait in each queue. */
    async queueCounts(now: Date): Promise<Record<ConsoleQueue, number>> {
      const [holds, owed, withdrawals, unknown, payouts, clawbacks, stuckCount] = await Promise.all([
        count(db.selectFrom('charges').where('status', '=', 'security_hold')),
        count(refunds()),
        count(withdrawalsInReview()),
        count(unknownDeposits()),
        count(failedPayouts()),
        count(clawbacksToReview()),
        stuckCharges(now, { after: null, limit: 10_000 }).then((rows) => rows.length),
      ])
      return { holds, refunds: owed, withdrawals, unknown_deposits: unknown, provider_refusals: payouts + clawbacks, stuck_reconciliations: stuckCount }
    },

    refundsOwed(page: Page): Promise<Refund[]> {
      let query = refunds().selectAll().orderBy('created_at').orderBy('id')
      if (page.after !== null) query = query.where(newerThan('created_at', 'id', page.after))
      return query.limit(page.limit).execute()
    },

    withdrawalsInReview(page: Page): Promise<Withdrawal[]> {
      let query = withdrawalsInReview().selectAll().orderBy('updated_at').orderBy('id')
      if (page.after !== null) query = query.where(newerThan('updated_at', 'id', page.after))
      return query.limit(page.limit).execute()
    },

    unknownDeposits(page: Page) {
      let query = unknownDeposits().selectAll().orderBy('first_seen_at').orderBy('qr_id')
      if (page.after !== null) query = query.where(newerThan('first_seen_at', 'qr_id', page.after))
      return query.limit(page.limit).execute()
    },

    /**
     * Both kinds at once, oldest first: charges whose claw-back needs a look, and payouts the provider
     * did not pay. Each kind is read past the key in its own order; at one time claw-backs come
     * first, so ids of the two kinds are never compared.
     */
    async providerRefusals(page: Page<RefusalKey>): Promise<Array<{ kind: 'clawback'; charge: Charge; since: Date } | { kind: 'payout'; payout: Payout; chargeId: string | null; since: Date }>> {
      const after = page.after
      let charges = clawbacksToReview().selectAll()
      let payouts = failedPayouts().leftJoin('merchant_refunds', 'merchant_refunds.id', 'payouts.merchant_refund_id').selectAll('payouts').select('merchant_refunds.charge_id as refunded_charge_id')
      if (after !== null) {
        charges = after.kind === 'clawback' ? charges.where(newerThan('updated_at', 'id', after)) : charges.where('updated_at', '>', after.at)
        payouts = after.kind === 'payout' ? payouts.where(newerThan('payouts.updated_at', 'payouts.id', after)) : payouts.where('payouts.updated_at', '>=', after.at)
      }
      const [clawbacks, failed] = await Promise.all([
        charges.orderBy('updated_at').orderBy('id').limit(page.limit).execute(),
        payouts.orderBy('payouts.updated_at').orderBy('payouts.id').limit(page.limit).execute(),
      ])
      // A stable sort by time keeps each kind in the database's order, claw-backs before payouts at one time.
      return [
        ...clawbacks.map((charge) => ({ kind: 'clawback' as const, charge, since: charge.updated_at })),
        // A merchant's refund is read on its charge's page.
        ...failed.map(({ refunded_charge_id: chargeId, ...payout }) => ({ kind: 'payout' as const, payout, chargeId, since: payout.updated_at })),
      ].sort((a, b) => a.since.getTime() - b.since.getTime()).slice(0, page.limit)
    },

    stuckReconciliations(now: Date, page: Page): Promise<Array<Charge & { failures: number | null; last_error: string | null }>> {
      return stuckCharges(now, page)
    },

    chargeEvents(chargeId: string): Promise<ChargeEventRow[]> {
      return db.selectFrom('charge_events').select(['id', 'kind', 'source', 'from_status', 'to_status', 'body', 'at']).where('charge_id', '=', chargeId).orderBy('id').execute() as Promise<ChargeEventRow[]>
    },

    postingsOf(subject: { chargeId: string } | { withdrawalId: string }) {
      let query = db.selectFrom('ledger_postings').innerJoin('ledger_entries', 'ledger_entries.posting_id', 'ledger_postings.id')
        .select(['ledger_postings.id', 'ledger_postings.key', 'ledger_postings.kind', 'ledger_postings.created_at', 'ledger_entries.book', 'ledger_entries.currency', 'ledger_entries.amount', 'ledger_entries.account_id'])
      query = 'chargeId' in subject ? query.where('ledger_postings.charge_id', '=', subject.chargeId) : query.where('ledger_postings.withdrawal_id', '=', subject.withdrawalId)
      return query.orderBy('ledger_postings.id').orderBy('ledger_entries.id').execute()
    },

    webhookAttemptsOf(chargeId: string) {
      return db.selectFrom('webhook_events').leftJoin('webhook_attempts', 'webhook_attempts.event_id', 'webhook_events.id')
        .select(['webhook_events.id as event_id', 'webhook_events.event', 'webhook_events.state', 'webhook_events.created_at', 'webhook_attempts.at', 'webhook_attempts.status_code', 'webhook_attempts.error', 'webhook_attempts.duration_ms'])
        .where('webhook_events.charge_id', '=', chargeId).orderBy('webhook_events.created_at').orderBy('webhook_attempts.id').execute()
    },

    /** Operator actions on these subjects (a payment, its refund, a withdrawal, an account), oldest first. */
    auditOf(subjects: readonly string[]) {
      if (subjects.length === 0) return Promise.resolve([])
      return db.selectFrom('audit_log').selectAll().where('subject', 'in', subjects).orderBy('id').limit(500).execute()
    },

    /** The audit log, newest first, by operator and by action (an action prefix such as "review." matches its family). */
    auditLog(filter: { actor: string | null; action: string | null; beforeId: number | null; limit: number }) {
      let query = db.selectFrom('audit_log').selectAll()
      if (filter.actor !== null) query = query.where('actor', '=', filter.actor)
      if (filter.action !== null) query = filter.action.endsWith('.') ? query.where('action', 'like', `${filter.action.replace(/[\\%_]/g, '\\$&')}%`) : query.where('action', '=', filter.action)
      if (filter.beforeId !== null) query = query.where('id', '<', filter.beforeId)
      return query.orderBy('id', 'desc').limit(filter.limit).execute()
    },

    /** The actors and actions the audit log holds, for its filters. */
    async auditFacets(): Promise<{ actors: string[]; actions: string[] }> {
      const [actors, actions] = await Promise.all([
        db.selectFrom('audit_log').select('actor').distinct().orderBy('actor').limit(200).execute(),
        db.selectFrom('audit_log').select('action').distinct().orderBy('action').limit(200).execute(),
      ])
      return { actors: actors.map((row) => row.actor), actions: actions.map((row) => row.action) }
    },

    /** Accounts by e-mail (exact or prefix), owner's tax number or EUID. */
    findAccounts(probe: { email?: string; taxNumber?: string; euid?: string }): Promise<Account[]> {
      let query = db.selectFrom('accounts').selectAll()
      if (probe.email !== undefined) query = query.where('email', 'like', `${probe.email.replace(/[\\%_]/g, '\\$&')}%`)
      if (probe.taxNumber !== undefined) {
        const taxNumber = probe.taxNumber
        query = query.where((eb) => eb.or([
          eb('owner_tax_number', '=', taxNumber),
          eb('id', 'in', eb.selectFrom('identity_bindings').select('account_id').where('kind', '=', 'tax_number').where('value', '=', taxNumber)),
        ]))
      }
      if (probe.euid !== undefined) {
        const euid = probe.euid
        query = query.where((eb) => eb.or([
          eb('euid', '=', euid),
          eb('id', 'in', eb.selectFrom('identity_bindings').select('account_id').where('kind', '=', 'euid').where('value', '=', euid)),
        ]))
      }
      return query.orderBy('id').limit(20).execute()
    },

    /** The charge with this id or provider qrId. */
    findCharge(idOrQrId: string): Promise<Charge | undefined> {
      return db.selectFrom('charges').selectAll().where((eb) => eb.or([eb('id', '=', idOrQrId), eb('provider_deposit_id', '=', idOrQrId)])).limit(1).executeTakeFirst()
    },

    accountCharges(accountId: number, limit: number): Promise<Charge[]> {
      return db.selectFrom('charges').selectAll().where((eb) => eb.or([eb('account_id', '=', accountId), eb('merchant_account_id', '=', accountId)])).orderBy('created_at', 'desc').limit(limit).execute()
    },

    accountWithdrawals(accountId: number, limit: number): Promise<Withdrawal[]> {
      return db.selectFrom('withdrawals').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').limit(limit).execute()
    },

    accountTokens(accountId: number) {
      return db.selectFrom('api_tokens').select(['id', 'status', 'merchant_id', 'last4', 'created_at', 'revoked_at', 'last_used_at', 'expires_at']).where('account_id', '=', accountId).orderBy('created_at', 'desc').limit(20).execute()
    },

    /** Blocks on any of these identities, live ones first. */
    blocksOn(identities: ReadonlyArray<{ kind: 'email' | 'tax_number' | 'euid'; value: string }>) {
      if (identities.length === 0) return Promise.resolve([])
      return db.selectFrom('blocks').selectAll().where((eb) => eb.or(identities.map((identity) => eb.and([eb('kind', '=', identity.kind), eb('value', '=', identity.value)])))).orderBy('id', 'desc').execute()
    },

    findBlock(id: number) {
      return db.selectFrom('blocks').selectAll().where('id', '=', id).executeTakeFirst()
    },

    async deleteBlock(id: number): Promise<boolean> {
      const deleted = await db.deleteFrom('blocks').where('id', '=', id).returning('id').executeTakeFirst()
      return deleted !== undefined
    },
  }
}
