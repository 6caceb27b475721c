// npm test's integration step: the suite on PGlite and on PostgreSQL, both halves from one queue
// (with --with-checks, npm test's checks that need no database too).
// Each test process's report is printed whole when it ends (interleaved, they would be
// unreadable); the step fails if any does.
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'

type Database = 'pglite' | 'postgres'

// Processes at once. PGlite runs inside the test process and keeps a core busy; a PostgreSQL
// process mostly waits (on the server, on receivers' time-outs, on a killed child's lease), so
// more of those run beside each other. Two halves with queues of their own left the machine half
// idle once the PostgreSQL half was done (measured: 199 s for the PGlite half against 112 s for
// the other, 1.46 cores busy on average); one queue keeps both cores busy to the end.
const running = 6
const runningPerDatabase: Record<Database, number> = { pglite: 3, postgres: 4 }

// A few test files share one process (--test-isolation=none), one after another: a process of
// its own per file paid Node's start, the modules' loading and PGlite's WebAssembly set-up again
// for each, a third of the PGlite half's CPU (measured: 194 → 142 s of CPU run one at a time).
// In a shared process the top-level before() hooks of all its files run before the first test
// and their after() hooks after the last, so the groups stay small: each file's service stays up
// until its group ends.
const filesPerProcess = 5

// The files that cost most, costliest first (CPU seconds of the file in a full run, PGlite /
// PostgreSQL, 2026-11-28, a quiet 2-core machine): each gets a process of its own at the head of
// the queue, so none starts late and runs on alone while the rest of the machine idles. The
// others follow in groups, in name order; a group costs 10–20 s.
const longest = [
  'payout-crash', // 45 / 35: a service killed and started again at every step of a payout
  'hostile-sweep', // 27 / 26: every route against every hostile input
  'production-install', // 25 (npm ci of the service in a clean folder; PostgreSQL only)
  'wallet-withdrawals-browser', // 17 (Chromium; PGlite only)
  'sdk-package', // 16
  'wallet-browser', // 12
  'openapi', // 10
  'docs', // 9
]
const files = readdirSync('test/integration').filter((name) => name.endsWith('.test.ts')).sort()
const rest = files.filter((name) => !longest.includes(name.replace(/\.test\.ts$/, '')))
const groups = [
  ...longest.map((name) => [`${name}.test.ts`]).filter(([name]) => files.includes(name!)),
  ...Array.from({ length: Math.ceil(rest.length / filesPerProcess) }, (_, index) => rest.slice(index * filesPerProcess, (index + 1) * filesPerProcess)),
].map((group) => group.map((name) => `test/integration/${name}`))

type Run = { database: Database | 'checks'; code: number; output: string; cpuSeconds: number }

// The CPU a group cost: its process's and every descendant's it waited for (a Chromium, a
// restarted service, an npm ci), as Linux adds them to ours once we reap it (cutime and cstime
// in /proc/self/stat, in ticks of 1/100 s). Read when each process is reaped; two reaped at
// the same moment would both count to the first. PostgreSQL's server is no one's child here, so
// the PostgreSQL half's figure leaves the server's own CPU out.
const reapedCpuSeconds = (): number => {
  if (!existsSync('/proc/self/stat')) return 0
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[13]) + Number(fields[14])) / 100
}

let reapedBefore = reapedCpuSeconds()

// The PostgreSQL server's own CPU, when it runs on this machine: its postmaster's, with every
// backend it reaped (each test database's connections end before its process does). Found as the
// parent of a backend; null when the server is elsewhere or /proc is not readable.
async function postgresServerCpuSeconds(): Promise<number | null> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' })
  try {
    await client.connect()
    const backend = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid
    const ticks = (pid: number | string) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    const postmaster = ticks(backend)[1]!
    const fields = ticks(postmaster)
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100
  } catch {
    return null
  } finally {
    await client.end().catch(() => {})
  }
}

// `npm test`'s checks that need no database (the type check, the layer rules, the unit tests)
// run as one more process of the queue, first, beside the longest suites: one after another
// before the suites, each kept one core busy and left the other idle for their 15-17 s.
const checks = 'npm run -s typecheck && npm run -s lint:layers && npm run -s test:unit'

const untrackedResources = ['--expose-internals', '--import', './test/support/test-resource-hook.ts']

