// Opens the database: embedded PGlite in a data folder (one process at a time) or a PostgreSQL
// server when a URL is given. Both come back as the same Kysely instance.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import { CompiledQuery, Kysely, PostgresDialect, type Compilable } from 'kysely'
import pg from 'pg'
import { copyPgliteTemplate, EMBEDDED_SETTINGS, pgliteTemplateDir } from './pglite-template.ts'
import type { Database } from './schema.ts'

const INT8_OID = 20

/**
 * Money and ids are int8. PGlite hands them back as bigint and pg as strings; both become a
 * plain number here, and a value past 2^53 fails loudly instead of losing precision.
 */
function parseInt8(text: string): number {
  const value = Number(text)
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 value ${text} is beyond a safe integer`)
  return value
}

/**
 * On PostgreSQL every statement's text runs as a named prepared statement, prepared on a
 * connection the first time it runs there, as the PGlite dialect does (store/pglite-dialect.ts):
 * parsing and planning cost the server about as much as running a short statement does
 * (docs/performance.md, "Webhook latency"). PostgreSQL plans a prepared statement for its values
 * for its first five runs, and keeps a generic plan only where it costs no more.
 */
const preparedNames = new Map<string, string>()

/**
 * Texts prepared at most, as on PGlite: a text that varied with its values (an IN list of each
 * length) would otherwise prepare without end. Texts past the bound run unnamed, parsed each time.
 */
const MOST_PREPARED = 1_000

/** Statements worth preparing: queries and writes (not transaction control, DDL or LISTEN), alone in their text. */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b[^;]*$/i

/** The name a SQL text runs under on PostgreSQL, if it is prepared. */
function preparedName(text: string): string | undefined {
  const known = preparedNames.get(text)
  if (known !== undefined || preparedNames.size >= MOST_PREPARED || !PREPARABLE.test(text)) return known
  const name = `prepared_${preparedNames.size + 1}`
  preparedNames.set(text, name)
  return name
}

/** Every named statement's builder, by name, for the checked-in snapshots of their SQL (src/store/sql/). */
const namedStatements = new Map<string, () => Compilable<unknown>>()

/**
 * Each named statement's SQL, compiled the first time it runs. Kept by name, not by the Kysely
 * instance that asked: a transaction's store is made anew for each transaction (store.ts), and
 * a text kept with it was compiled again in every one (most of the payout worker's Kysely
 * time, docs/performance.md, "Withdrawals"). Both databases speak one dialect: one text a name.
 */
const compiledTexts = new Map<string, string>()

/**
 * A query built with Kysely once and from then on run as its compiled SQL with new parameters, in
 * the order the builder numbered them: the hottest statements skip building and compiling. Each
 * has a name, and its text is checked in as src/store/sql/{name}.sql: a test compares them, so a
 * change of a hand-tuned statement shows in review as SQL, not only as builder calls.
 */
export function compiledOnce<Row>(db: Kysely<Database>, name: string, build: () => Compilable<Row>): (parameters: readonly unknown[]) => Promise<Row[]> {
  if (!namedStatements.has(name)) namedStatements.set(name, build)
  return async (parameters) => {
    let text = compiledTexts.get(name)
    if (text === undefined) compiledTexts.set(name, (text = build().compile().sql))
    return (await db.executeQuery<Row>(CompiledQuery.raw(text, [...parameters]))).rows
  }
}

/** The SQL of every named statement built so far, by name. */
export function namedStatementTexts(): Map<string, string> {
  return new Map([...namedStatements].map(([name, build]) => [name, build().compile().sql]))
}

/**
 * A call made many times at once, run for all of them by one statement: the calls made in one
 * turn of the event loop are handed to `run` together, which answers each one's result in their
 * order. `endOfTurn` says when a turn's calls are all in: queueMicrotask for calls one synchronous
 * loop makes (they wait for nothing), setImmediate for calls the callbacks of one poll of the
 * sockets make. One failure of the statement fails every call of its turn.
 */
export function batchedByTurn<Input, Output>(endOfTurn: (flush: () => void) => void, run: (inputs: Input[]) => Promise<Output[]>): (input: Input) => Promise<Output> {
  type Call = { input: Input; answer: (output: Output) => void; fail: (error: unknown) => void }
  let turn: Call[] | null = null
  const newTurn = (): Call[] => {
    const calls: Call[] = []
    turn = calls
    endOfTurn(() => {
      turn = null
      run(calls.map((call) => call.input)).then(
        (outputs) => calls.forEach((call, i) => call.answer(outputs[i]!)),
        (error: unknown) => calls.forEach((call) => call.fail(error)),
      )
    })
    return calls
  }
  return (input) => new Promise((answer, fail) => (turn ?? newTurn()).push({ input, answer, fail }))
}

/**
 * Kysely hands pg the SQL text only; this client gives it its name (preparedName), and pg
 * prepares a named statement on a connection the first time it runs there. Each name stands for
 * one text for the life of the process, as pg requires.
 *
 * A prepared statement's rows keep the shape they had when it was prepared: once a newer
 * version's migration adds a column to a table one reads with `select *` (while this version
 * still runs, as docs/operations.md's upgrade has it), PostgreSQL refuses to run it again
 * ("cached plan must not change result type", 0A000). The connection then prepares its texts
 * anew, under names of a new generation, and, outside a transaction, runs the query once more;
 * inside one the transaction has failed already, and its caller sees the error once per
 * connection (a request answers 503, a job is retried, the provider sends its webhook again).
 */
class PreparingClient extends pg.Client {
  #generation = 0

  override query(...args: any[]): any {
    const [text, values] = args
    const name = typeof text === 'string' && args.length <= 2 ? preparedName(text) : undefined
    if (name === undefined) return (super.query as (...args: any[]) => any)(...args)
    const run = () => {
      // A prepared statement's messages (bind, describe, execute, sync) are four writes to the
      // socket, each a system call: corked, they leave in one (docs/performance.md, "Smaller
      // choices, measured"). pg sends them within this call when the connection is free.
      const { stream } = this.connection
      stream.cork()
      process.nextTick(() => stream.uncork())
      return super.query({ name: this.#generation === 0 ? name : `${name}_${this.#generation}`, text, values })
    }
    return run().catch((error: unknown) => {
      // The server's own name for the check, whatever language its messages are in.
      if ((error as { routine?: unknown }).routine !== 'RevalidateCachedQuery') throw error
      this.#generation++
      // Inside a transaction the error has failed it already: run again, it would only fail otherwise.
      if (this.getTransactionStatus() !== 'I') throw error
      return run()
    })
  }
}

