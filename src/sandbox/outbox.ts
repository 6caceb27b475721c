// The sandbox's outbox (docs/rules.md#outbox): without SMTP_URL, mail is kept here and listed by
// GET /sandbox/outbox?email=, newest first. Its table has its own migration history, so
// production never creates it.
import { sql, type Kysely } from 'kysely'
import type { Migration } from 'kysely/migration'
import type { Clock } from '../clock.ts'
import type { Mailer } from '../mail/mailer.ts'
import { migrateToLatest } from '../store/migrate.ts'

type OutboxTables = {
  sandbox_outbox: { id?: number; to_address: string; subject: string; text: string; code: string | null; sent_at: Date }
}

const migrations: Record<string, Migration> = {
  '001_outbox': {
    async up(db) {
      await sql`
        create table sandbox_outbox (
          id int8 generated always as identity primary key,
          to_address text not null,
          subject text not null,
          text text not null,
          code text,
          sent_at timestamptz not null
        )`.execute(db)
      await sql`create index sandbox_outbox_to on sandbox_outbox (to_address, id)`.execute(db)
    },
  },
}

export type OutboxMail = { to: string; subject: string; text: string; code: string | null; sent_at: string }

export async function migrateOutbox(database: Kysely<any>): Promise<void> {
  await migrateToLatest(database, { migrations, tableName: 'sandbox_outbox_migrations' })
}

export async function createOutbox(database: Kysely<any>, clock: Clock) {
  await migrateOutbox(database)
  const db = database as Kysely<OutboxTables>
  const mailer: Mailer = {
    async send(mail) {
      await db.insertInto('sandbox_outbox').values({ to_address: mail.to, subject: mail.subject, text: mail.text, code: mail.code ?? null, sent_at: clock.now() }).execute()
    },
    check: async () => true,
    async close() {},
  }
  return {
    mailer,
    async list(email: string): Promise<OutboxMail[]> {
      const rows = await db.selectFrom('sandbox_outbox').selectAll().where('to_address', '=', email).orderBy('id', 'desc').limit(50).execute()
      return rows.map((row) => ({ to: row.to_address, subject: row.subject, text: row.text, code: row.code, sent_at: row.sent_at.toISOString() }))
    },
  }
}

export type Outbox = Awaited<ReturnType<typeof createOutbox>>
