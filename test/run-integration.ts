// npm test's integration step: the suite on PGlite and on PostgreSQL at the same time. The
// PGlite half keeps the CPU busy while the PostgreSQL half mostly waits on the server, so side
// by side they take little longer than the slower one alone. Each half's report is printed
// whole when it ends (interleaved, the two would be unreadable); the step fails if either does.
import { spawn } from 'node:child_process'

// PGlite runs in the test processes and is CPU-bound; the PostgreSQL half mostly waits (on the
// server, on receivers' time-outs), so more of its files run at once.
const halves = { pglite: 2, postgres: 4 } as const

function runHalf([database, concurrency]: [string, number]): Promise<{ database: string; code: number; output: string; seconds: number }> {
  const started = performance.now()
  return new Promise((resolve) => {
    // --liftoff-only: V8 runs PGlite's WebAssembly with its baseline compiler only. Each test
    // file is a short-lived process, and optimising PostgreSQL's hot functions again in every one
    // cost more CPU than it saved (measured: the integration step 352 → 277 s of CPU, 205 → 172 s
    // of wall time). The service itself runs with V8's defaults.
    const child = spawn(process.execPath, ['--liftoff-only', '--test', `--test-concurrency=${concurrency}`, 'test/integration/**/*.test.ts'], {
      // Each test file is a process of its own: compiled code cached on disk spares each one
      // compiling the same modules again.
      env: { NODE_COMPILE_CACHE: 'node_modules/.cache/node-compile-cache', ...process.env, TEST_DATABASE: database },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('close', (code, signal) => resolve({ database, code: code ?? (signal ? 1 : 0), output, seconds: (performance.now() - started) / 1000 }))
  })
}

process.stdout.write(`integration suite on ${Object.keys(halves).join(' and ')}, side by side…\n`)
const results = await Promise.all(Object.entries(halves).map(runHalf))
for (const { database, code, output, seconds } of results) {
  process.stdout.write(`\n── ${database}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds.toFixed(0)} s ──\n${output}`)
}
process.exitCode = results.some((result) => result.code !== 0) ? 1 : 0
