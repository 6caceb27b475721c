// What the bench scripts share: a throwaway database on the PostgreSQL server, the service in
// sandbox mode on one, and the run of a helper script (the load generator, the export bench) in a
// process of its own that prints its figures as its last line.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { loadConfig } from '../src/config.ts'
import { startService } from '../src/service.ts'

const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A new database `<prefix>_<hex>` on the bench's server, with the admin connection that made it
 * (it also reads the database's backends: database-cpu.ts). `drop` waits for connections still
 * closing (dropped by force while the server counts them, each would be reported as lost), drops
 * it and ends the admin connection.
 */
export async function throwawayDatabase(prefix: string) {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    name,
    url: url.href,
    admin,
    drop: async () => {
      for (let waited = 0; waited < 5_000 && (await admin.query('select 1 from pg_stat_activity where datname = $1', [name])).rowCount! > 0; waited += 50) await sleep(50)
      await admin.query(`drop database if exists ${name} with (force)`)
      await admin.end()
    },
  }
}

/**
 * The service in sandbox mode on `databaseUrl`, listening on a loopback port. One token carries
 * a bench's whole load: the per-token limit would measure itself, so it is off.
 */
export async function startBenchService(databaseUrl: string) {
  const service = await startService(loadConfig({ DATABASE_URL: databaseUrl, PORT: '0', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' }))
  const url = await service.app.listen({ host: '127.0.0.1', port: 0 })
  return { service, url }
}

/** Runs a bench script (`./load.ts`, `./exports.ts`) in a node process of its own; answers the JSON of the last line it prints. */
export function runScript<T>(script: string, args: string[] = [], nodeFlags: string[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, new URL(script, import.meta.url).pathname, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as T) : reject(new Error(`${script} exited ${code}`))))
  })
}
