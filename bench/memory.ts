// npm run bench:memory: the resident memory of `npm start` (issues 21 and 53), on the embedded
// database and on PostgreSQL, each against its ceiling. The service runs as `npm start` runs it
// (its own process, V8 flags included, sandbox mode), sampled from /proc every 100 ms: its peak
// while starting (a first start on a new folder: the install's empty cluster copied, migrations),
// idle 10 s after a first charge, its peak under 50 clients reading and creating charges, and a
// minute after they stop. The install's own step (postinstall: PGlite's initdb) is measured alone.
// The embedded database's floor is a bare PGlite opened with the service's settings in a process
// of its own (bench/pglite-floor.ts). Prints one line per figure, then docs/performance.md's table;
// the last line is the figures as JSON, which `npm run bench` writes into docs/performance.md.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runScript, throwawayDatabase } from './harness.ts'
import { memoryTable } from './memory-table.ts'

const seconds = Number(process.env.BENCH_SECONDS ?? 60)
const restSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 60)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
/** Issue 53's ceilings, in MB; "after" is a share of the same run's idle figure. */
const ceilings = { embedded: { startPeak: 450, idle: 350, loadPeak: 450 }, postgres: { idle: 150 }, afterOverIdle: 1.2 }

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024
/** The process's CPU seconds so far (user + system, from /proc/PID/stat). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** The highest resident size of a process since it was spawned, sampled every 100 ms. */
function watch(child: ChildProcess) {
  const pid = child.pid!
  let peak = 0
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid))
    } catch {} // exited between two samples
  }, 100)
  return { pid, peak: () => peak, reset: () => (peak = rssMb(pid)), stop: () => clearInterval(timer) }
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
}

const load = (options: Record<string, unknown>) => runScript<{ requestsPerSecond: number; non2xx: number; total: number }>('./load.ts', [JSON.stringify(options)])

/**
 * A package.json script as npm runs it (its exec only spares a shell): `exec [env NAME=value…]
 * node [flags…] file`, as its environment, node flags and file.
 */
function scriptCommand(name: string) {
  const words = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts[name]!.replace(/^exec\s+(env\s+)?/, '').split(/\s+/)
  const env = Object.fromEntries(words.filter((word) => /^[A-Z_]+=/.test(word)).map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]))
  const rest = words.filter((word) => !/^[A-Z_]+=/.test(word))
  return { env, flags: rest.slice(1, -1), file: rest.at(-1)! }
}
const { env: startEnv, flags: nodeFlags } = scriptCommand('start')
const postinstall = scriptCommand('postinstall')

