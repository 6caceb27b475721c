import { sql, type Kysely } from 'kysely'

// The extra webhook events a charge opted into at creation (docs/rules.md#webhook-events); none by
// default, so charges made before this column existed keep receiving only the spec's two events.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table charges add column webhook_events text[] not null default '{}'`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table charges drop column webhook_events`.execute(db)
}
