// The embedded database's memory floor for npm run bench:memory: a bare PGlite opened with the
// service's settings (openPglite, as startService opens it) in the folder given, no migrations,
// no service. Prints "ready" once it answers a query, then idles until killed.
import { sql } from 'kysely'
import { openPglite } from '../src/store/database.ts'

const database = await openPglite(process.argv[2]!)
await sql`select 1`.execute(database.db)
process.stdout.write('ready\n')
setInterval(() => {}, 60_000)
