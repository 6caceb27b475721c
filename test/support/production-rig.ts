// Production mode for a test: the fake provider (on a PGlite of its own), the fake Elements
// treasury and, when asked, a real SMTP server, with the environment that points the service at
// them. The service then runs in this process (`serve`) or as `src/main.ts` in a child process
// (`spawned`, for the tests that kill it). `close` stops whatever the rig started, last first.
// And `sandboxBanner`: a sandbox service started as a process, read until it is ready.
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { issueToken } from '../../src/app/issue-token.ts'
import { openAccount } from '../../src/app/open-account.ts'
import { createAdjustableClock, type AdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { startFakeEulen } from '../../src/sandbox/fake-eulen.ts'
import { startService, type ServiceOptions } from '../../src/service.ts'
import { openPglite, openPostgres, type OpenedDatabase } from '../../src/store/database.ts'
import type { Store } from '../../src/store/store.ts'
import { parseLiquidAddress } from '../../src/treasury/liquid-address.ts'
import { fetchTransport, typedApi, type RequestOptions } from './api.ts'
import { freePort } from './free-port.ts'
import { childNodeFlags, migratedPgliteFolder, openMigratedPglite, openTestDatabase, T0, testDatabase } from './harness.ts'
import { startSmtp, type TestSmtp } from './smtp.ts'
import { startTestTreasury } from './treasury.ts'

export type ProductionRigOptions = {
  /** The provider's clock; real time unless given (one clock for both where a payout's expiry, the provider's, is checked by the service). */
  clock?: AdjustableClock
  /** A real SMTP server for the service's mail; without one SMTP_URL names a closed port. */
  smtp?: boolean
  /** The provider refuses a tax number it does not know without the payer's name. */
  requireEndUserName?: boolean
  /** The provider starts a payout's Pix when the treasury's transaction pays its deposit address. */
  watchPayouts?: boolean
}

export type ProductionRig = Awaited<ReturnType<typeof startProductionRig<ProductionRigOptions>>>
export type SpawnedService = Awaited<ReturnType<ProductionRig['spawned']>>

export async function startProductionRig<Options extends ProductionRigOptions>(options: Options = {} as Options) {
  const closers: Array<() => Promise<unknown>> = []
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer()
  }
  const smtp = (options.smtp ? await startSmtp() : null) as Options['smtp'] extends true ? TestSmtp : null
  if (smtp) closers.push(() => smtp.close())
  const providerDb = await openMigratedPglite()
  closers.push(() => providerDb.close())
  const providerClock = options.clock ?? createAdjustableClock()
  const provider = await startFakeEulen({ db: providerDb.db, clock: providerClock, token: 'provider-token', ...(options.requireEndUserName ? { requireEndUserName: true } : {}) })
  closers.push(() => provider.close())
  const treasury = await startTestTreasury()
  closers.push(() => treasury.elements.close())
  if (options.watchPayouts) provider.watchPayouts(treasury.elements)
  // Secrets as long as generated ones: production warns of weak ones (production-mode.test.ts checks it with its own).
  const env: Record<string, string> = {
    ...treasury.env,
    MODE: 'production', PRICE_SOURCE_URL: 'http://127.0.0.1:1/ticker', PROVIDER_URL: provider.url, PROVIDER_TOKEN: 'provider-token',
    PROVIDER_WEBHOOK_SECRET: 'hook-secret-9f8e7d6c5b4a39281706f5e4', OPS_TOKEN: 'ops-token-0a1b2c3d4e5f60718293a4b5',
    SMTP_URL: smtp?.url ?? 'smtp://127.0.0.1:1', MAIL_FROM: 'Pix <no-reply@example.com>',
  }

  /**
   * The service in this process on a fresh test database, listening at `base` (its BASE_URL unless
   * `env` names another), the provider's webhooks pointed at it. `runJobs`: the runner polls as
   * main.ts starts it (mail sent, withdrawals paid), every 50 ms.
   */
  const serve = async (serving: { env?: Record<string, string>; runJobs?: boolean } & Omit<ServiceOptions, 'database'> = {}) => {
    const { env: extra, runJobs, ...serviceOptions } = serving
    const database = await openTestDatabase()
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const config = loadConfig({ ...env, BASE_URL: base, DATA_DIR: '/nonexistent', ...extra })
    const service = await startService(config, { logger: false, ...serviceOptions, database })
    closers.push(() => service.close())
    await service.app.listen({ host: '127.0.0.1', port })
    if (runJobs) service.jobs.start(50)
    provider.setWebhookTarget(`${base}/provider/webhooks`, service.providerWebhookSecret)
    return { service, base, config }
  }

  /**
   * The service as an operator runs it, `src/main.ts` in a child process, on a database that
   * outlives it (a PGlite folder, or a PostgreSQL database in the PostgreSQL run): `start` runs
   * one (and points the provider's webhooks at it), `kill` ends it with SIGKILL, `open` opens the
   * database while no child owns it (PGlite: one process per folder).
   */
  const spawned = async (spawning: { prefix: string; env?: Record<string, string> }) => {
    const testDb = testDatabase === 'postgres' ? await openTestDatabase() : null
    const dataDir = testDb ? mkdtempSync(join(tmpdir(), spawning.prefix)) : await migratedPgliteFolder(spawning.prefix)
    closers.push(async () => {
      await testDb?.close()
      rmSync(dataDir, { recursive: true, force: true })
    })
    const childEnv: Record<string, string> = {
      ...env, BASE_URL: 'https://pix.example.com', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info',
      ...(testDb ? { DATABASE_URL: testDb.url! } : {}), ...spawning.env,
    }
    let child: { process: ChildProcess; address: string; exited: Promise<unknown>; lines: string[] } | null = null
    const kill = async () => {
      const dying = child!
      child = null
      dying.process.kill('SIGKILL')
      await dying.exited
    }
    closers.push(async () => {
      if (child) await kill()
    })
    const start = async () => {
      const started = spawn(process.execPath, [...childNodeFlags, 'src/main.ts'], { env: { ...process.env, ...childEnv }, stdio: ['ignore', 'pipe', 'inherit'] })
      const exited = new Promise((resolve) => started.once('exit', resolve))
      const lines: string[] = []
      const address = await new Promise<string>((resolve, reject) => {
        createInterface({ input: started.stdout! }).on('line', (line) => {
          lines.push(line)
          const found = (() => { try { return JSON.parse(line).address } catch { return undefined } })()
          if (typeof found === 'string') resolve(found)
        })
        started.once('exit', (code) => reject(new Error(`the child exited with ${code}`)))
      })
      provider.setWebhookTarget(`${address}/provider/webhooks`, childEnv.PROVIDER_WEBHOOK_SECRET!)
      child = { process: started, address, exited, lines }
      return child
    }
    /** Requests to the running child: `request` untyped, `api` typed by the contract. */
    const request = fetchTransport(() => child!.address)
    return {
      env: childEnv,
      open: (): Promise<OpenedDatabase> => (testDb ? openPostgres(testDb.url!, 3) : openPglite(dataDir)),
      start,
      kill,
      /** Whether a child runs (a kill from a treasury hook ends it while the test waits). */
      running: () => child !== null,
      request,
      api: typedApi(request),
      /** An /ops call with the operator token. */
      ops: (method: string, url: string, body?: unknown) => request({ method, url, headers: { authorization: `Bearer ${childEnv.OPS_TOKEN}`, 'x-operator': 'ana@support' }, ...(body === undefined ? {} : { body }) } satisfies RequestOptions),
    }
  }

  return { provider, providerDb, providerClock, treasury, smtp, env, serve, spawned, close }
}

