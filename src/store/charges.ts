import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Updateable } from 'kysely'
import type { ChargeStatus } from '../domain/charge.ts'
import type { ClawbackKind } from '../domain/clawback.ts'
import type { PayerHistory } from '../domain/payer-limits.ts'
import { accountApart } from './accounts.ts'
import { compiledOnce } from './database.ts'
import { answeredKey, type AnsweringKey } from './idempotency.ts'
import { jobRow, type ScheduledJob } from './jobs.ts'
import { balancesFrom, type Balances } from './ledger.ts'
import type { Account, Charge, ChargesTable, Database } from './schema.ts'
import { newerThan, olderThan, type RowKey } from './keyset.ts'

/** A charge and its receiving account, both locked until commit; the account as read under its lock. */
export type LockedCharge = { charge: Charge; account: Account }

/** One entry of a charge's timeline (the console), to be written: a provider's report, or a status the charge took. */
export type ChargeTimelineEntry = { kind: 'report' | 'status'; source: string | null; from: ChargeStatus | null; to: ChargeStatus | null; body: unknown; at: Date }

export type ChargeStatusRow = Pick<Charge, 'id' | 'status' | 'payer_name' | 'payer_tax_number' | 'payer_euid' | 'value_cents' | 'paid_cents' | 'updated_at' | 'hold_reason' | 'metadata' | 'refunded_cents'>

/** The columns a new charge is stored with (charges.open), in the order its statement takes them. */
const newChargeColumns = [
  'id', 'merchant_account_id', 'merchant_id', 'account_id', 'value_cents', 'currency', 'informed_euid', 'informed_tax_number', 'informed_payer_name',
  'webhook_url', 'webhook_secret', 'webhook_events', 'metadata', 'return_url', 'payment_link_id', 'provider_deposit_id', 'payer_euid', 'qr_copy_paste', 'status', 'provider_status',
  'created_at', 'expires_at', 'updated_at',
] as const satisfies ReadonlyArray<keyof ChargesTable>

/**
 * A new charge: every column it is stored with, each given, null where it has none. Never
 * undefined: the statement sends every column, so a column left out would not take its default.
 */
export type NewCharge = { [Column in (typeof newChargeColumns)[number]]: Exclude<Insertable<ChargesTable>[Column], undefined> } & { created_at: Date }

const timelineRows = (chargeId: string, timeline: readonly ChargeTimelineEntry[]) => timeline.map((entry) => ({
  charge_id: chargeId, kind: entry.kind, source: entry.source, from_status: entry.from, to_status: entry.to,
  body: entry.body === undefined || entry.body === null ? null : JSON.stringify(entry.body), at: entry.at,
}))

/** What the public payment page reads of a charge: nothing it does not show or need. */
export type PaymentPageRow = Pick<Charge, 'id' | 'status' | 'value_cents' | 'paid_cents' | 'qr_copy_paste' | 'expires_at' | 'confirmed_at' | 'updated_at' | 'payer_name' | 'payer_tax_number' | 'bank_tx_id' | 'provider_deposit_id' | 'return_url'> & { display_name: string | null }

/**
 * Charges this process has written since it started: what the payment pages' cache (pay/page-cache.ts)
 * compares, so a change recorded here is shown at once. Counted before the commit, so a page read
 * in between may show the old state for the cache's short life.
 */
let chargeWrites = 0

