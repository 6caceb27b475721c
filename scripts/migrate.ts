// npm run migrate: the database's migrations as a step of their own, so an upgrade can migrate
// before the new version's instances start, and a failed migration stops the upgrade rather than
// an instance (docs/operations.md). The service still migrates at every start; on PostgreSQL
// whichever finds a migration to run takes the migrator's advisory lock, so this command and any
// number of instances may run at once.
// It reads only where the database is: the service's environment file works as it is.
import { parseEnvironment } from '../src/config-schema.ts'
import { ConfigError, environment } from '../src/config.ts'
import { DataDirLockedError, openDatabase } from '../src/store/database.ts'
import { migrateToLatest, migrations } from '../src/store/migrate.ts'

try {
  // MODE is read because production's required variables depend on it; neither of these is one.
  const where = parseEnvironment({ MODE: environment.MODE, DATABASE_URL: environment.DATABASE_URL, DATA_DIR: environment.DATA_DIR }, process.env)
  const database = await openDatabase({ databaseUrl: where.DATABASE_URL, dataDir: where.DATA_DIR })
  let applied: string[]
  try {
    applied = await migrateToLatest(database.db)
  } finally {
    await database.close()
  }
  const latest = Object.keys(migrations).at(-1)
  process.stdout.write(applied.length > 0 ? `applied ${applied.join(', ')}; the database is at ${latest}\n` : `nothing to apply; the database is at ${latest}\n`)
  // PGlite can keep the process alive after its folder is closed.
  process.exit(0)
} catch (error) {
  const known = error instanceof ConfigError || error instanceof DataDirLockedError
  process.stderr.write(`cannot migrate: ${known ? (error as Error).message : ((error as Error).stack ?? String(error))}\n`)
  process.exit(1)
}
