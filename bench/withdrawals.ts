// npm run bench:withdrawals (issue 23, point 9): how fast the payout worker pays Liquid
// withdrawals, and whether Pix-outs keep to Eulen's limit on POST /withdraw. The service runs in
// production mode in this process: the real job runner (started as main.ts starts it) and the
// production adapters, over HTTP to the fake Elements node (sandbox/fake-elements.ts) and the fake
// Eulen API (sandbox/fake-eulen.ts), and over SMTP to a sink that takes every mail. For the Liquid
// rounds the fake node and the mail sink run in a process of their own, as a node and a mail
// server do; the fake provider (only the owners' credits need it there) stays in this one. Each
// round starts from a new database: PGlite in a data folder, as a deployment keeps it, or a new
// database on the PostgreSQL server (127.0.0.1:5432, as bench/run.ts and the tests find it).
// Prints the figures; writes nothing.
//
//   BENCH_DATABASES=pglite,postgres  which databases, in turn
//   BENCH_ROUNDS=3                   Liquid rounds per database (each from a new database)
//   BENCH_WITHDRAWALS=1000           Liquid withdrawals per round
//   BENCH_ACCOUNTS=40                the owners they are spread over (25 each: R$ 250 a day, far below the limits)
//   BENCH_PIX=150                    Pix-outs queued at once for the limit check (0: skip it)
//   BENCH_PIX_DATABASES=pglite       where the limit check runs (the bucket is one SQL statement on either)
//   BENCH_TREASURY_COINS=20          coins of each asset the fake treasury holds
//   BENCH_STATEMENTS=1               print each SQL text's count per withdrawal (PostgreSQL)
//
// CPU profiles: node --cpu-prof --cpu-prof-dir=prof bench/withdrawals.ts writes one for this
// process and one for the fake node's; the bench prints each drain's window on the profiles' clock.
import { fork } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism, cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { sql } from 'kysely'
import { SMTPServer } from 'smtp-server'
import { checkLedger } from '../src/app/check-ledger.ts'
import { issueToken } from '../src/app/issue-token.ts'
import { openAccount } from '../src/app/open-account.ts'
import { createAdjustableClock, type AdjustableClock } from '../src/clock.ts'
import { loadConfig } from '../src/config.ts'
import { startFakeElements, type FakeElements } from '../src/sandbox/fake-elements.ts'
import { startFakeEulen, type FakeEulen } from '../src/sandbox/fake-eulen.ts'
import { startService, type Service } from '../src/service.ts'
import { openPglite } from '../src/store/database.ts'
import { newLiquidAddress, parseLiquidAddress } from '../src/treasury/liquid-address.ts'
import pg from 'pg'
import { backendCpuSeconds, backendPids } from './database-cpu.ts'
import { throwawayDatabase } from './harness.ts'

type DatabaseKind = 'pglite' | 'postgres'
const list = (value: string) => value.split(',').map((item) => item.trim()).filter((item) => item !== '') as DatabaseKind[]
const databases = list(process.env.BENCH_DATABASES ?? 'pglite,postgres')
const pixDatabases = list(process.env.BENCH_PIX_DATABASES ?? 'pglite')
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const withdrawalCount = Number(process.env.BENCH_WITHDRAWALS ?? 1000)
const accountCount = Number(process.env.BENCH_ACCOUNTS ?? 40)
const pixCount = Number(process.env.BENCH_PIX ?? 150)
const treasuryCoins = Number(process.env.BENCH_TREASURY_COINS ?? 20)

const T0 = new Date('2026-11-22T12:00:00.000Z')
const PROVIDER_TOKEN = 'bench-provider-token'
const WEBHOOK_SECRET = 'bench-hook-secret-9f8e7d6c5b4a3928'
const BLINDING_KEY = Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')
/** TREASURY_POLL_SECONDS as deployed (its default): a sent payout is looked at again this long after. */
const POLL_SECONDS = 30

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const round1 = (value: number) => Math.round(value * 10) / 10
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/**
 * SQL statements this process sent to PostgreSQL (pg's Client.query, which the service's
 * preparing client calls for each one, begin and commit included): counted during each drain,
 * with the bench's own polls of the statuses (one statement each 100 ms).
 */
