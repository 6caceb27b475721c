// npm test's integration step: the suite on PGlite and on PostgreSQL at the same time. The
// PGlite half keeps the CPU busy while the PostgreSQL half mostly waits on the server, so side
// by side they take little longer than the slower one alone. Each test process's report is
// printed whole when it ends (interleaved, they would be unreadable); the step fails if any does.
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'

// PGlite runs in the test processes and is CPU-bound; the PostgreSQL half mostly waits (on the
// server, on receivers' time-outs), so more of its processes run at once.
const halves = { pglite: 2, postgres: 4 } as const

// A few test files share one process (--test-isolation=none), one after another: a process of
// its own per file paid Node's start, the modules' loading and PGlite's WebAssembly set-up again
// for each, a third of the PGlite half's CPU (measured: 194 → 142 s of CPU run one at a time).
// In a shared process the top-level before() hooks of all its files run before the first test
// and their after() hooks after the last, so the groups stay small: each file's service stays up
// until its group ends.
const filesPerProcess = 4

const files = readdirSync('test/integration').filter((name) => name.endsWith('.test.ts')).sort().map((name) => `test/integration/${name}`)
const groups = Array.from({ length: Math.ceil(files.length / filesPerProcess) }, (_, index) => files.slice(index * filesPerProcess, (index + 1) * filesPerProcess))

type Run = { code: number; output: string }

function runGroup(database: string, group: string[]): Promise<Run> {
  return new Promise((resolve) => {
    // --liftoff-only: V8 runs PGlite's WebAssembly with its baseline compiler only. Test
    // processes are short-lived, and optimising PostgreSQL's hot functions again in every one
    // cost more CPU than it saved (measured: the integration step 352 → 277 s of CPU, 205 → 172 s
    // of wall time). The service itself runs with V8's defaults.
    const child = spawn(process.execPath, ['--liftoff-only', '--test', '--test-isolation=none', ...group], {
      // Compiled code cached on disk spares each process compiling the same modules again.
      env: { NODE_COMPILE_CACHE: 'node_modules/.cache/node-compile-cache', ...process.env, TEST_DATABASE: database },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }))
  })
}

/** The spec reporter's closing count of one kind ("ℹ pass 12"). */
function count(output: string, kind: string): number {
  return Number(new RegExp(`^ℹ ${kind} (\\d+)$`, 'm').exec(output)?.[1] ?? 0)
}

async function runHalf([database, concurrency]: [string, number]): Promise<{ passed: boolean; summary: string }> {
  const started = performance.now()
  const waiting = [...groups]
  const runs: Run[] = []
  const worker = async () => {
    for (let group = waiting.shift(); group; group = waiting.shift()) {
      const run = await runGroup(database, group)
      runs.push(run)
      process.stdout.write(`\n── ${database}: ${group.join(' ')}: ${run.code === 0 ? 'passed' : `FAILED (exit ${run.code})`} ──\n${run.output}`)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const total = (kind: string) => runs.reduce((sum, run) => sum + count(run.output, kind), 0)
  const passed = runs.every((run) => run.code === 0)
  const summary = `${database}: ${passed ? 'passed' : 'FAILED'} in ${((performance.now() - started) / 1000).toFixed(0)} s: ` +
    `${total('tests')} tests, ${total('pass')} passed, ${total('fail')} failed, ${total('skipped')} skipped`
  return { passed, summary }
}

// `node test/run-integration.ts pglite` (or postgres) runs one half.
const chosen = Object.entries(halves).filter(([database]) => process.argv.length <= 2 || process.argv.includes(database))
process.stdout.write(`integration suite on ${chosen.map(([database]) => database).join(' and ')}, ${filesPerProcess} files per process…\n`)
const results = await Promise.all(chosen.map(runHalf))
process.stdout.write(`\n${results.map((result) => `── ${result.summary} ──`).join('\n')}\n`)
process.exitCode = results.every((result) => result.passed) ? 0 : 1