function runGroup(database: Database | 'checks', group: string[]): Promise<Run> {
  return new Promise((resolve) => {
    // --liftoff-only: V8 runs PGlite's WebAssembly with its baseline compiler only. Test
    // processes are short-lived, and optimising PostgreSQL's hot functions again in every one
    // cost more CPU than it saved (measured: the integration step 352 → 277 s of CPU, 205 → 172 s
    // of wall time). `npm start` runs the service so too, for its memory (docs/performance.md,
    // "Memory and start-up").
    // --test-force-exit: a process whose tests are all done exits, even if a failed before() left
    // a service half-started; without it, that process waited for nothing, for ever.
    // untrackedResources: node:test's own async hook off (test/support/test-resource-hook.ts).
    const command: [string, string[]] = database === 'checks'
      ? ['sh', ['-c', checks]]
      : [process.execPath, ['--liftoff-only', ...untrackedResources, '--test', '--test-isolation=none', '--test-force-exit', ...group]]
    const child = spawn(...command, {
      // Compiled code cached on disk spares each process compiling the same modules again.
      env: { NODE_COMPILE_CACHE: 'node_modules/.cache/node-compile-cache', ...process.env, ...(database === 'checks' ? {} : { TEST_DATABASE: database }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    let cpuSeconds = 0
    child.on('exit', () => {
      const cpu = reapedCpuSeconds()
      cpuSeconds = cpu - reapedBefore
      reapedBefore = cpu
    })
    child.on('close', (code, signal) => resolve({ database, code: code ?? (signal ? 1 : 0), output, cpuSeconds }))
  })
}

/** The spec reporter's closing count of one kind ("ℹ pass 12"). */
function count(output: string, kind: string): number {
  return Number(new RegExp(`^ℹ ${kind} (\\d+)$`, 'm').exec(output)?.[1] ?? 0)
}

// `node test/run-integration.ts pglite` (or postgres) runs one half; `--with-checks` (npm test)
// adds the checks above.
const unknown = process.argv.slice(2).filter((arg) => !['pglite', 'postgres', '--with-checks'].includes(arg))
if (unknown.length > 0) {
  process.stderr.write(`test/run-integration.ts: unknown ${unknown.join(' ')} (it takes pglite, postgres, --with-checks)\n`)
  process.exit(2)
}
const withChecks = process.argv.includes('--with-checks')
const named = process.argv.slice(2).filter((arg) => !arg.startsWith('--'))
const databases = (['pglite', 'postgres'] as const).filter((database) => named.length === 0 || named.includes(database))
process.stdout.write(`integration suite on ${databases.join(' and ')}, ${running} processes at once…\n`)

const serverCpuBefore = databases.includes('postgres') ? await postgresServerCpuSeconds() : null
const started = performance.now()
// A file whose every test skips on one database says so in a line of its own, and is not
// started there: loading it only to skip cost a process's start and its before() hooks.
const onlyOn = (file: string) => /^\/\/ Integration runner: (pglite|postgres) only\b/m.exec(readFileSync(file, 'utf8'))?.[1]
// Both halves' longest files first, then both halves' groups: the queue is in the order groups are.
const waiting: Array<{ database: Database | 'checks'; group: string[] }> = [
  ...(withChecks ? [{ database: 'checks' as const, group: [checks] }] : []),
  ...groups.flatMap((group) => databases.flatMap((database) => {
    const files = group.filter((file) => (onlyOn(file) ?? database) === database)
    return files.length === 0 ? [] : [{ database, group: files }]
  })),
]
const busy: Record<Database | 'checks', number> = { pglite: 0, postgres: 0, checks: 0 }
const inFlight = () => busy.pglite + busy.postgres + busy.checks
const runs: Run[] = []
const finished: Partial<Record<Database, number>> = {}

await new Promise<void>((done) => {
  const startNext = () => {
    while (inFlight() < running) {
      // Once no PostgreSQL group waits, PGlite may take its slots: its processes keep a core busy,
      // and the last groups would otherwise leave the machine half idle.
      const pgliteSlots = waiting.some(({ database }) => database === 'postgres') ? runningPerDatabase.pglite : running
      const index = waiting.findIndex(({ database }) => database === 'checks' || busy[database] < (database === 'pglite' ? pgliteSlots : runningPerDatabase.postgres))
      if (index < 0) break
      const { database, group } = waiting.splice(index, 1)[0]!
      busy[database]++
      const at = performance.now()
      void runGroup(database, group).then((run) => {
        busy[database]--
        runs.push(run)
        if (database !== 'checks' && !waiting.some((entry) => entry.database === database) && busy[database] === 0) finished[database] = performance.now()
        const seconds = (from: number, to: number) => ((to - from) / 1000).toFixed(0)
        process.stdout.write(`\n── ${database}: ${group.join(' ')}: ${run.code === 0 ? 'passed' : `FAILED (exit ${run.code})`}, ` +
          `${seconds(at, performance.now())} s from ${seconds(started, at)} s, ${run.cpuSeconds.toFixed(1)} s of CPU ──\n${run.output}`)
        if (waiting.length === 0 && inFlight() === 0) done()
        else startNext()
      })
    }
  }
  startNext()
})

const summaries = databases.map((database) => {
  const own = runs.filter((run) => run.database === database)
  const total = (kind: string) => own.reduce((sum, run) => sum + count(run.output, kind), 0)
  const passed = own.every((run) => run.code === 0)
  return `── ${database}: ${passed ? 'passed' : 'FAILED'}, done ${(((finished[database] ?? performance.now()) - started) / 1000).toFixed(0)} s in: ` +
    `${total('tests')} tests, ${total('pass')} passed, ${total('fail')} failed, ${total('skipped')} skipped, ` +
    `${own.reduce((sum, run) => sum + run.cpuSeconds, 0).toFixed(0)} s of CPU in its processes ──`
})
const serverCpuAfter = serverCpuBefore === null ? null : await postgresServerCpuSeconds()
if (serverCpuAfter !== null) summaries.push(`── the PostgreSQL server: ${(serverCpuAfter - serverCpuBefore!).toFixed(0)} s of CPU (with anything else it served meanwhile) ──`)
const checked = runs.find((run) => run.database === 'checks')
if (checked) summaries.unshift(`── checks: ${checked.code === 0 ? 'passed' : 'FAILED'}, ${checked.cpuSeconds.toFixed(0)} s of CPU ──`)
process.stdout.write(`\n${summaries.join('\n')}\n── integration step: ${((performance.now() - started) / 1000).toFixed(0)} s ──\n`)
process.exitCode = runs.every((run) => run.code === 0) ? 0 : 1
