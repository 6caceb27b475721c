import { sql, type Kysely } from 'kysely'

// An in-flight idempotency key carries a lease and the id its charge will have, so a process
// killed mid-request leaves a key that a retry can take over once the lease lapses, and find the
// charge if it was stored.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table idempotency_keys add column lease_until timestamptz`.execute(db)
  await sql`alter table idempotency_keys add column charge_id text`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table idempotency_keys drop column charge_id`.execute(db)
  await sql`alter table idempotency_keys drop column lease_until`.execute(db)
}
