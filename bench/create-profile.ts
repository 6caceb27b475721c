// npm run bench:create-profile: where a create-payment's CPU goes. The service runs in sandbox
// mode on PostgreSQL, as npm run bench measures it, with the provider's fake in the same process;
// autocannon (another process) creates charges for BENCH_SECONDS while V8's sampling profiler
// runs, and each sample is put in one bucket by the code it was in. Prints a table in the form
// docs/performance.md keeps it; the figures are shares of this process's CPU, so a busy machine
// changes the rate but little the shares.
import { Session } from 'node:inspector/promises'
import { runScript, startBenchService, throwawayDatabase } from './harness.ts'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)

type ProfileNode = { id: number; callFrame: { functionName: string; url: string }; children?: number[] }
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** Each bucket and how its frames are known, first match wins, from the sampled frame outwards. */
const buckets: Array<[string, (frame: ProfileNode['callFrame']) => boolean]> = [
  ['system calls writing to sockets', (f) => f.url === '' && /^(writev|writeUtf8String|writeBuffer|writeLatin1String)$/.test(f.functionName)],
  ['the provider fake (sandbox only)', (f) => f.url.includes('/src/sandbox/')],
  ['request validation (Ajv)', (f) => /node_modules\/(ajv|@fastify\/ajv-compiler)\//.test(f.url)],
  ['answer serialization', (f) => f.url.includes('node_modules/fast-json-stringify/')],
  ['database driver and query builder', (f) => /node_modules\/(pg|pg-protocol|pg-pool|pg-types|kysely)\//.test(f.url)],
  ['HTTP client (provider calls)', (f) => /^node:_http_(client|agent)$/.test(f.url) || f.url.includes('/src/net/')],
  ['HTTP server (Fastify, routing, hooks)', (f) => /node_modules\/(fastify|find-my-way|avvio|@fastify|fast-querystring|light-my-request)\//.test(f.url) || /^node:_http_(server|incoming|outgoing|common)$/.test(f.url)],
  ['crypto (ids, token hash)', (f) => f.url.startsWith('node:internal/crypto')],
  ['the service\'s own code', (f) => f.url.includes('/src/')],
  ['Node streams, sockets, timers, promises', (f) => f.url.startsWith('node:')],
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['idle', (f) => f.functionName === '(idle)'],
]

function shares(profile: Profile): Array<[string, number]> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const totals = new Map<string, number>()
  let all = 0
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0
    all += delta
    let bucket = 'other'
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const found = buckets.find(([, matches]) => matches(byId.get(current!)!.callFrame))
      if (found) {
        bucket = found[0]
        break
      }
    }
    totals.set(bucket, (totals.get(bucket) ?? 0) + delta)
  })
  return [...totals].map(([name, time]) => [name, time / all] as [string, number]).sort((a, b) => b[1] - a[1])
}

const database = await throwawayDatabase('pixprofile')
const { service, url } = await startBenchService(database.url)
try {
  const post = async (path: string, body: unknown) => (await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<{ token: string }>
  await post('/sandbox/accounts', { email: 'bench@example.com', tax_number: '52998224725' })
  const { token } = await post('/sandbox/accounts/bench@example.com/tokens', {})
  const load = (duration: number) => runScript<{ requestsPerSecond: number; non2xx: number }>('./load.ts', [JSON.stringify({
    url: `${url}/api/create-payment`, method: 'POST', connections: 10, duration,
    headers: { 'x-api-token': token, 'content-type': 'application/json' },
    body: JSON.stringify({ value: '10.00', email: 'customer@example.com', tax_number: '11144477735', payer_name: 'Bench Payer' }),
  })])
  await load(2) // warm-up: JIT, pools, prepared statements
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
  const figures = await load(seconds)
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile }
  session.disconnect()
  process.stdout.write(`create-payment: ${figures.requestsPerSecond.toFixed(0)} req/s for ${seconds} s (non-2xx: ${figures.non2xx})\n\n| Where the service's CPU went | Share |\n|---|---|\n`)
  for (const [name, share] of shares(profile)) process.stdout.write(`| ${name} | ${(share * 100).toFixed(1)} % |\n`)
} finally {
  await service.close()
  await database.drop()
}