let statementsSent = 0
/** BENCH_STATEMENTS=1: each text's count too, printed after each PostgreSQL drain. */
const statementTexts = process.env.BENCH_STATEMENTS === '1' ? new Map<string, number>() : null
const clientQuery = pg.Client.prototype.query
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  statementsSent++
  // A prepared statement comes as { name, text, values }.
  const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text
  if (statementTexts !== null && text !== undefined) statementTexts.set(text, (statementTexts.get(text) ?? 0) + 1)
  return (clientQuery as (...args: unknown[]) => unknown).apply(this, args)
} as typeof clientQuery

/** Under --cpu-prof the bench prints each drain's window on the profile's clock (CLOCK_MONOTONIC), to cut the setup out of it. */
const profiling = process.execArgv.some((flag) => flag.startsWith('--cpu-prof'))
const monotonicMicros = () => process.hrtime.bigint() / 1000n

/** Busy and total jiffies of the whole machine (/proc/stat): what else ran beside the bench. */
function machineJiffies(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
  const idle = fields[3]! + fields[4]!
  const total = fields.reduce((sum, value) => sum + value, 0)
  return { busy: total - idle, total }
}

/** CPU seconds used so far by these PostgreSQL backends; those gone are left out. */
function processCpuSeconds(pids: number[]): number {
  return [...backendCpuSeconds(pids).values()].reduce((sum, seconds) => sum + seconds, 0)
}

/** An SMTP server that takes every mail and keeps none: the service's mail costs what it costs in production. */
async function startMailSink() {
  let received = 0
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => {})
      stream.on('end', () => {
        received++
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  const port = (smtp.server.address() as { port: number }).port
  return { url: `smtp://127.0.0.1:${port}`, received: () => received, close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) }
}

/** The fake Elements node (the treasury) and the mail sink, where the service reaches them over the network. */
async function startNeighbourParts() {
  const { assets } = loadConfig({}).treasury
  const password = randomBytes(24).toString('base64url')
  const elements = await startFakeElements({ network: 'elementsregtest', wallet: 'treasury', user: 'rpc', password, assets })
  // Many coins, as a treasury that has received many deposits: eight payouts at once each lock
  // some until broadcast. BENCH_TREASURY_COINS=1 is the sandbox's treasury (one coin of each).
  for (const [currency, units] of [['DEPIX', 100_000_000_000_000n], ['BTC', 1_000_000_000n], ['USDt', 10_000_000_000_000n]] as const) elements.setBalance(currency, units, treasuryCoins)
  const mail = await startMailSink()
  return { elements, mail, password }
}

/** What the bench asks of the neighbours, wherever they run. */
type Neighbours = {
  elementsUrl: string
  password: string
  mailUrl: string
  mine: (blocks: number) => Promise<void>
  /** How many transactions paid each script the wallet does not own. */
  paidScripts: () => Promise<Record<string, number>>
  /** RPC calls the node answered, and the HTTP requests they came in (a batch is one). */
  rpcCalls: () => Promise<{ calls: number; requests: number }>
  mails: () => Promise<number>
  /** CPU seconds the neighbours used so far when they run in a process of their own; 0 in this one. */
  cpuSeconds: () => Promise<number>
  close: () => Promise<void>
}

function neighboursOf(parts: Awaited<ReturnType<typeof startNeighbourParts>>): Neighbours & { elements: FakeElements } {
  const { elements, mail, password } = parts
  return {
    elements,
    elementsUrl: elements.url,
    password,
    mailUrl: mail.url,
    mine: async (blocks) => void elements.mine(blocks),
    paidScripts: async () => {
      const paid: Record<string, number> = {}
      for (const tx of elements.transactions()) for (const output of tx.outputs) paid[output.scriptHex] = (paid[output.scriptHex] ?? 0) + 1
      return paid
    },
    rpcCalls: async () => ({ calls: Object.values(elements.calls()).reduce((sum, n) => sum + n, 0), requests: elements.requests() }),
    mails: async () => mail.received(),
    cpuSeconds: async () => 0,
    close: async () => {
      await elements.close()
      await mail.close()
    },
  }
}

/**
 * The neighbours in a process of their own, as an Elements node and a mail server are in
 * production: the service's event loop then runs only the service, and what the fakes cost shows
 * apart. The same file, started with --neighbours, answering over the IPC channel.
 */