/** Spawns node with npm start's flags and waits for a line of its output to match. */
async function startWith(script: string[], env: Record<string, string>, ready: RegExp) {
  const child = spawn(process.execPath, [...nodeFlags, ...script], { env: { ...process.env, ...startEnv, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  const watched = watch(child)
  let out = ''
  child.stdout!.on('data', (chunk) => (out += chunk))
  for (let waited = 0; !ready.test(out); waited += 100) {
    if (waited > 120_000 || child.exitCode !== null) throw new Error(`${script.join(' ')} did not start`)
    await pause(100)
  }
  return { child, watched, out: () => out }
}

/** A bare PGlite with the service's settings in a new folder: its peak while it opens and its size at rest. */
async function pgliteFloor() {
  const dataDir = mkdtempSync(join(tmpdir(), 'pix-floor-'))
  const { child, watched } = await startWith([new URL('./pglite-floor.ts', import.meta.url).pathname, dataDir], {}, /ready/)
  try {
    await pause(10_000)
    return { startPeak: watched.peak(), idle: rssMb(watched.pid) }
  } finally {
    watched.stop()
    await stop(child)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

type ServiceFigures = { startPeak: number; idle: number; loadPeak: number; after: number; requestsPerSecond: number; cpuMsPerRequest: number; non2xx: number }

async function serviceMemory(env: Record<string, string>): Promise<ServiceFigures> {
  const port = 18000 + Math.floor(Math.random() * 1000)
  const base = `http://127.0.0.1:${port}`
  const banner = /demo API token:\s+(\S+)/
  const { child, watched, out } = await startWith([new URL('../src/main.ts', import.meta.url).pathname], {
    PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', SANDBOX_PROVIDER_REQUIRE_NAME: 'off', ...env,
  }, banner)
  try {
    const token = banner.exec(out())![1]!
    const headers = { 'x-api-token': token, 'content-type': 'application/json' }
    const body = JSON.stringify({ value: '10.00', email: 'memory@example.com', tax_number: '11144477735' })
    const created = await fetch(`${base}/api/create-payment`, { method: 'POST', headers, body })
    const { id } = (await created.json()) as { id: string }
    await pause(10_000)
    const startPeak = watched.peak()
    const idle = rssMb(watched.pid)
    watched.reset()
    const cpuBefore = cpuSeconds(watched.pid)
    const requests = [
      { method: 'GET', path: `/api/get-payment/${id}` },
      { method: 'GET', path: '/api/get-balance' },
      { method: 'POST', path: '/api/create-payment', body },
    ]
    const result = await load({ url: base, connections, duration: seconds, headers, requests })
    const cpuMsPerRequest = ((cpuSeconds(watched.pid) - cpuBefore) * 1000) / Math.max(1, result.total)
    const loadPeak = watched.peak()
    await pause(restSeconds * 1000)
    return { startPeak, idle, loadPeak, after: rssMb(watched.pid), requestsPerSecond: result.requestsPerSecond, cpuMsPerRequest, non2xx: result.non2xx }
  } finally {
    watched.stop()
    await stop(child)
  }
}

const mb = (value: number) => `${value.toFixed(0)} MB`
function print(name: string, figures: ServiceFigures) {
  process.stdout.write(
    `${name}: start peak ${mb(figures.startPeak)}, idle ${mb(figures.idle)}, under load ${mb(figures.loadPeak)} ` +
      `(${figures.requestsPerSecond.toFixed(0)} req/s, ${figures.cpuMsPerRequest.toFixed(2)} ms of CPU a request, ${figures.non2xx} non-2xx), ` +
      `${restSeconds} s after ${mb(figures.after)} (${((figures.after / figures.idle) * 100).toFixed(0)} % of idle)\n`,
  )
}

/**
 * The install's step (postinstall, as npm ci runs it): PGlite's initdb making the embedded
 * database's empty cluster, in a folder of its own: its peak and time.
 */
async function installStep() {
  const dir = mkdtempSync(join(tmpdir(), 'pix-template-'))
  const started = performance.now()
  const child = spawn(process.execPath, [...postinstall.flags, postinstall.file, join(dir, 'pglite')], { env: { ...process.env, ...postinstall.env }, stdio: ['ignore', 'ignore', 'inherit'] })
  const watched = watch(child)
  try {
    const [code] = (await once(child, 'exit')) as [number | null]
    if (code !== 0) throw new Error(`the install's step exited with ${code}`)
    return { peak: watched.peak(), seconds: (performance.now() - started) / 1000 }
  } finally {
    watched.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

const install = await installStep()
process.stdout.write(`the install's step (postinstall: the empty cluster): peak ${mb(install.peak)}, ${install.seconds.toFixed(1)} s\n`)
// The starts below copy the install's cluster, as they do after npm ci: made here if this checkout
// was installed without it (npm ci --ignore-scripts).
const made = spawnSync(process.execPath, [...postinstall.flags, postinstall.file], { env: { ...process.env, ...postinstall.env }, stdio: 'inherit' })
if (made.status !== 0) throw new Error("the install's step failed")
const floor = await pgliteFloor()
process.stdout.write(`bare PGlite (the floor): peak while opening ${mb(floor.startPeak)}, at rest ${mb(floor.idle)}\n`)
/** A later start on a folder the first one made (every start after a deployment's first): its peak until 10 s after the banner. */
async function restartPeak(env: Record<string, string>): Promise<number> {
  const port = 18000 + Math.floor(Math.random() * 1000)
  const { child, watched } = await startWith([new URL('../src/main.ts', import.meta.url).pathname], { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env }, /demo API token/)
  try {
    await pause(10_000)
    return watched.peak()
  } finally {
    watched.stop()
    await stop(child)
  }
}

const embeddedDir = mkdtempSync(join(tmpdir(), 'pix-memory-'))
let embedded: ServiceFigures & { restartPeak: number }
try {
  const first = await serviceMemory({ DATA_DIR: embeddedDir })
  embedded = { ...first, restartPeak: await restartPeak({ DATA_DIR: embeddedDir }) }
} finally {
  rmSync(embeddedDir, { recursive: true, force: true })
}
print('embedded', embedded)
process.stdout.write(`embedded, a later start on the same folder: peak ${mb(embedded.restartPeak)}\n`)

// PostgreSQL on a database of its own, when a server answers.
let postgres: ServiceFigures | null = null
const database = await throwawayDatabase('pixmemory').catch(() => null)
if (database) {
  try {
    postgres = await serviceMemory({ DATABASE_URL: database.url })
    print('PostgreSQL', postgres)
  } finally {
    await database.drop()
  }
} else {
  process.stdout.write("PostgreSQL: not measured (no server answered)\n")
}
const figures = { seconds, restSeconds, connections, startEnv, nodeFlags, ceilings, install, floor, embedded, postgres }
// The table docs/performance.md shows (npm run bench writes it there), then the figures.
process.stdout.write(`\n${memoryTable(figures)}\n\n${JSON.stringify(figures)}\n`)
