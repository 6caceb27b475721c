// The embedded database's upkeep (app/vacuum-database.ts): PGlite runs no autovacuum, so the
// service vacuums and analyzes every table hourly; on a PostgreSQL server autovacuum does it and
// the service queues nothing.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { VACUUM_EVERY_MS } from '../../src/app/vacuum-database.ts'
import { startTestService, T0, testDatabase, type TestService } from '../support/harness.ts'

let service: TestService

before(async () => {
  service = await startTestService()
})
after(() => service.close())

const upkeepJobs = () => service.database.db.selectFrom('jobs').select(['run_at', 'attempts', 'last_error']).where('kind', '=', 'vacuum_database').execute()
/** The service's tables that no VACUUM has reached yet. */
const neverVacuumed = async () =>
  (await sql<{ name: string }>`select relname as name from pg_stat_user_tables where schemaname = current_schema() and last_vacuum is null order by relname`.execute(service.database.db)).rows.map(({ name }) => name)

test('on PGlite every table is vacuumed and analyzed within the hour, and again every hour', { skip: testDatabase === 'postgres' && 'the server\'s autovacuum does it' }, async () => {
  assert.deepEqual(await upkeepJobs(), [{ run_at: new Date(T0.getTime() + VACUUM_EVERY_MS), attempts: 0, last_error: null }])
  assert.ok((await neverVacuumed()).includes('jobs'))

  await service.advance(VACUUM_EVERY_MS / 1000)
  assert.deepEqual(await neverVacuumed(), [])
  const analyzed = await sql<{ n: number }>`select count(*)::int4 as n from pg_stat_user_tables where schemaname = current_schema() and last_analyze is null`.execute(service.database.db)
  assert.equal(analyzed.rows[0]!.n, 0)
  // Run, and put back for the next hour as work done, not as a failure.
  assert.deepEqual(await upkeepJobs(), [{ run_at: new Date(T0.getTime() + 2 * VACUUM_EVERY_MS), attempts: 0, last_error: null }])
})

test('on a PostgreSQL server the service queues no upkeep of its own', { skip: testDatabase === 'pglite' && 'PGlite has no autovacuum: the test above' }, async () => {
  assert.deepEqual(await upkeepJobs(), [])
})