export function chargesRepository(db: Kysely<Database>) {
  // Every view of a payment page (and its reloads) reads this: prepared once per connection.
  const paymentPageRow = compiledOnce(db, 'payment-page-row', () => db.selectFrom('charges').innerJoin('accounts', 'accounts.id', 'charges.merchant_account_id')
    .select(['charges.id', 'charges.status', 'charges.value_cents', 'charges.paid_cents', 'charges.qr_copy_paste', 'charges.expires_at', 'charges.confirmed_at', 'charges.updated_at',
      'charges.payer_name', 'charges.payer_tax_number', 'charges.bank_tx_id', 'charges.provider_deposit_id', 'charges.return_url', 'accounts.display_name'])
    .where('charges.id', '=', ''))
  // One statement locks both rows, the charge's then the account's (FOR UPDATE locks each row of
  // the join in the order the tables are named): a move starts with one round trip, not two. The
  // whole account, read under its lock: a move's checks, bindings and webhook body need it, and
  // read it no second time. Every move runs one of these: built once, prepared once per
  // connection. The parameter is the charge's id or its deposit id.
  const lockedRows = (by: 'id' | 'provider_deposit_id') => compiledOnce(db, `charge-locked-by-${by.replaceAll('_', '-')}`, () =>
    db.selectFrom('charges').innerJoin('accounts', 'accounts.id', 'charges.account_id')
      .selectAll('charges')
      .select(accountApart.select())
      .where(`charges.${by}`, '=', '')
      .forUpdate())
  const lockedById = lockedRows('id')
  const lockedByDepositId = lockedRows('provider_deposit_id')
  const lockWithAccount = async (rows: Promise<Array<Record<string, unknown>>>): Promise<LockedCharge | undefined> => {
    const [row] = await rows
    if (!row) return undefined
    const account = accountApart.take<Account>(row)
    return { charge: row as Charge, account }
  }

  // get-payment's read, by the primary key alone: with the merchant in the condition too, the
  // planner may walk the merchant's index through all of its charges (it did on a new table), and
  // a prepared statement keeps the plan it picked. The parameter is the id.
  const statusRows = compiledOnce(db, 'charge-status', () =>
    db
      .selectFrom('charges')
      .select(['id', 'status', 'payer_name', 'payer_tax_number', 'payer_euid', 'value_cents', 'paid_cents', 'updated_at', 'hold_reason', 'metadata', 'refunded_cents', 'merchant_account_id'])
      .where('id', '=', ''),
  )

  // The statuses are written into the text (sql.lit): the statement that reads an account's
  // blockers is built once, and its only parameters are the account and the window's start.
  const status = (value: ChargeStatus) => sql.lit(value)
  const clawback = (value: ClawbackKind) => sql.lit(value)
  // A claw-back support must look at: will_refund or refunded after a credit, refunded after a partial MED.
  const toReview = (eb: ExpressionBuilder<Database, 'charges'>) => [
    eb.and([eb('status', 'in', [status('depix_sent'), status('after7d')]), eb('clawback', 'in', [clawback('will_refund'), clawback('refunded')])]),
    eb.and([eb('status', '=', status('will_refund')), eb('clawback', '=', clawback('refunded'))]),
  ]
  const clawbacksToReview = () => db.selectFrom('charges').where((eb) => eb.or(toReview(eb)))
  // What keeps an account from withdrawing (app/withdrawal-blockers.ts): a claw-back to review or
  // held, or a MED that took part of a payment confirmed since the window's start.
  const blocking = (eb: ExpressionBuilder<Database, 'charges'>, medWindowStart: Date) => eb.or([
    ...toReview(eb),
    eb.and([eb('status', '=', status('security_hold')), eb('clawback', 'is not', null)]),
    eb.and([eb('clawback', '=', clawback('med')), eb('taken_back_all', '=', sql.lit(false)), eb('confirmed_at', '>=', medWindowStart)]),
  ])
  // Whether an account may withdraw is read where money is about to leave (every payout's start):
  // its blocking charges counted and its available balances, in one statement (one row per
  // currency held, or one row of nulls). Parameters: the account, the window's start, the account.
  const blockersAndBalances = compiledOnce(db, 'withdrawal-blockers-and-balances', () => db
    .selectFrom((eb) => eb.selectFrom('charges').select(sql<number>`count(*)::int4`.as('n')).where('account_id', '=', 0).where((where) => blocking(where, new Date(0))).as('blocking'))
    .leftJoin('account_balances as balance', (join) => join.on('balance.account_id', '=', 0).on('balance.book', '=', sql.lit('available')))
    .select(['blocking.n', 'balance.currency', 'balance.amount']))

  // A new charge's statement: its text depends only on how many jobs it schedules and whether it
  // answers a key, so it is built once per shape rather than on every create, at the event loop's
  // cost (docs/performance.md, "Smaller choices, measured"), and its parameters are laid out in
  // the order the builder numbered them.
  const openings = new Map<string, (parameters: readonly unknown[]) => Promise<unknown[]>>()
  const openingStatement = (jobs: number, answering: boolean) => {
    const shape = `${jobs}:${answering}`
    let run = openings.get(shape)
    if (run === undefined) {
      run = compiledOnce(db, `charge-open-${jobs}-jobs${answering ? '-answering-key' : ''}`, () => {
        const unset = null as never
        // Each account's id is read from accounts as it is stored: a missing one is a null, which
        // the column refuses (23502), and the statement stores nothing (migration 020 says why
        // these are not foreign keys). The reads take no lock; accounts are never deleted.
        const existing = () => db.selectFrom('accounts').select('id').where('id', '=', unset)
        const values = { ...Object.fromEntries(newChargeColumns.map((column) => [column, unset])), merchant_account_id: existing(), account_id: existing() }
        const stored = db
          .with('charge', (query) => query.insertInto('charges').values(values as never).returning('id'))
          .with('queued', (query) => query.insertInto('jobs').values(Array.from({ length: jobs }, () => ({ kind: unset, payload: unset, run_at: unset, created_at: unset }))).returning('id'))
        return answering
          ? stored
            .with('answered', (query) => query.updateTable('idempotency_keys').set({ state: unset, response_status: unset, response_body: unset, lease_until: unset })
              .where('account_id', '=', unset).where('key', '=', unset).returning('key'))
            .selectFrom('charge').select('id')
          : stored.selectFrom('charge').select('id')
      })
      openings.set(shape, run)
    }
    return run
  }

  return {
    /** How many charges were created, or confirmed (credited), per credited currency (metrics). */
    countByCurrency(which: 'created' | 'confirmed'): Promise<Array<{ currency: Charge['currency']; n: number }>> {
      let query = db.selectFrom('charges').select(['currency', sql<number>`count(*)::int4`.as('n')])
      if (which === 'confirmed') query = query.where('confirmed_at', 'is not', null)
      return query.groupBy('currency').execute()
    },

    /**
     * Stores a new charge and the jobs its creation schedules in one statement: atomic without a
     * transaction around it, and one round trip instead of begin, the inserts and commit.
     * The jobs are due later (a new charge's at its expiry), so no runner needs waking. Every new
     * charge has the same columns and jobs: one text (two, with a key).
     * With `answering`, the idempotency key's answer is stored by the same statement: the charge
     * and its key's answer commit together, one round trip instead of two for every create the
     * SDK makes (it always sends a key).
     */
    async open(values: NewCharge, scheduled: readonly ScheduledJob[], answering?: AnsweringKey): Promise<void> {
      const jobs = scheduled.map((job) => jobRow(job.kind, job.payload, job.runAt, values.created_at))
      const keyAnswer = (key: AnsweringKey) => {
        const answered = answeredKey(200, key.body)
        return [answered.state, answered.response_status, answered.response_body, answered.lease_until, key.accountId, key.key]
      }
      await openingStatement(jobs.length, answering !== undefined)([
        ...newChargeColumns.map((column) => values[column]),
        ...jobs.flatMap((job) => [job.kind, job.payload, job.run_at, job.created_at]),
        ...(answering === undefined ? [] : keyAnswer(answering)),
      ])
    },

    /**
     * Inside a transaction: the charge, then its receiving account, locked until commit, so
     * concurrent events serialize. Every transaction that moves a charge starts here, so locks are
     * always taken in one order: charge, account, then whatever follows. The account is locked
     * before anything is written: the rows a move writes that reference it by foreign key (its
     * ledger entries) take key-share locks on it, and two transactions holding key-share on one
     * account while each wants its row lock (to post to the ledger or record the owner's EUID)
     * deadlock.
     */
    lockByDepositId(providerDepositId: string): Promise<LockedCharge | undefined> {
      return lockWithAccount(lockedByDepositId([providerDepositId]))
    },

    lockById(id: string): Promise<LockedCharge | undefined> {
      return lockWithAccount(lockedById([id]))
    },

    /** With `timeline`, the charge's new entries are written by the same statement, in the order given. */
    /** How many charge writes this process has made (see chargeWrites). */
    writes: () => chargeWrites,

    async update(id: string, values: Updateable<ChargesTable>, timeline: readonly ChargeTimelineEntry[] = []): Promise<Charge> {
      chargeWrites++
      return (timeline.length > 0 ? db.with('timeline', (query) => query.insertInto('charge_events').values(timelineRows(id, timeline))) : db)
        .updateTable('charges').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
    },

    /** The charge's new timeline entries, in the order given (the timeline reads them by id). */
    async recordTimeline(id: string, timeline: readonly ChargeTimelineEntry[]): Promise<void> {
      if (timeline.length > 0) await db.insertInto('charge_events').values(timelineRows(id, timeline)).execute()
    },

    /** The charges behind these provider deposit ids (those that are ours). */
    findByDepositIds(ids: string[]): Promise<Charge[]> {
      if (ids.length === 0) return Promise.resolve([])
      return db.selectFrom('charges').selectAll().where('provider_deposit_id', 'in', ids).execute()
    },

    /** Charges in security_hold, oldest first: the support queue, whole or a page after a key. */
    listHeld(page?: { after: RowKey | null; limit: number }): Promise<Charge[]> {
      let query = db.selectFrom('charges').selectAll().where('status', '=', 'security_hold').orderBy('updated_at').orderBy('id')
      if (page?.after) query = query.where(newerThan('updated_at', 'id', page.after))
      return (page === undefined ? query : query.limit(page.limit)).execute()
    },

    /**
     * What the provider reported that support must look at (docs/rules.md#clawbacks): a refund
     * announced for a credited payment, a "refunded" after MEDs for part of it, or one on a refund
     * we owe after a part was taken back; oldest first.
     */
    listClawbacksToReview(): Promise<Charge[]> {
      return clawbacksToReview().selectAll().orderBy('updated_at').orderBy('id').execute()
    },

    /**
     * Charges of this account that stop it withdrawing (docs/rules.md#withdrawal-blockers): a
     * claw-back support must look at, or a MED that took part of a payment confirmed since
     * `medWindowStart` (the provider may take the rest).
     */
    /** The account's charges that keep it from withdrawing (counted), and its available balances. */
    async withdrawalFacts(accountId: number, medWindowStart: Date): Promise<{ blockingCharges: number; available: Balances }> {
      const rows = await blockersAndBalances([accountId, medWindowStart, accountId])
      return { blockingCharges: rows[0]!.n, available: balancesFrom(rows) }
    },

    /** Charges the merchant refunded (in part or in full) on which a MED came later: "refunded, then disputed" (docs/rules.md#merchant-refund-statuses). */
    listRefundedThenDisputed(limit = 200): Promise<Charge[]> {
      return db.selectFrom('charges').selectAll().where('refunded_cents', '>', 0).where('clawback', '=', 'med').orderBy('updated_at').orderBy('id').limit(limit).execute()
    },

    /** The same count for several accounts in one read; an account with none is absent. */
    async blockingChargesOf(accountIds: readonly number[], medWindowStart: Date): Promise<Map<number, number>> {
      if (accountIds.length === 0) return new Map()
      const rows = await db
        .selectFrom('charges')
        .select(['account_id', sql<number>`count(*)::int4`.as('n')])
        .where('account_id', 'in', accountIds)
        .where((eb) => blocking(eb, medWindowStart))
        .groupBy('account_id')
        .execute()
      return new Map(rows.map((row) => [row.account_id, row.n]))
    },

    async countClawbacksToReview(): Promise<number> {
      const row = await clawbacksToReview().select(sql<number>`count(*)::int4`.as('n')).executeTakeFirstOrThrow()
      return row.n
    },

    findByIds(ids: readonly string[]): Promise<Charge[]> {
      if (ids.length === 0) return Promise.resolve([])
      return db.selectFrom('charges').selectAll().where('id', 'in', ids).execute()
    },

    /** A charge as its public payment page shows it, with its merchant's display name. */
    async forPaymentPage(id: string): Promise<PaymentPageRow | undefined> {
      return (await paymentPageRow([id]))[0] satisfies PaymentPageRow | undefined
    },

    findById(id: string): Promise<Charge | undefined> {
      return db.selectFrom('charges').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** What a status record shows of a charge, for its merchant only (another's is not there): get-payment's one narrow read. */
    async statusForMerchant(id: string, merchantAccountId: number): Promise<ChargeStatusRow | undefined> {
      const row = (await statusRows([id]))[0]
      return row?.merchant_account_id === merchantAccountId ? row : undefined
    },

    /** A charge as its merchant sees it: another account's charge is simply not there. */
    findForMerchant(id: string, merchantAccountId: number): Promise<Charge | undefined> {
      return db
        .selectFrom('charges')
        .selectAll()
        .where('id', '=', id)
        .where('merchant_account_id', '=', merchantAccountId)
        .executeTakeFirst()
    },

    /**
     * Charges newest first (created_at, then id, both descending): a merchant's own (`merchant`),
     * or an account's received and created ones (`account`). `before` continues after the last
     * charge of the previous page, so charges created meanwhile never shift a page.
     */
    list(
      scope: { merchantAccountId: number } | { accountId: number },
      options: { status: ChargeStatus | null; before: RowKey | null; createdFrom?: Date | null; createdTo?: Date | null; limit: number },
    ): Promise<Charge[]> {
      let query = db
        .selectFrom('charges')
        .selectAll()
        .where((eb) => ('merchantAccountId' in scope
          ? eb('merchant_account_id', '=', scope.merchantAccountId)
          : eb.or([eb('account_id', '=', scope.accountId), eb('merchant_account_id', '=', scope.accountId)])))
      if (options.status !== null) query = query.where('status', '=', options.status)
      if (options.createdFrom) query = query.where('created_at', '>=', options.createdFrom)
      if (options.createdTo) query = query.where('created_at', '<', options.createdTo)
      if (options.before !== null) query = query.where(olderThan('charges', options.before))
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute()
    },

    /** Confirmed payments by one EUID: what the payer-limit ladder climbs on. */
    async payerHistory(euid: string): Promise<PayerHistory> {
      const row = await db
        .selectFrom('charges')
        .select([sql<number>`count(*)::int4`.as('confirmed'), sql<Date | null>`min(confirmed_at)`.as('first')])
        .where('payer_euid', '=', euid)
        .where('confirmed_at', 'is not', null)
        .executeTakeFirstOrThrow()
      return { confirmedPayments: row.confirmed, firstConfirmedAt: row.first }
    },
  }
}
