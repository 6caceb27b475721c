// npm run migrate: the database's migrations as a step of their own, so an upgrade can migrate
// before the new version's instances start, and a failed migration stops the upgrade rather than
// an instance (docs/operations.md). The service still migrates at every start; on PostgreSQL
// whichever finds a migration to run takes the migrator's advisory lock, so this command and any
// number of instances may run at once.
// It reads only where the database is: the service's environment file works as it is. It says
// first which database it is about to migrate, since without the service's environment it would
// find none configured and make an embedded one in ./data; with MODE=production it refuses that.
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { environmentSchema, readEnvironment } from '../src/config-schema.ts'
import { ConfigError, environment } from '../src/config.ts'
import { DataDirLockedError, openDatabase } from '../src/store/database.ts'
import { migrateToLatest, migrations } from '../src/store/migrate.ts'

try {
  // MODE is read because production's required variables depend on it; neither of these is one.
  const { MODE, DATABASE_URL, DATA_DIR } = environment.properties
  const where = readEnvironment(environmentSchema({ MODE, DATABASE_URL, DATA_DIR }), process.env)
  if (where.DATABASE_URL) {
    const url = new URL(where.DATABASE_URL)
    process.stdout.write(`database: PostgreSQL ${url.pathname.slice(1) || '(default)'} on ${url.host || 'the local socket'}${url.username ? ` as ${decodeURIComponent(url.username)}` : ''} (DATABASE_URL)\n`)
  } else {
    const dir = resolve(where.DATA_DIR)
    // openPglite keeps the database in <DATA_DIR>/pglite; PG_VERSION is there once it was made.
    const exists = existsSync(join(dir, 'pglite', 'PG_VERSION'))
    if (!exists && where.MODE === 'production') {
      throw new ConfigError(`MODE=production and no DATABASE_URL, and ${dir} holds no embedded database: this would make a new, empty one. Run it with the service's environment (DATABASE_URL, or the DATA_DIR the service uses)`)
    }
    process.stdout.write(`database: ${exists ? 'embedded' : 'a new embedded one'} in ${dir} (DATA_DIR; DATABASE_URL is not set)\n`)
  }
  const database = await openDatabase({ databaseUrl: where.DATABASE_URL ?? null, dataDir: where.DATA_DIR })
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
