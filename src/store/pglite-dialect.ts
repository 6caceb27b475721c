// Kysely on PGlite, one call into PostgreSQL per query, each SQL text parsed and planned once.
// PGlite's own query() (which Kysely's PGliteDialect calls) sends a parameterised query as six
// messages with a call into its WebAssembly for each (parse, describe, bind, describe, execute,
// sync), to learn the parameters' types before it serialises them, and PostgreSQL parses and
// plans the text again every time. Here a text is prepared once as a named statement, its
// parameters' types and its rows' description learnt then; every later run is one call: bind,
// execute, sync.
// It costs about half the CPU of PGlite's query() (docs/performance.md, "Smaller choices,
// measured"). Everything else is PGlite's: its serialisers and parsers, its locks, its parse
// of the results. One dialect per PGlite: the statements' names are this driver's own.
import { parse, protocol, TransactionAbortedError, type messages, type PGlite, type Results } from '@electric-sql/pglite'
import {
  PGliteAdapter, PostgresIntrospector, PostgresQueryCompiler,
  type CompiledQuery, type DatabaseConnection, type DatabaseIntrospector, type Dialect, type DialectAdapter, type Driver, type Kysely, type QueryCompiler, type QueryResult,
} from 'kysely'

const { serialize } = protocol

/**
 * The command tags of statements that leave the schema as it was. After any other (CREATE, ALTER,
 * DROP, DO, ...) a prepared text might have other parameter or result types: every statement is
 * dropped, and prepared again when next used.
 */
const KEEPS_SCHEMA = /^(SELECT|INSERT|UPDATE|DELETE|MERGE|FETCH|MOVE|COPY|BEGIN|START TRANSACTION|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET|SHOW|RESET|LOCK TABLE|NOTIFY|LISTEN|UNLISTEN|CHECKPOINT|ANALYZE|VACUUM)\b/

/**
 * Texts prepared per database, at most: a text that varied with its values (an IN list of each
 * length) would otherwise prepare without end. Texts past the bound run unnamed, parsed each time.
 */
const MOST_PREPARED = 1_000

/** A prepared text: its name, its parameters' type OIDs, and what its rows look like (null: it returns none). */
type Prepared = { name: string; types: number[]; rowDescription: messages.BackendMessage | null }

/** The tag of a statement's CommandComplete ("INSERT 0 1", "ALTER TABLE", "ROLLBACK"), if it completed. */
function commandTag(messages: messages.BackendMessage[]): string | undefined {
  return (messages.find((message) => message.name === 'commandComplete') as { text?: string } | undefined)?.text
}

class PgliteDriver implements Driver {
  readonly #pglite: PGlite
  /** SQL text → its prepared statement and its parameters' type OIDs, as PostgreSQL described them. */
  readonly #prepared = new Map<string, Prepared>()
  /** Set while a transaction holds PGlite: its queries run inside it, and nothing else runs. */
  #transactionEnds: ((commit: boolean) => void) | null = null
  #transactionDone: Promise<void> | null = null
  /** The open transaction changed the schema: what is prepared after that is forgotten at its end. */
  #schemaChangedInTransaction = false

  constructor(pglite: PGlite) {
    this.#pglite = pglite
  }

  async init(): Promise<void> {
    await this.#pglite.waitReady
  }

  // Kysely hands the one connection to one user at a time (PGliteAdapter has no multiple connections).
  async acquireConnection(): Promise<DatabaseConnection> {
    return { executeQuery: (query) => this.#execute(query), streamQuery: () => { throw new Error('PGlite does not stream results') } }
  }

  async releaseConnection(): Promise<void> {}

  async #execute<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    await this.#pglite._checkReady()
    const run = () => this.#pglite._runExclusiveQuery(() => this.#run(query.sql, query.parameters))
    const outside = this.#transactionEnds === null
    // Outside a transaction a query waits, as PGlite's own query() does, for any transaction to end.
    const results = outside ? await this.#pglite._runExclusiveTransaction(run) : await run()
    if (outside) await this.#pglite.syncToFs()
    return { rows: results.rows as R[], ...(results.affectedRows == null ? {} : { numAffectedRows: BigInt(results.affectedRows) }) }
  }