/** An owner with an identity at the provider and a token, written straight to a database no service runs on. */
export async function seedOwner(store: Store, provider: ProductionRig['provider'], owner: { email: string; taxNumber: string; name: string }) {
  const clock = createAdjustableClock(T0)
  const euid = (await provider.endUser(owner.taxNumber, owner.name)).euid
  const account = await openAccount({ store, clock }, { email: owner.email, taxNumber: owner.taxNumber, name: owner.name, kyc: 'verified', euid })
  const token = (await issueToken({ store, clock }, { accountId: account.id })).token
  return { account, euid, token }
}

/** A destination confirmed and past its cool-down, written straight to the database (the Wallet's way is test/support/withdrawals.ts). */
export async function seedDestination(store: Store, accountId: number, type: 'pix' | 'liquid', value: string) {
  const parsed = type === 'liquid' ? parseLiquidAddress(value, 'elementsregtest')! : null
  const now = new Date()
  const row = await store.withdrawals.insertDestination({
    id: `dst_${randomBytes(12).toString('hex')}`, account_id: accountId, type, value, script_hex: parsed?.scriptHex ?? null, label: null, state: 'confirmed',
    created_at: now, confirmed_at: now, usable_at: new Date(now.getTime() - 1_000), canceled_at: null, cancel_token_hash: createHash('sha256').update(randomBytes(8)).digest('hex'),
  })
  return { id: row!.id, scriptHex: parsed?.scriptHex ?? null }
}

/**
 * What a sandbox service started as a process prints when it is ready (src/main.ts): the address
 * it listens at and the demo merchant's token. Collects the child's stdout and stderr; fails with
 * them if it exits first.
 */
export async function sandboxBanner(child: ChildProcess) {
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  const listening = /listening at (http:\/\/127\.0\.0\.1:\d+)\)/
  const demoToken = /demo API token:\s+(pxt_\S+)/
  while (!listening.test(output) || !demoToken.test(output)) {
    await Promise.race([once(child.stdout!, 'data'), once(child, 'exit').then(() => { throw new Error(output) })])
  }
  return { base: listening.exec(output)![1]!, token: demoToken.exec(output)![1]!, output: () => output }
}