/** A unique or primary-key constraint refused a row (PostgreSQL SQLSTATE 23505, from pg or PGlite). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505'
}

/** Network errors, and PostgreSQL's "connection exception" and "operator intervention" classes. */
const unavailableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006'])

/**
 * The database cannot be reached or is going away (a restart, a failover): nothing was wrong with
 * the request, and the same request will work once it is back.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && unavailableCodes.has(code)) return true
  return typeof message === 'string' && /Connection terminated|connection timeout|timeout exceeded when trying to connect|terminating connection|Client has encountered a connection error|the database system is (starting up|shutting down)/i.test(message)
}

export type OpenedDatabase = {
  db: Kysely<Database>
  kind: 'pglite' | 'postgres'
  close: () => Promise<void>
  /**
   * Calls `onNotify` with each NOTIFY's payload on `channel` (from any instance on a server), or
   * with null when notifications may have been missed; resolves to the way to stop.
   */
  listen: (channel: string, onNotify: (payload: string | null) => void) => Promise<() => Promise<void>>
}

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError'
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** A lock file holding our pid; a lock left by a dead process is taken over. */
function lockDataDir(dir: string): () => void {
  const lockPath = join(dir, 'service.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return () => rmSync(lockPath, { force: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const holder = Number(readFileSync(lockPath, 'utf8').trim())
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && processIsAlive(holder)) {
        throw new DataDirLockedError(
          `the data folder ${dir} is in use by another process (pid ${holder}); stop it, or set DATA_DIR to another folder, or DATABASE_URL to share a PostgreSQL server between instances`,
        )
      }
      if (holder === process.pid) {
        throw new DataDirLockedError(`the data folder ${dir} is already open in this process`)
      }
      rmSync(lockPath, { force: true })
    }
  }
  throw new DataDirLockedError(`could not lock the data folder ${dir}`)
}

/**
 * Embedded PostgreSQL. `dataDir` null keeps everything in memory (tests, benchmarks), started
 * from `snapshot` when given: a data folder PGlite dumped, which skips initdb and migrations.
 * `settings` are postgresql.conf lines for that in-memory server. A data folder's first open
 * copies the empty cluster the install made (`template`, by default the install's; when there is
 * none, PGlite runs initdb). Kysely reaches it through FastPgliteDialect (pglite-dialect.ts): each
 * SQL text prepared once, one call per query.
 */