async function forkNeighbours(): Promise<Neighbours> {
  const child = fork(new URL(import.meta.url).pathname, ['--neighbours'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  let nextId = 0
  const waiting = new Map<number, (result: any) => void>()
  const ready = new Promise<{ elementsUrl: string; password: string; mailUrl: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the neighbours exited with ${code}`)))
    child.on('message', (message: { id?: number; result?: unknown; ready?: { elementsUrl: string; password: string; mailUrl: string } }) => {
      if (message.ready) resolve(message.ready)
      else waiting.get(message.id!)?.(message.result)
    })
  })
  const ask = (op: string, arg?: unknown) => new Promise<any>((resolve) => {
    const id = nextId++
    waiting.set(id, (result) => {
      waiting.delete(id)
      resolve(result)
    })
    child.send({ id, op, arg })
  })
  const started = await ready
  return {
    ...started,
    mine: (blocks) => ask('mine', blocks),
    paidScripts: () => ask('paidScripts'),
    rpcCalls: () => ask('rpcCalls'),
    mails: () => ask('mails'),
    cpuSeconds: () => ask('cpuSeconds'),
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.send({ id: -1, op: 'close' })
      await exited
    },
  }
}

/** The child's side of forkNeighbours. */
async function serveNeighbours(): Promise<void> {
  const neighbours = neighboursOf(await startNeighbourParts())
  const ops: Record<string, (arg: unknown) => Promise<unknown>> = {
    mine: (blocks) => neighbours.mine(blocks as number),
    paidScripts: () => neighbours.paidScripts(),
    rpcCalls: () => neighbours.rpcCalls(),
    mails: () => neighbours.mails(),
    cpuSeconds: async () => {
      const used = process.cpuUsage()
      return (used.user + used.system) / 1e6
    },
  }
  process.on('message', (message: { id: number; op: string; arg?: unknown }) => {
    if (message.op === 'close') {
      void neighbours.close().then(() => process.exit(0))
      return
    }
    void ops[message.op]!(message.arg).then((result) => process.send!({ id: message.id, result }))
  })
  // The bench gone (finished or failed), the neighbours go too.
  process.on('disconnect', () => process.exit(0))
  process.send!({ ready: { elementsUrl: neighbours.elementsUrl, password: neighbours.password, mailUrl: neighbours.mailUrl } })
}

type Rig = {
  kind: DatabaseKind
  service: Service
  clock: AdjustableClock
  neighbours: Neighbours
  provider: FakeEulen
  address: string
  /** The PostgreSQL backends' process ids (empty on PGlite, which runs in this process). */
  backends: () => Promise<number[]>
  close: () => Promise<void>
}

/** The service in production mode on a new database, with its fakes, and the clock they share. */
async function startRig(kind: DatabaseKind, options: { pixOuts: boolean }): Promise<Rig> {
  const closers: Array<() => Promise<void>> = []
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch((error: unknown) => console.error('close:', error))
  }
  try {
    // One clock for the service and the provider: it stands still, and moves only when the bench moves it.
    const clock = createAdjustableClock(T0)
    const providerDb = await openPglite(null, { settings: ['shared_buffers = 16MB'] })
    closers.push(() => providerDb.close())
    // The fake answers every call: what reaches it is what our own limits let through.
    const provider = await startFakeEulen({ db: providerDb.db, clock, token: PROVIDER_TOKEN, enforceRateLimits: false })
    closers.push(() => provider.close())
    let neighbours: Neighbours
    if (options.pixOuts) {
      // The provider's payouts take their deposit addresses from the treasury and see what it
      // sends there: the fake node runs beside the fake provider, in this process.
      const inProcess = neighboursOf(await startNeighbourParts())
      provider.watchPayouts(inProcess.elements)
      neighbours = inProcess
    } else {
      neighbours = await forkNeighbours()
    }
    closers.push(() => neighbours.close())

    let databaseEnv: Record<string, string>
    let backends: () => Promise<number[]> = async () => []
    if (kind === 'pglite') {
      const dataDir = mkdtempSync(join(tmpdir(), 'pix-bench-withdrawals-'))
      closers.push(async () => rmSync(dataDir, { recursive: true, force: true }))
      databaseEnv = { DATA_DIR: dataDir }
    } else {
      const database = await throwawayDatabase('pixbench')
      closers.push(database.drop)
      databaseEnv = { DATABASE_URL: database.url }
      backends = () => backendPids(database.admin, database.name)
    }
    const config = loadConfig({
      ...databaseEnv,
      MODE: 'production', PORT: '0', HOST: '127.0.0.1', BASE_URL: 'https://pix.example.com', LOG_LEVEL: 'warn',
      PROVIDER_URL: provider.url, PROVIDER_TOKEN, PROVIDER_WEBHOOK_SECRET: WEBHOOK_SECRET, PROVIDER_DELAY_HOURS: '1',
      OPS_TOKEN: 'bench-ops-token-0a1b2c3d4e5f60718293a4b5', SMTP_URL: neighbours.mailUrl, MAIL_FROM: 'Pix <no-reply@example.com>',
      PRICE_SOURCE_URL: 'http://127.0.0.1:1/ticker',
      LIQUID_NETWORK: 'elementsregtest', ELEMENTS_RPC_URL: neighbours.elementsUrl, ELEMENTS_RPC_USER: 'rpc', ELEMENTS_RPC_PASSWORD: neighbours.password, ELEMENTS_WALLET: 'treasury',
      TREASURY_POLL_SECONDS: String(POLL_SECONDS),
      // Leases outlast the clock's jump of POLL_SECONDS: at a 30 s lease, the jobs running at the
      // jump (mails being sent) were free to claim again at once, and some mails went twice.
      JOB_LEASE_SECONDS: '300',
      // One token per owner makes all of that owner's requests: the per-token API limit is not what is measured.
      RATE_LIMIT_PER_MINUTE: '0',
    })
    const service = await startService(config, { clock })
    closers.push(() => service.close())
    const address = await service.app.listen({ host: '127.0.0.1', port: 0 })
    provider.setWebhookTarget(`${address}/provider/webhooks`, WEBHOOK_SECRET)
    return { kind, service, clock, neighbours, provider, address, backends, close }
  } catch (error) {
    await close()
    throw error
  }
}

async function call(rig: Rig, method: 'GET' | 'POST', path: string, token: string, body?: unknown): Promise<any> {
  const response = await fetch(`${rig.address}${path}`, {
    method,
    headers: { 'x-api-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const answer = await response.json()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`)
  return answer
}

/** Runs `work` on every item, `concurrency` at a time. */
async function eachConcurrently<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]!)
  }))
}

