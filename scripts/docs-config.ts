// npm run docs:config: rewrites README's configuration table from the declarations in src/config.ts.
import { readFileSync, writeFileSync } from 'node:fs'
import { withConfigTable } from '../src/config-schema.ts'
import { environment } from '../src/config.ts'

const readme = new URL('../README.md', import.meta.url)
writeFileSync(readme, withConfigTable(readFileSync(readme, 'utf8'), environment))