  async #run(sql: string, parameters: readonly unknown[]): Promise<Results> {
    const pglite = this.#pglite
    // Each call ends with a sync: after an error PostgreSQL has skipped to it, and is ready again.
    const call = (parts: Uint8Array[]) => pglite.execProtocolStream(Buffer.concat([...parts, serialize.sync()]), { syncToFs: false })
    let statement = this.#prepared.get(sql)
    if (statement === undefined) {
      // The unnamed statement lasts until the next text is parsed: long enough for the bind below.
      const name = this.#prepared.size >= MOST_PREPARED ? '' : `pglite_${this.#prepared.size + 1}`
      const described = await call([serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name })])
      statement = { name, types: parse.parseDescribeStatementResults(described), rowDescription: described.find((message) => message.name === 'rowDescription') ?? null }
      if (name !== '') this.#prepared.set(sql, statement)
    }
    const { name, types, rowDescription } = statement
    const values = parameters.map((value, index) => {
      if (value === null || value === undefined) return null
      const serializer = pglite.serializers[types[index]!]
      return serializer ? serializer(value) : String(value)
    })
    // The rows' description came with the statement's: the portal is not described again.
    const messages = await call([serialize.bind({ statement: name, values }), serialize.execute({})])
    const tag = commandTag(messages)
    if (tag !== undefined && !KEEPS_SCHEMA.test(tag)) {
      await this.#forgetPrepared()
      // Texts prepared after it in the transaction would be wrong again if the transaction rolls back.
      this.#schemaChangedInTransaction = this.#transactionEnds !== null
    }
    return parse.parseResults(rowDescription === null ? messages : [rowDescription, ...messages], pglite.parsers, { rowMode: 'object' })[0]!
  }

  // PGlite is one connection: the isolation level of a transaction changes nothing (Kysely's own
  // PGlite driver ignores the settings too).
  async beginTransaction(): Promise<void> {
    const begun = Promise.withResolvers<void>()
    const ends = Promise.withResolvers<boolean>()
    // The transaction holds PGlite's transaction lock from BEGIN to its end, as PGlite's own
    // transaction() does: a LISTEN, or a query from outside Kysely, waits for it.
    this.#transactionDone = this.#pglite._runExclusiveTransaction(async () => {
      try {
        await this.#pglite._runExclusiveQuery(() => this.#simple('begin'))
      } catch (error) {
        begun.reject(error)
        return
      }
      this.#transactionEnds = ends.resolve
      begun.resolve()
      const commit = await ends.promise
      this.#transactionEnds = null
      const ended = await this.#pglite._runExclusiveQuery(async () => {
        try {
          return await this.#simple(commit ? 'commit' : 'rollback')
        } finally {
          if (this.#schemaChangedInTransaction) await this.#forgetPrepared()
          this.#schemaChangedInTransaction = false
        }
      })
      // A COMMIT of a transaction where a statement failed rolls it back, and says so.
      if (commit && commandTag(ended) === 'ROLLBACK') throw new TransactionAbortedError()
    })
    await begun.promise
  }

  async commitTransaction(): Promise<void> {
    await this.#end(true)
    await this.#pglite.syncToFs()
  }

  async rollbackTransaction(): Promise<void> {
    await this.#end(false)
  }

  async #end(commit: boolean): Promise<void> {
    const done = this.#transactionDone
    this.#transactionEnds?.(commit)
    this.#transactionDone = null
    await done
  }

  async #forgetPrepared(): Promise<void> {
    if (this.#prepared.size === 0) return
    this.#prepared.clear()
    await this.#simple('deallocate all')
  }

  /** A statement without parameters, by the simple protocol. */
  #simple(sql: string) {
    return this.#pglite.execProtocolStream(serialize.query(sql), { syncToFs: false })
  }

  async destroy(): Promise<void> {
    if (!this.#pglite.closed) await this.#pglite.close()
  }
}

export class FastPgliteDialect implements Dialect {
  readonly #pglite: PGlite
  constructor(pglite: PGlite) {
    this.#pglite = pglite
  }
  createAdapter(): DialectAdapter {
    return new PGliteAdapter()
  }
  createDriver(): Driver {
    return new PgliteDriver(this.#pglite)
  }
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new PostgresIntrospector(db)
  }
  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler()
  }
}