type Owner = { accountId: number; email: string; taxNumber: string; euid: string; token: string }

/**
 * Owners with an identity and a token, each credited `reais` as production credits an owner: a
 * charge through the API, paid by the owner, delivered by the provider's webhook when its delay ends.
 */
async function creditedOwners(rig: Rig, count: number, reais: string): Promise<Owner[]> {
  const { store } = rig.service
  const owners: Owner[] = []
  const taxNumbers = new Set<string>()
  while (taxNumbers.size < count) taxNumbers.add(generateCpf())
  let i = 0
  for (const taxNumber of taxNumbers) {
    const email = `owner${i++}@bench.example.com`
    const euid = (await rig.provider.endUser(taxNumber, 'Owner Person')).euid
    const account = await openAccount({ store, clock: rig.clock }, { email, taxNumber, name: 'Owner Person', kyc: 'verified', euid })
    const { token } = await issueToken({ store, clock: rig.clock }, { accountId: account.id })
    owners.push({ accountId: account.id, email, taxNumber, euid, token })
  }
  await eachConcurrently(owners, 4, async (owner) => {
    const charge = await call(rig, 'POST', '/api/create-payment', owner.token, { value: reais, email: owner.email, euid: owner.euid })
    const depositId = (await store.charges.findById(charge.id))!.provider_deposit_id!
    const status = await rig.provider.settle(depositId, { payerName: 'Owner Person', payerTaxNumber: owner.taxNumber, outcome: 'depix_sent' })
    if (status !== 200) throw new Error(`the provider's deposit webhook was answered ${status}`)
  })
  // The charges were made with a delay (PROVIDER_DELAY_HOURS): the provider delivers an hour later.
  rig.clock.advance(3_601)
  await rig.provider.deliverDelayed()
  for (const owner of owners) {
    const available = (await store.ledger.balances(owner.accountId, 'available')).DEPIX
    if (available <= 0) throw new Error(`${owner.email} was not credited`)
  }
  return owners
}

