import { sql, type Insertable, type Kysely, type Updateable } from 'kysely'
import type { WithdrawalStatus } from '../domain/withdrawal.ts'
import type { Account, Database, Payout, Withdrawal, WithdrawalDestination, WithdrawalDestinationsTable, WithdrawalsTable } from './schema.ts'
import { olderThan, type RowKey } from './keyset.ts'
import { accountApart } from './accounts.ts'
import { compiledOnce } from './database.ts'
import { JOBS_CHANNEL, notifying } from './jobs.ts'
import { queuedMailParameters, withQueuedMail, type QueuedMail } from './mail.ts'
import { movedPayoutApart, payoutApart } from './payouts.ts'


/** What a withdrawal's moves need of its destination: kind, key and label (never changed once confirmed) and its state. */
export type DestinationShown = Pick<WithdrawalDestination, 'type' | 'value' | 'label' | 'state'>
export type LockedWithdrawal = { withdrawal: Withdrawal; account: Account; destination: DestinationShown }

/** What a withdrawal's move writes: its status, why, when (each timestamp only in its own status). */
export type WithdrawalChange = Pick<Withdrawal, 'status' | 'review_reason' | 'failure_code' | 'updated_at'> & Partial<Pick<Withdrawal, 'confirmed_at' | 'sent_at' | 'completed_at'>>

/** What a payout's move writes when its withdrawal follows in the same statement: status, why, when, and a Liquid payout's confirmations. */
export type PayoutChange = Pick<Payout, 'status' | 'review_reason' | 'failure_code' | 'updated_at'> & Partial<Pick<Payout, 'sent_at' | 'completed_at' | 'confirmations'>>

/** The statement below's row: the withdrawal's columns, then its account's and its payout's named apart, and the destination's. */
type LockedRow = Withdrawal & { destination__type: DestinationShown['type']; destination__value: string; destination__label: string | null; destination__state: DestinationShown['state'] }

