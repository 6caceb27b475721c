// The install's step (package.json's postinstall, so `npm ci` and `npm ci --omit=dev` run it):
// the embedded database's empty cluster, for a new data folder's first start to copy rather than
// run PGlite's initdb (src/store/pglite-template.ts). Given a folder, makes it there instead
// (npm run bench:memory measures this step so). Nothing else of the code is in place yet.
import { makePgliteTemplate } from '../src/store/pglite-template.ts'

const started = performance.now()
const made = await makePgliteTemplate(process.argv[2])
if (made) process.stdout.write(`the embedded database's empty cluster: made in ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
// PGlite can keep the process alive after its folder is closed.
process.exit(0)
