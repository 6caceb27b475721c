// node bench/pglite-dialect.ts: the CPU of Kysely's queries on PGlite through our dialect
// (store/pglite-dialect.ts: each text prepared once, run in one call) and through the npm package
// kysely-pglite-dialect (PGlite's query(), as Kysely's own PGliteDialect). The package is no
// dependency: install it beside the others first, without saving it (its peer range stops at
// PGlite 0.4): npm install --no-save --legacy-peer-deps kysely-pglite-dialect@1.3.1
// Both run in this process on databases in memory, alternated round by round, so a busy machine
// moves both; compare the ratios of one run (docs/design.md, "Storage").
import { PGlite } from '@electric-sql/pglite'
import { Kysely, sql, type Dialect } from 'kysely'
import { FastPgliteDialect } from '../src/store/pglite-dialect.ts'

const packageName = 'kysely-pglite-dialect'
const { PGliteDialect } = (await import(packageName).catch(() => {
  process.stderr.write(`needs ${packageName}: npm install --no-save --legacy-peer-deps ${packageName}@1.3.1\n`)
  process.exit(1)
})) as { PGliteDialect: new (pglite: PGlite) => Dialect }

type Database = { items: { id: string; merchant: string; amount: number; status: string; updated_at: Date } }
const ROWS = 5_000
const QUERIES = Number(process.env.QUERIES ?? 1_500)
const ROUNDS = 5

async function open(dialect: (pglite: PGlite) => Dialect): Promise<Kysely<Database>> {
  const db = new Kysely<Database>({ dialect: dialect(await PGlite.create()) })
  await sql`create table items (id text primary key, merchant text not null, amount bigint not null, status text not null, updated_at timestamptz not null)`.execute(db)
  await sql`insert into items select 'c' || g, 'm' || (g % 50), g * 100, 'pending', now() from generate_series(1, ${ROWS}) g`.execute(db)
  await sql`analyze items`.execute(db)
  return db
}

const dialects = { ours: await open((pglite) => new FastPgliteDialect(pglite)), [packageName]: await open((pglite) => new PGliteDialect(pglite)) }
const id = (i: number) => `c${(i % ROWS) + 1}`
const workloads = {
  'a primary-key read': (db: Kysely<Database>, i: number) => db.selectFrom('items').selectAll().where('id', '=', id(i)).executeTakeFirst(),
  'an update in a transaction': (db: Kysely<Database>, i: number) =>
    db.transaction().execute((tx) => tx.updateTable('items').set({ status: i % 2 ? 'paid' : 'pending', updated_at: new Date() }).where('id', '=', id(i)).execute()),
}

/** µs of this process's CPU a query. */
async function round(db: Kysely<Database>, query: (db: Kysely<Database>, i: number) => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage()
  for (let i = 0; i < QUERIES; i++) await query(db, i)
  const used = process.cpuUsage(before)
  return (used.user + used.system) / QUERIES
}

const span = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`
for (const [workload, query] of Object.entries(workloads)) {
  for (const db of Object.values(dialects)) await round(db, query)
  const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(dialects).map((name) => [name, []]))
  for (let r = 0; r < ROUNDS; r++) {
    const order = Object.entries(dialects)
    for (const [name, db] of r % 2 === 0 ? order : order.reverse()) cpu[name]!.push(await round(db, query))
  }
  const ratios = cpu[packageName]!.map((value, r) => value / cpu.ours![r]!)
  process.stdout.write(`${workload}: ours ${span(cpu.ours!)} µs, ${packageName} ${span(cpu[packageName]!)} µs of CPU; ${packageName} / ours by round ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}\n`)
}
process.exit(0)
