// The install's step (package.json's postinstall, so `npm ci` and `npm ci --omit=dev` run it):
// the embedded database's empty cluster, for a new data folder's first start to copy rather than
// run PGlite's initdb (src/store/pglite-template.ts). Given a folder, makes it there instead
// (npm run bench:memory measures this step so). Nothing else of the code is in place yet.
// It never fails the install: without the cluster a first start runs initdb, as it always did.
import { makePgliteTemplate } from '../src/store/pglite-template.ts'

// An install for a PostgreSQL server never opens an embedded database: spare it initdb's memory.
if (process.env.DATABASE_URL && process.argv[2] === undefined) {
  process.stdout.write('DATABASE_URL is set: no empty cluster for an embedded database made\n')
  process.exit(0)
}
const started = performance.now()
try {
  const made = await makePgliteTemplate(process.argv[2])
  if (made) process.stdout.write(`the embedded database's empty cluster: made in ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
} catch (error) {
  process.stderr.write(`warning: the embedded database's empty cluster was not made (a first start will run initdb): ${error instanceof Error ? error.message : String(error)}\n`)
}
// PGlite can keep the process alive after its folder is closed.
process.exit(0)
