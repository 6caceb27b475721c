// The embedded database's hourly upkeep (job vacuum_database, queued only where the database is
// PGlite, which has no autovacuum). Without it no table or index ever gives back a deleted
// row's space, and no transaction id is ever frozen, which PostgreSQL must do before it runs out
// of them (docs/performance.md, "The webhook drain").
import type { Clock } from '../clock.ts'
import type { Store } from '../store/store.ts'

export const VACUUM_EVERY_MS = 3_600_000

/** Vacuums and analyzes every table; answers when to run again. */
export async function vacuumDatabase(deps: { store: Store; clock: Clock }): Promise<Date> {
  await deps.store.upkeep.vacuumTables()
  return new Date(deps.clock.now().getTime() + VACUUM_EVERY_MS)
}