/** A destination confirmed in the Wallet and past its cool-down, as an owner's is a day after adding it. */
async function confirmedDestination(rig: Rig, owner: Owner, type: 'liquid' | 'pix', value: string): Promise<{ id: string; scriptHex: string | null }> {
  const scriptHex = type === 'liquid' ? parseLiquidAddress(value, 'elementsregtest')!.scriptHex : null
  const now = rig.clock.now()
  const row = await rig.service.store.withdrawals.insertDestination({
    id: `dst_${randomBytes(12).toString('hex')}`, account_id: owner.accountId, type, value, script_hex: scriptHex, label: null, state: 'confirmed',
    created_at: now, confirmed_at: now, usable_at: new Date(now.getTime() - 1_000), canceled_at: null, cancel_token_hash: createHash('sha256').update(randomBytes(16)).digest('hex'),
  })
  if (!row) throw new Error('the destination was not stored')
  return { id: row.id, scriptHex }
}

/** The withdrawals' statuses, counted. */
async function statuses(rig: Rig): Promise<Record<string, number>> {
  return Object.fromEntries((await rig.service.store.withdrawals.countByStatus()).map((row) => [row.status, Number(row.n)]))
}

/** Waits until `done` holds of the statuses (looking every 100 ms); fails on a withdrawal held or failed, or after `limitMs`. */
async function until(rig: Rig, done: (counts: Record<string, number>) => boolean, limitMs: number): Promise<void> {
  const started = performance.now()
  for (;;) {
    const counts = await statuses(rig)
    if (done(counts)) return
    if ((counts.in_review ?? 0) + (counts.failed ?? 0) + (counts.canceled ?? 0) > 0) throw new Error(`withdrawals left the way: ${JSON.stringify(counts)}`)
    if (performance.now() - started > limitMs) throw new Error(`not done after ${limitMs} ms: ${JSON.stringify(counts)}`)
    await sleep(100)
  }
}

/** Waits until no mail waits in the outbox (looking every 100 ms); fails after `limitMs`. */
async function untilMailSent(rig: Rig, limitMs: number): Promise<void> {
  const started = performance.now()
  for (;;) {
    const pending = await rig.service.store.mail.pendingCount()
    if (pending === 0) return
    if (performance.now() - started > limitMs) throw new Error(`${pending} mails still queued after ${limitMs} ms`)
    await sleep(100)
  }
}

type LiquidRound = {
  kind: DatabaseKind
  setupSeconds: number
  queueSeconds: number
  sentSeconds: number
  completedSeconds: number
  /** From the last completed until the outbox was empty. */
  mailedSeconds: number
  sentPerSecond: number
  completedPerSecond: number
  endToEndPerSecond: number
  cpuMsPerWithdrawal: number
  serverCpuMsPerWithdrawal: number | null
  /** The fake node's and the mail sink's process. */
  neighboursCpuMsPerWithdrawal: number
  /** CPU the rest of the machine used during the drain, in cores (other engineers' work). */
  otherCores: number
  rpcPerWithdrawal: number
  rpcRequestsPerWithdrawal: number
  /** PostgreSQL only (PGlite's statements do not leave the process). */
  statementsPerWithdrawal: number | null
  mails: number
}