export async function openPglite(dataDir: string | null, options: { snapshot?: Blob; settings?: string[]; template?: string } = {}): Promise<OpenedDatabase> {
  // Loaded here, not with this module: a service on PostgreSQL never holds PGlite's code.
  const [{ PGlite }, { FastPgliteDialect }] = await Promise.all([import('@electric-sql/pglite'), import('./pglite-dialect.ts')])
  let unlock = () => {}
  let pglite: PGlite
  if (dataDir === null) {
    pglite = new PGlite({
      parsers: { [INT8_OID]: parseInt8 },
      ...(options.snapshot ? { loadDataDir: options.snapshot } : {}),
      ...(options.settings ? { postgresqlconf: options.settings } : {}),
    })
  } else {
    const dir = resolve(dataDir)
    mkdirSync(dir, { recursive: true })
    unlock = lockDataDir(dir)
    try {
      // A folder PGlite began and did not finish (before the install made a template) is left to
      // PGlite, which runs initdb in it as it always has.
      const folder = join(dir, 'pglite')
      if (!existsSync(folder)) copyPgliteTemplate(options.template ?? pgliteTemplateDir(), folder)
      // 32 MB of shared buffers rather than PGlite's 128: one process's database fits, and the
      // WebAssembly memory PGlite reserves for them is never given back (docs/performance.md,
      // "Memory and start-up").
      pglite = new PGlite({ dataDir: folder, parsers: { [INT8_OID]: parseInt8 }, postgresqlconf: options.settings ?? EMBEDDED_SETTINGS })
      await pglite.waitReady
    } catch (error) {
      unlock()
      throw error
    }
  }
  const db = new Kysely<Database>({ dialect: new FastPgliteDialect(pglite) })
  return {
    db,
    kind: 'pglite',
    close: async () => {
      await db.destroy()
      unlock()
    },
    listen: async (channel, onNotify) => {
      const stop = await pglite.listen(channel, (payload) => onNotify(payload))
      return async () => {
        if (!pglite.closed) await stop()
      }
    },
  }
}

export async function openPostgres(
  url: string,
  poolSize = 10,
  onIdleError: (error: Error) => void = (error) => process.emitWarning(`PostgreSQL idle connection lost: ${error.message}`),
): Promise<OpenedDatabase> {
  const pool = new pg.Pool({
    Client: PreparingClient,
    connectionString: url,
    max: poolSize,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  })
  // A connection dropped by the server (restart, failover, admin) must not crash the process: an
  // idle one is replaced on the next checkout, and one checked out fails its query (answered 503);
  // its 'error' event, emitted beside, needs a listener too, or Node throws it (seen: a restart
  // under load killed the process).
  pool.on('error', onIdleError)
  pool.on('connect', (client) => client.on('error', onIdleError))
  // Fail at start-up with the server's own message, not at the first request.
  const client = await pool.connect()
  client.release()
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return {
    db,
    kind: 'postgres',
    close: () => db.destroy(),
    // A connection of its own: a pooled one would be handed to queries and miss notifications.
    // When the server drops it (a restart), it is made again, every second until it is back, and
    // the listener is woken once, for what was committed while nobody listened.
    listen: async (channel, onNotify) => {
      let current: pg.Client | null = null
      let stopped = false
      const connect = async () => {
        const client = new pg.Client({ connectionString: url })
        client.on('error', onIdleError)
        client.on('notification', (message) => onNotify(message.payload ?? null))
        client.once('end', () => {
          if (current === client && !stopped) setTimeout(reconnect, 1_000).unref()
        })
        await client.connect()
        await client.query(`listen ${pg.Client.prototype.escapeIdentifier(channel)}`)
        current = client
      }
      const reconnect = () => {
        if (stopped) return
        connect().then(() => onNotify(null), () => setTimeout(reconnect, 1_000).unref())
      }
      await connect()
      return async () => {
        stopped = true
        await current?.end().catch(() => {})
      }
    },
  }
}

export function openDatabase(options: { databaseUrl: string | null; dataDir: string | null }): Promise<OpenedDatabase> {
  return options.databaseUrl ? openPostgres(options.databaseUrl) : openPglite(options.dataDir)
}
