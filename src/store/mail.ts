import { sql, type Kysely } from 'kysely'
import { compiledOnce } from './database.ts'
import { JOBS_CHANNEL, notifying } from './jobs.ts'
import type { Database } from './schema.ts'

/**
 * A message and its send_mail job, whose payload is { mailId } (store/job-kinds.ts), as the CTEs
 * 'queued' and 'job' of a statement: the mail is queued by the statement of the change that
 * causes it. Their parameters come first: code id, address, sealed text, created, send before, the
 * job's run_at and created_at. The statement notifies the runners (select notifying('send_mail')).
 */
export function withQueuedMail(db: Kysely<Database>) {
  return db
    .with('queued', (query) => query
      .insertInto('mail_outbox')
      .values({ code_id: 0, to_address: '', sealed: '', state: sql.lit('pending'), created_at: new Date(0), send_before: new Date(0) })
      .returning('id'))
    .with('job', (query) => query
      .insertInto('jobs')
      .columns(['kind', 'payload', 'run_at', 'created_at'])
      .expression((eb) => eb.selectFrom('queued').select([
        sql.lit('send_mail').as('kind'), sql<string>`jsonb_build_object('mailId', queued.id)`.as('payload'), sql<Date>`${new Date(0)}`.as('run_at'), sql<Date>`${new Date(0)}`.as('created_at'),
      ]))
      .returning('id'))
}

/** A message to queue, sealed: withQueuedMail's first parameters. */
export type QueuedMail = { codeId: number | null; to: string; sealed: string; now: Date; sendBefore: Date }
export const queuedMailParameters = (mail: QueuedMail) => [mail.codeId, mail.to, mail.sealed, mail.now, mail.sendBefore, mail.now, mail.now]

/** The mail outbox: messages sent by the job queue, and what the mail server did with them. */
export function mailRepository(db: Kysely<Database>) {
  // A withdrawal's confirmation and its end each queue a mail, and the lane reads and settles
  // them in batches: these three statements are built once (docs/performance.md,
  // "Withdrawals"). Parameters of the queueing: withQueuedMail's, then the notification's channel
  // and kind.
  const queued = compiledOnce(db, 'mail-queued', () => withQueuedMail(db).selectFrom('job').select(notifying('send_mail')))
  const byIds = compiledOnce(db, 'mail-by-ids', () => db.selectFrom('mail_outbox').selectAll().where(sql<boolean>`id = any(${[]}::int8[])`))
  const sent = compiledOnce(db, 'mail-sent', () => db
    .with('sent', (query) => query
      .updateTable('mail_outbox')
      .set({ state: sql.lit('sent'), sent_at: new Date(0), last_attempt_at: new Date(0), last_error: sql.lit(null) })
      .where(sql<boolean>`id = any(${[]}::int8[])`).where('state', '=', sql.lit('pending'))
      .returning('code_id'))
    .updateTable('wallet_codes')
    .set({ mail_state: sql.lit('sent') })
    .where('id', 'in', (eb) => eb.selectFrom('sent').select('code_id')))

  return {
    /**
     * Queues a message with the send_mail job that sends it, in one statement that notifies the
     * runners (docs/performance.md, "Withdrawals"). A code's message supersedes any still waiting
     * for the same address with a code for the same purpose (the newer code is the one that
     * matters); other mail supersedes nothing and is never superseded.
     */
    async queue(values: QueuedMail): Promise<void> {
      const superseded = values.codeId === null ? [] : await db
        .updateTable('mail_outbox')
        .set({ state: 'superseded' })
        .where('to_address', '=', values.to)
        .where('state', '=', 'pending')
        .where('code_id', 'in', db.selectFrom('wallet_codes as other').select('other.id').where('other.purpose', '=', db.selectFrom('wallet_codes').select('purpose').where('id', '=', values.codeId)))
        .returning('code_id')
        .execute()
      const codeIds = superseded.flatMap((row) => (row.code_id === null ? [] : [row.code_id]))
      if (codeIds.length > 0) await db.updateTable('wallet_codes').set({ mail_state: 'superseded' }).where('id', 'in', codeIds).execute()
      await queued([...queuedMailParameters(values), JOBS_CHANNEL, 'send_mail'])
    },

    /** The messages with these ids (those still there). */
    findMany(ids: readonly number[]) {
      return byIds([ids])
    },

    /** The server took these messages: they leave the outbox, in one statement, and their codes' states follow. */
    async markSent(ids: readonly number[], now: Date): Promise<void> {
      if (ids.length > 0) await sent([now, now, ids])
    },

    /** The message will never be sent (sealed with a retired key, or its code expired); its code's state follows. */
    async markFailed(id: number, error: string): Promise<void> {
      const [row] = await db.updateTable('mail_outbox').set({ state: 'failed', last_error: error }).where('id', '=', id).where('state', '=', 'pending').returning('code_id').execute()
      if (row?.code_id != null) await db.updateTable('wallet_codes').set({ mail_state: 'failed' }).where('id', '=', row.code_id).execute()
    },

    async recordFailure(id: number, error: string, now: Date): Promise<void> {
      await db
        .updateTable('mail_outbox')
        .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: error.slice(0, 1000), last_attempt_at: now }))
        .where('id', '=', id)
        .execute()
    },

    /** The latest attempt to hand mail to the server: when, and whether it went through. */
    async lastAttempt(): Promise<{ at: Date; ok: boolean } | null> {
      const row = await db
        .selectFrom('mail_outbox')
        .select(['last_error', 'last_attempt_at'])
        .where('last_attempt_at', 'is not', null)
        .orderBy('last_attempt_at', 'desc')
        .limit(1)
        .executeTakeFirst()
      return row ? { at: row.last_attempt_at!, ok: row.last_error === null } : null
    },

    /** Whether the latest attempt to hand mail to the server failed: the mail server is known to be failing. */
    async failing(): Promise<boolean> {
      const last = await this.lastAttempt()
      return last !== null && !last.ok
    },

    /** Messages to this address queued or being handed to the server for the first time (none failed yet). */
    async firstSendsPendingTo(address: string): Promise<number> {
      const row = await db
        .selectFrom('mail_outbox')
        .select(sql<number>`count(*)::int4`.as('n'))
        .where('to_address', '=', address)
        .where('state', '=', 'pending')
        .where('attempts', '=', 0)
        .executeTakeFirstOrThrow()
      return row.n
    },

    /** How many messages wait to be sent (metrics). */
    async pendingCount(): Promise<number> {
      const row = await db.selectFrom('mail_outbox').select(sql<number>`count(*)::int4`.as('n')).where('state', '=', 'pending').executeTakeFirstOrThrow()
      return row.n
    },
  }
}
