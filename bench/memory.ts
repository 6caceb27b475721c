// npm run bench:memory: how much memory the service holds before, during and after load, and
// whether it gives it back (issue 21). The service runs as `npm start` runs it (its own process,
// sandbox mode, the embedded database or DATABASE_URL), loaded by 50 clients reading charges and
// balances and creating charges; its resident set size is read from /proc while it works and
// after it rests. Prints one line per sample and a summary; writes nothing.
import { spawn } from 'node:child_process'
import { readFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runScript } from './harness.ts'

const seconds = Number(process.env.BENCH_SECONDS ?? 60)
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 20)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const port = 18000 + Math.floor(Math.random() * 1000)
const base = `http://127.0.0.1:${port}`

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024

const load = (options: Record<string, unknown>) => runScript<{ requestsPerSecond: number; non2xx: number }>('./load.ts', [JSON.stringify(options)])

const dataDir = mkdtempSync(join(tmpdir(), 'pix-memory-'))
// Exactly as npm start runs it, V8 flags included (the script's exec only spares a shell).
const startScript = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start.replace(/^exec\s+/, '').split(/\s+/)
const service = spawn(process.execPath, startScript.slice(1), {
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', SANDBOX_PROVIDER_REQUIRE_NAME: 'off' },
  stdio: ['ignore', 'pipe', 'inherit'],
})
let banner = ''
service.stdout.on('data', (chunk) => (banner += chunk))
const pid = service.pid!
try {
  for (let waited = 0; !/demo API token:\s+(\S+)/.test(banner); waited += 100) {
    if (waited > 60_000) throw new Error('the service did not start')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const token = /demo API token:\s+(\S+)/.exec(banner)![1]!
  const headers = { 'x-api-token': token, 'content-type': 'application/json' }
  const created = await fetch(`${base}/api/create-payment`, { method: 'POST', headers, body: JSON.stringify({ value: '10.00', email: 'memory@example.com', tax_number: '11144477735' }) })
  const { id } = (await created.json()) as { id: string }
  // Settled: a first start on an empty folder (initdb, migrations) has a peak of its own, given back within seconds.
  await new Promise((resolve) => setTimeout(resolve, 10_000))
  const started = rssMb(pid)
  process.stdout.write(`start: ${started.toFixed(0)} MB\n`)

  let peak = started
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid))
  }, 250)
  const requests = [
    { method: 'GET', path: `/api/get-payment/${id}` },
    { method: 'GET', path: '/api/get-balance' },
    { method: 'POST', path: '/api/create-payment', body: JSON.stringify({ value: '10.00', email: 'memory@example.com', tax_number: '11144477735' }) },
  ]
  // Two rounds of load, each followed by rest: memory that is bounded stops growing after the first.
  const after: number[] = []
  for (const round of [1, 2]) {
    const result = await load({ url: base, connections, duration: seconds, headers, requests })
    process.stdout.write(`round ${round}: ${seconds} s at ${connections} clients (${result.requestsPerSecond.toFixed(0)} req/s, ${result.non2xx} non-2xx): ${rssMb(pid).toFixed(0)} MB, peak ${peak.toFixed(0)} MB\n`)
    for (let second = 5; second <= idleSeconds; second += 5) {
      await new Promise((resolve) => setTimeout(resolve, 5_000))
      process.stdout.write(`  idle ${second} s: ${rssMb(pid).toFixed(0)} MB\n`)
    }
    after.push(rssMb(pid))
  }
  clearInterval(sampler)
  process.stdout.write(`summary: start ${started.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, after each round's rest ${after.map((mb) => mb.toFixed(0)).join(' and ')} MB (${(after.at(-1)! / started).toFixed(2)}× the start)\n`)
} finally {
  service.kill('SIGTERM')
  await new Promise((resolve) => service.once('exit', resolve))
  rmSync(dataDir, { recursive: true, force: true })
}