/** An owner's withdrawal destinations and withdrawals. */
export function withdrawalsRepository(db: Kysely<Database>) {
  // The withdrawal, its account and, for a payout's move, the payout, locked by one statement in
  // that order (FOR UPDATE OF locks a row of each table in the order named), every move's order:
  // one round trip where there were three. The destination is read with them, not locked: a
  // cancel takes none of these locks, so a read after them would be no later in any order that
  // matters. Built once, prepared once per connection; the parameters are the withdrawal's id
  // and the payout's.
  const locked = (withPayout: boolean) => compiledOnce(db, withPayout ? 'withdrawal-locked-with-payout' : 'withdrawal-locked', () => {
    const query = db.selectFrom('withdrawals')
      .innerJoin('accounts', 'accounts.id', 'withdrawals.account_id')
      .innerJoin('withdrawal_destinations as destination', (join) => join.onRef('destination.id', '=', 'withdrawals.destination_id').onRef('destination.account_id', '=', 'accounts.id'))
      .selectAll('withdrawals')
      .select(accountApart.select())
      .select(['destination.type as destination__type', 'destination.value as destination__value', 'destination.label as destination__label', 'destination.state as destination__state'])
      .where('withdrawals.id', '=', '')
    return withPayout
      ? query.innerJoin('payouts', (join) => join.on('payouts.id', '=', '').onRef('payouts.withdrawal_id', '=', 'withdrawals.id')).select(payoutApart.select()).forUpdate(['withdrawals', 'accounts', 'payouts'])
      : query.forUpdate(['withdrawals', 'accounts'])
  })
  const lockedAlone = locked(false)
  const lockedWithPayout = locked(true)
  // A move's change and the owner's e-mail about it, with its send_mail job, in one statement;
  // for a withdrawal following its payout, the payout's move too (docs/performance.md,
  // "Withdrawals"). Parameters: withQueuedMail's; the payout's status, review reason, failure
  // code, updated_at, sent_at, completed_at, confirmations and id; the withdrawal's status, review
  // reason, failure code, updated_at, confirmed_at, sent_at and completed_at, and id (a null
  // timestamp or count: left as it is); the notification's channel and kind.
  const withdrawalMoved = <Q extends { updateTable: Kysely<Database>['updateTable'] }>(query: Q) => query
    .updateTable('withdrawals')
    .set({
      status: sql<WithdrawalStatus>`${''}`, review_reason: sql<Withdrawal['review_reason']>`${''}`, failure_code: sql<Withdrawal['failure_code']>`${''}`, updated_at: new Date(0),
      confirmed_at: sql<Date>`coalesce(${new Date(0)}, confirmed_at)`, sent_at: sql<Date>`coalesce(${new Date(0)}, sent_at)`, completed_at: sql<Date>`coalesce(${new Date(0)}, completed_at)`,
    })
    .where('id', '=', '')
    .returningAll()
  const movedWithMail = compiledOnce(db, 'withdrawal-moved-with-mail', () => withQueuedMail(db)
    .with('moved', withdrawalMoved)
    .selectFrom('moved')
    .selectAll('moved')
    .select(notifying('send_mail')))
  const payoutMoved = <Q extends { updateTable: Kysely<Database>['updateTable'] }>(query: Q) => query
    .updateTable('payouts')
    .set({
      status: sql<Payout['status']>`${''}`, review_reason: sql<Payout['review_reason']>`${''}`, failure_code: sql<Payout['failure_code']>`${''}`, updated_at: new Date(0),
      sent_at: sql<Date>`coalesce(${new Date(0)}, sent_at)`, completed_at: sql<Date>`coalesce(${new Date(0)}, completed_at)`, confirmations: sql<number>`coalesce(${0}, confirmations)`,
    })
    .where('id', '=', '')
    .returningAll()
  const movedWithPayoutAndMail = compiledOnce(db, 'withdrawal-moved-with-payout-and-mail', () => withQueuedMail(db)
    .with('moved_payout', payoutMoved)
    .with('moved', withdrawalMoved)
    .selectFrom(['moved', 'moved_payout'])
    .selectAll('moved')
    .select(movedPayoutApart.select())
    .select(notifying('send_mail')))
  // The steps the owner is not e-mailed about (sending, sent): the payout's move and the withdrawal's, without a mail.
  const movedWithPayout = compiledOnce(db, 'withdrawal-moved-with-payout', () => db
    .with('moved_payout', payoutMoved)
    .with('moved', withdrawalMoved)
    .selectFrom(['moved', 'moved_payout'])
    .selectAll('moved')
    .select(movedPayoutApart.select()))
  const withdrawalParameters = (id: string, change: WithdrawalChange) => [
    change.status, change.review_reason, change.failure_code, change.updated_at, change.confirmed_at ?? null, change.sent_at ?? null, change.completed_at ?? null, id,
  ]

  /**
   * The withdrawal and its account, locked, with what its e-mails and its payout's start need of
   * its destination; with `payoutId` (one of its payouts), that payout locked after them.
   */
  async function lockWithAccount(id: string, payoutId?: string): Promise<(LockedWithdrawal & { payout?: Payout }) | undefined> {
    // The payout's id comes first: its join precedes the withdrawal's condition in the text.
    const [row] = payoutId === undefined ? await lockedAlone([id]) : await lockedWithPayout([payoutId, id])
    // A payout not of this withdrawal (never asked): the withdrawal alone, as without one.
    if (!row) return payoutId === undefined ? undefined : lockWithAccount(id)
    const fields = row as unknown as Record<string, unknown>
    const account = accountApart.take<Account>(fields)
    const payout = payoutId === undefined ? undefined : payoutApart.take<Payout>(fields)
    const { destination__type: type, destination__value: value, destination__label: label, destination__state: state, ...withdrawal } = row as unknown as LockedRow
    return { withdrawal, account, destination: { type, value, label, state }, ...(payout ? { payout } : {}) }
  }

  return {
    async insertDestination(values: Insertable<WithdrawalDestinationsTable>): Promise<WithdrawalDestination | undefined> {
      // The unique index keeps one live destination per key or script per account.
      return db.insertInto('withdrawal_destinations').values(values).onConflict((oc) => oc.doNothing()).returningAll().executeTakeFirst()
    },

    /** The live destination of this account with this key or script, if there is one. */
    findLiveDestination(accountId: number, type: WithdrawalDestination['type'], match: string): Promise<WithdrawalDestination | undefined> {
      return db
        .selectFrom('withdrawal_destinations')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('type', '=', type)
        .where(sql<string>`coalesce(script_hex, value)`, '=', match)
        .where('state', '<>', 'canceled')
        .executeTakeFirst()
    },

    findDestination(id: string, accountId: number): Promise<WithdrawalDestination | undefined> {
      return db.selectFrom('withdrawal_destinations').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()
    },

    /** The destination, share-locked until the transaction ends: a cancel waits for a withdrawal being confirmed to it, and is then seen. */
    lockDestination(id: string): Promise<WithdrawalDestination | undefined> {
      return db.selectFrom('withdrawal_destinations').selectAll().where('id', '=', id).forShare().executeTakeFirst()
    },

    findDestinationByCancelToken(tokenHash: string): Promise<WithdrawalDestination | undefined> {
      return db.selectFrom('withdrawal_destinations').selectAll().where('cancel_token_hash', '=', tokenHash).executeTakeFirst()
    },

    listDestinations(accountId: number): Promise<WithdrawalDestination[]> {
      return db
        .selectFrom('withdrawal_destinations')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('state', '<>', 'canceled')
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute()
    },

    /** Every destination the account ever had, canceled ones too (its withdrawals still name them). */
    destinationsByIds(ids: readonly string[]): Promise<WithdrawalDestination[]> {
      if (ids.length === 0) return Promise.resolve([])
      return db.selectFrom('withdrawal_destinations').selectAll().where('id', 'in', ids).execute()
    },

    listDestinationsWithCanceled(accountId: number): Promise<WithdrawalDestination[]> {
      return db.selectFrom('withdrawal_destinations').selectAll().where('account_id', '=', accountId).execute()
    },

    /** Moves a destination from `from` only: false when it had already moved. */
    async updateDestination(id: string, from: WithdrawalDestination['state'], values: Updateable<WithdrawalDestinationsTable>): Promise<WithdrawalDestination | undefined> {
      return db.updateTable('withdrawal_destinations').set(values).where('id', '=', id).where('state', '=', from).returningAll().executeTakeFirst()
    },

    async insert(values: Insertable<WithdrawalsTable>): Promise<Withdrawal> {
      return db.insertInto('withdrawals').values(values).returningAll().executeTakeFirstOrThrow()
    },

    findById(id: string): Promise<Withdrawal | undefined> {
      return db.selectFrom('withdrawals').selectAll().where('id', '=', id).executeTakeFirst()
    },

    findForAccount(id: string, accountId: number): Promise<Withdrawal | undefined> {
      return db.selectFrom('withdrawals').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()
    },


    /**
     * Inside a transaction: the withdrawal, then its account, locked until commit. Every change to
     * a withdrawal starts here, in the order charges use (subject, then account), so a withdrawal
     * and a charge of one account never wait on each other in opposite orders.
     */
    async lockById(id: string): Promise<Withdrawal | undefined> {
      return (await lockWithAccount(id))?.withdrawal
    },

    /** lockById, answering the account's row too, as read under its lock: a move's e-mail needs it, and reads it no second time. */
    lockWithAccount,

    async update(id: string, values: Updateable<WithdrawalsTable>): Promise<Withdrawal> {
      return db.updateTable('withdrawals').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
    },

    /** A move's change written with the owner's e-mail about it queued, in one statement; throws when there is no such withdrawal. */
    async updateWithMail(id: string, change: WithdrawalChange, mail: QueuedMail): Promise<Withdrawal> {
      const [row] = await movedWithMail([...queuedMailParameters(mail), ...withdrawalParameters(id, change), JOBS_CHANNEL, 'send_mail'])
      if (!row) throw new Error(`no withdrawal ${id}`)
      const { notified: _notified, ...withdrawal } = row
      return withdrawal
    },

    /**
     * A move's change with the move of the payout it follows, and the owner's e-mail about it when
     * there is one, written by one statement; throws when either row is missing.
     */
    async updateWithPayout(id: string, change: WithdrawalChange, payout: { id: string; change: PayoutChange }, mail: QueuedMail | null): Promise<{ withdrawal: Withdrawal; payout: Payout }> {
      const { change: moved } = payout
      const moves = [
        moved.status, moved.review_reason, moved.failure_code, moved.updated_at, moved.sent_at ?? null, moved.completed_at ?? null, moved.confirmations ?? null, payout.id,
        ...withdrawalParameters(id, change),
      ]
      const [row] = mail === null ? await movedWithPayout(moves) : await movedWithPayoutAndMail([...queuedMailParameters(mail), ...moves, JOBS_CHANNEL, 'send_mail'])
      if (!row) throw new Error(`no withdrawal ${id} with payout ${payout.id}`)
      const fields = row as unknown as Record<string, unknown>
      const movedPayout = movedPayoutApart.take<Payout>(fields)
      const { notified: _notified, ...withdrawal } = fields as unknown as Withdrawal & { notified: unknown }
      return { withdrawal, payout: movedPayout }
    },

    /** BRL cents the account has withdrawn, or is withdrawing, since `since` (for the rolling limits). */
    async brlCentsSince(accountId: number, since: Date): Promise<number> {
      const row = await db
        .selectFrom('withdrawals')
        .select(sql<string>`coalesce(sum(brl_cents), 0)::text`.as('total'))
        .where('account_id', '=', accountId)
        .where('created_at', '>=', since)
        .where('status', 'not in', ['failed', 'canceled', 'requested'])
        .executeTakeFirstOrThrow()
      // A merchant's refunds leave the same balance and count against the same limits (docs/rules.md#merchant-refund-limits).
      const refunds = await db.selectFrom('merchant_refunds').select(sql<string>`coalesce(sum(brl_cents), 0)::text`.as('total'))
        .where('account_id', '=', accountId).where('created_at', '>=', since).where('status', '<>', 'failed').executeTakeFirstOrThrow()
      return Number(row.total) + Number(refunds.total)
    },

    list(
      accountId: number,
      options: { status: WithdrawalStatus | null; before: RowKey | null; createdFrom?: Date | null; createdTo?: Date | null; limit: number },
    ): Promise<Withdrawal[]> {
      let query = db.selectFrom('withdrawals').selectAll().where('account_id', '=', accountId)
      if (options.status !== null) query = query.where('status', '=', options.status)
      if (options.createdFrom) query = query.where('created_at', '>=', options.createdFrom)
      if (options.createdTo) query = query.where('created_at', '<', options.createdTo)
      if (options.before !== null) query = query.where(olderThan('withdrawals', options.before))
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute()
    },




    async countByStatus(): Promise<Array<{ status: WithdrawalStatus; n: number }>> {
      return db.selectFrom('withdrawals').select(['status', sql<number>`count(*)::int4`.as('n')]).groupBy('status').execute()
    },

    findByIds(ids: readonly string[]): Promise<Withdrawal[]> {
      if (ids.length === 0) return Promise.resolve([])
      return db.selectFrom('withdrawals').selectAll().where('id', 'in', ids).execute()
    },
  }
}
