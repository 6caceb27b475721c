import { sql, type Kysely } from 'kysely'

// An Idempotency-Key fixes the id of whatever its request makes, a charge or a withdrawal
// (app/idempotent-request.ts): the column says so.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table idempotency_keys rename column charge_id to subject_id`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table idempotency_keys rename column subject_id to charge_id`.execute(db)
}