/** One round: a new database, `withdrawalCount` Liquid withdrawals queued through the API, then drained by the job runner. */
async function liquidRound(kind: DatabaseKind): Promise<LiquidRound> {
  const setupStarted = performance.now()
  const rig = await startRig(kind, { pixOuts: false })
  try {
    const { service } = rig
    const perOwner = Math.ceil(withdrawalCount / accountCount)
    // R$ 10,00 each: 25 of them are R$ 250, well inside the fake provider's R$ 500 for a payer it has not seen.
    const owners = await creditedOwners(rig, accountCount, ((perOwner * 1_000 + 5_000) / 100).toFixed(2))
    // A destination per withdrawal, so the bench can count the transactions that paid each one.
    const plan: Array<{ owner: Owner; destination: { id: string; scriptHex: string | null } }> = []
    for (let i = 0; i < withdrawalCount; i++) {
      const owner = owners[i % owners.length]!
      plan.push({ owner, destination: await confirmedDestination(rig, owner, 'liquid', newLiquidAddress('elementsregtest', randomBytes(20), BLINDING_KEY)) })
    }
    const queueStarted = performance.now()
    // The runner is not started yet: every request only queues its withdrawal, as a burst of owners would.
    await eachConcurrently(plan, 8, async ({ owner, destination }) => {
      const made = await call(rig, 'POST', '/api/withdrawals', owner.token, { currency: 'DEPIX', amount: 1_000, destination_id: destination.id })
      if (made.status !== 'confirmed') throw new Error(`a withdrawal was made ${made.status}: ${JSON.stringify(made)}`)
    })
    const queueSeconds = (performance.now() - queueStarted) / 1000
    const setupSeconds = (performance.now() - setupStarted) / 1000
    const rpcBefore = await rig.neighbours.rpcCalls()
    const mailsBefore = await rig.neighbours.mails()

    // The measured drain: from the runner's start until the last withdrawal is sent, then from
    // two blocks mined (and the poll interval passed) until the last is completed, then until the
    // owners' mails have all left the outbox (the CPU figures count them; end to end does not wait).
    const pids = await rig.backends()
    const serverCpuBefore = processCpuSeconds(pids)
    const machineBefore = machineJiffies()
    const neighboursCpuBefore = await rig.neighbours.cpuSeconds()
    const cpuBefore = process.cpuUsage()
    const statementsBefore = statementsSent
    statementTexts?.clear()
    const profileWindowStart = monotonicMicros()
    const started = performance.now()
    service.jobs.start()
    await until(rig, (counts) => (counts.sent ?? 0) === withdrawalCount, 300_000)
    const sentAt = performance.now()
    await rig.neighbours.mine(2)
    rig.clock.advance(POLL_SECONDS)
    service.jobs.wake()
    await until(rig, (counts) => (counts.completed ?? 0) === withdrawalCount, 300_000)
    const completedAt = performance.now()
    // The owners' mails are part of a payout's cost: the window closes once the outbox is empty,
    // not with mails still queued whose sending would fall outside it.
    await untilMailSent(rig, 300_000)
    const mailedAt = performance.now()
    const cpu = process.cpuUsage(cpuBefore)
    const statements = statementsSent - statementsBefore
    if (statementTexts !== null && kind === 'postgres') {
      for (const [text, times] of [...statementTexts].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${(times / withdrawalCount).toFixed(2)} a withdrawal: ${text.replace(/\s+/g, ' ').slice(0, 160)}\n`)
    }
    if (profiling) process.stdout.write(`profile window of this drain (µs, the profile's clock): ${profileWindowStart}-${monotonicMicros()}\n`)
    const machine = machineJiffies()
    const neighboursCpu = (await rig.neighbours.cpuSeconds()) - neighboursCpuBefore
    const serverCpu = kind === 'postgres' ? processCpuSeconds(pids) - serverCpuBefore : null
    await service.jobs.stop()

    // Each withdrawal paid once, to its own destination, and the books balance.
    const paid = await rig.neighbours.paidScripts()
    const wrong = plan.filter(({ destination }) => paid[destination.scriptHex!] !== 1)
    if (wrong.length > 0) throw new Error(`${wrong.length} destinations were not paid exactly once`)
    const books = await checkLedger({ store: service.store, treasury: service.treasury })
    if (!books.ok) throw new Error(`the books do not balance: ${JSON.stringify({ ...books, books: undefined })}`)

    const seconds = (mailedAt - started) / 1000
    const ourSeconds = (cpu.user + cpu.system) / 1e6
    const machineSeconds = (machine.busy - machineBefore.busy) / 100
    const rpcAfter = await rig.neighbours.rpcCalls()
    return {
      kind,
      setupSeconds: round1(setupSeconds),
      queueSeconds: round1(queueSeconds),
      sentSeconds: round1((sentAt - started) / 1000),
      completedSeconds: round1((completedAt - sentAt) / 1000),
      mailedSeconds: round1((mailedAt - completedAt) / 1000),
      sentPerSecond: Math.round(withdrawalCount / ((sentAt - started) / 1000)),
      completedPerSecond: Math.round(withdrawalCount / ((completedAt - sentAt) / 1000)),
      endToEndPerSecond: Math.round(withdrawalCount / ((completedAt - started) / 1000)),
      cpuMsPerWithdrawal: round1((ourSeconds * 1000) / withdrawalCount),
      serverCpuMsPerWithdrawal: serverCpu === null ? null : round1((serverCpu * 1000) / withdrawalCount),
      neighboursCpuMsPerWithdrawal: round1((neighboursCpu * 1000) / withdrawalCount),
      otherCores: round1(Math.max(0, machineSeconds - ourSeconds - neighboursCpu - (serverCpu ?? 0)) / seconds),
      rpcPerWithdrawal: round1((rpcAfter.calls - rpcBefore.calls) / withdrawalCount),
      rpcRequestsPerWithdrawal: round1((rpcAfter.requests - rpcBefore.requests) / withdrawalCount),
      statementsPerWithdrawal: kind === 'postgres' ? round1(statements / withdrawalCount) : null,
      mails: (await rig.neighbours.mails()) - mailsBefore,
    }
  } finally {
    await rig.close()
  }
}

type PixFigures = { kind: DatabaseKind; queued: number; perMinute: number[]; fakeSawPerMinute: number[]; statusCalls: number; jobRuns: number; simulatedMinutes: number; realSeconds: number }

/**
 * `pixCount` Pix-outs queued at once, the injected clock moved a second at a time, and the POST
 * /withdraw calls the fake provider saw counted per simulated minute. Our limit on them is a token
 * bucket in the database (provider/rate-limits.ts, store/rate-buckets.ts) refilled by the
 * database's own clock (clock_timestamp(), one clock for every instance), not by the injected one:
 * so each simulated second also moves the buckets' last-touched time back by a second, less the
 * real time that passed since the last step (which refilled them already).
 */
async function pixLimit(kind: DatabaseKind): Promise<PixFigures> {
  const rig = await startRig(kind, { pixOuts: true })
  const realFetch = globalThis.fetch
  try {
    const { service, clock, provider } = rig
    const perOwner = 15
    const owners = await creditedOwners(rig, Math.ceil(pixCount / perOwner), ((perOwner * 2_000 + 5_000) / 100).toFixed(2))
    const destinations = new Map<number, string>()
    for (const owner of owners) destinations.set(owner.accountId, (await confirmedDestination(rig, owner, 'pix', owner.taxNumber)).id)
    for (let i = 0; i < pixCount; i++) {
      const owner = owners[i % owners.length]!
      await call(rig, 'POST', '/api/withdrawals', owner.token, { currency: 'DEPIX', amount: 2_000, destination_id: destinations.get(owner.accountId) })
    }
    const start = clock.now().getTime()
    const minuteOf = (at: Date) => Math.floor((at.getTime() - start) / 60_000)
    const perMinute: number[] = []
    let statusCalls = 0
    globalThis.fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input)
      if (url.startsWith(`${provider.url}/withdraw-status`)) statusCalls++
      else if (url.startsWith(`${provider.url}/withdraw`) && (init?.method ?? 'GET') === 'POST') perMinute[minuteOf(clock.now())] = (perMinute[minuteOf(clock.now())] ?? 0) + 1
      return realFetch(input, init)
    }
    const age = async (ms: number) => {
      await sql`update rate_buckets set updated_at = updated_at - make_interval(secs => ${ms / 1000}::float8) where key like 'provider:%'`.execute(service.database.db)
    }
    const realStarted = performance.now()
    let agedAt = performance.now()
    let simulatedSeconds = 0
    let jobRuns = 0
    // One simulated second at a time: what is due runs, the provider pays the Pix of each payout
    // the treasury has paid (its withdraw webhook completes the withdrawal), and the clock moves.
    for (;;) {
      jobRuns += await service.jobs.runDue()
      for (const payout of await provider.payouts()) if (payout.status === 'sending') await provider.finishPayout(payout.id, 'sent')
      const counts = await statuses(rig)
      if ((counts.in_review ?? 0) + (counts.failed ?? 0) > 0) throw new Error(`Pix-outs left the way: ${JSON.stringify(counts)}`)
      // Done a full simulated minute after the last one completed, so the last minute's count is whole.
      if ((counts.completed ?? 0) === pixCount && simulatedSeconds > 0 && simulatedSeconds % 60 === 0) break
      if (simulatedSeconds > 60 * 60) throw new Error(`not done after an hour of simulated time: ${JSON.stringify(counts)}`)
      clock.advance(1)
      simulatedSeconds++
      const now = performance.now()
      await age(1_000 - (now - agedAt))
      agedAt = now
    }
    const fakeSawPerMinute: number[] = []
    for (const payout of await provider.payouts()) fakeSawPerMinute[minuteOf(payout.created_at)] = (fakeSawPerMinute[minuteOf(payout.created_at)] ?? 0) + 1
    const minutes = simulatedSeconds / 60
    const whole = (counts: number[]) => Array.from({ length: minutes }, (_, minute) => counts[minute] ?? 0)
    if ((await provider.payoutCount()) !== pixCount) throw new Error(`the provider made ${await provider.payoutCount()} payouts for ${pixCount} Pix-outs`)
    const books = await checkLedger({ store: service.store, treasury: service.treasury })
    if (!books.ok) throw new Error('the books do not balance after the Pix-outs')
    return { kind, queued: pixCount, perMinute: whole(perMinute), fakeSawPerMinute: whole(fakeSawPerMinute), statusCalls, jobRuns, simulatedMinutes: minutes, realSeconds: round1((performance.now() - realStarted) / 1000) }
  } finally {
    globalThis.fetch = realFetch
    await rig.close()
  }
}

async function main(): Promise<void> {
  const started = new Date()
  const machine = `${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.versions.node}`
  process.stdout.write(`withdrawals bench, ${started.toISOString()}, ${machine}\n`)
  const liquid: LiquidRound[] = []
  for (const kind of databases) {
    for (let round = 0; round < rounds; round++) {
      const figures = await liquidRound(kind)
      liquid.push(figures)
      process.stdout.write(`liquid ${kind} round ${round + 1}: ${JSON.stringify(figures)}\n`)
    }
  }
  const pix: PixFigures[] = []
  if (pixCount > 0) {
    for (const kind of pixDatabases) {
      const figures = await pixLimit(kind)
      pix.push(figures)
      process.stdout.write(`pix ${kind}: ${JSON.stringify(figures)}\n`)
    }
  }

  const range = (values: number[]) => `${Math.min(...values)}–${Math.max(...values)}`
  process.stdout.write(`\nSummary (${started.toISOString().slice(0, 10)}, ${machine}; ${withdrawalCount} Liquid withdrawals over ${accountCount} owners, a treasury of ${treasuryCoins} coins an asset, ${rounds} rounds per database: median, range)\n`)
  for (const kind of databases) {
    const mine = liquid.filter((figures) => figures.kind === kind)
    const line = (name: keyof LiquidRound) => {
      const values = mine.map((figures) => figures[name]).filter((value): value is number => typeof value === 'number')
      return values.length === 0 ? '–' : `${median(values)} (${range(values)})`
    }
    process.stdout.write(
      `  ${kind}: sent ${line('sentPerSecond')}/s; completed after 2 blocks ${line('completedPerSecond')}/s; end to end ${line('endToEndPerSecond')}/s (goal ≥ 100/s)\n` +
      `    drain ${line('sentSeconds')} s + ${line('completedSeconds')} s, the outbox empty ${line('mailedSeconds')} s after; setup ${line('setupSeconds')} s, of which queueing through the API ${line('queueSeconds')} s\n` +
      `    CPU per withdrawal: the service ${line('cpuMsPerWithdrawal')} ms, PostgreSQL's backends ${line('serverCpuMsPerWithdrawal')} ms, the fake node and mail sink ${line('neighboursCpuMsPerWithdrawal')} ms; others on the machine ${line('otherCores')} cores\n` +
      `    ${line('rpcPerWithdrawal')} RPC calls in ${line('rpcRequestsPerWithdrawal')} HTTP requests and ${line('statementsPerWithdrawal')} SQL statements per withdrawal; ${line('mails')} mails delivered by the outbox's end\n`,
    )
  }
  for (const figures of pix) {
    process.stdout.write(`  Pix-outs on ${figures.kind}: ${figures.queued} queued at once; POST /withdraw per simulated minute ${figures.perMinute.join(', ')} (the fake stored ${figures.fakeSawPerMinute.join(', ')}); ${figures.statusCalls} GET /withdraw-status; ${figures.jobRuns} job runs; ${figures.simulatedMinutes} simulated minutes in ${figures.realSeconds} s\n`)
  }
}

if (process.argv[2] === '--neighbours') await serveNeighbours()
else await main()
