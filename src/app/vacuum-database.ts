// The embedded database's hourly upkeep (job vacuum_database, queued only where the database is
// PGlite: a PostgreSQL server's autovacuum does the same on its own). Without it, measured on
// PGlite: the jobs table's heap grew by 2 MB with every 10,000 webhooks delivered and never shrank
// (8 MB after four such drains), its indexes by 1.2 MB; and no transaction id would ever be frozen,
// which PostgreSQL must do before it runs out of them.
import type { Clock } from '../clock.ts'
import type { Store } from '../store/store.ts'

export const VACUUM_EVERY_MS = 3_600_000

/** Vacuums and analyzes every table; answers when to run again. */
export async function vacuumDatabase(deps: { store: Store; clock: Clock }): Promise<Date> {
  await deps.store.upkeep.vacuumTables()
  return new Date(deps.clock.now().getTime() + VACUUM_EVERY_MS)
}
