// Integration runner: pglite only (every test here skips on PostgreSQL).
// docs/operations.md's TLS proxy, for real: Debian's Caddy running deploy/Caddyfile (with its own
// CA instead of Let's Encrypt, on free high ports, admin off, its storage in a temp folder) in
// front of the service set up as the guide says: TRUST_PROXY_HOPS=1, an https BASE_URL, HOST on
// loopback. CI installs Caddy (.ci/run) and must run this; a machine without it skips.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { promisify } from 'node:util'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from '../support/free-port.ts'
import { skipOnSecondDatabase, startTestService, type TestService } from '../support/harness.ts'

const caddyInstalled = spawnSync('caddy', ['version']).status === 0
const skip = skipOnSecondDatabase || (!caddyInstalled && process.env.CI !== 'true' ? 'caddy is not installed (apt-get install caddy)' : false)

let folder: string
let caddy: ChildProcess
let httpsPort: number
let upstreamPort: number
let ca: Buffer
let service: TestService
let serviceEnv: Record<string, string>

before(async () => {
  if (skip) return
  folder = mkdtempSync(join(tmpdir(), 'pix-caddy-'))
  ;[httpsPort, upstreamPort] = [await freePort(), await freePort()]
  const httpPort = await freePort()
  serviceEnv = { BASE_URL: `https://localhost:${httpsPort}`, TRUST_PROXY_HOPS: '1', HOST: '127.0.0.1', PORT: String(upstreamPort), AUTH_FAILURES_PER_MINUTE: '3' }
  service = await startTestService(serviceEnv)
  // The guide's site block as it is, under global options that keep Caddy to this test.
  writeFileSync(join(folder, 'Caddyfile'), [
    '{',
    '\tadmin off',
    `\tstorage file_system ${join(folder, 'storage')}`,
    '\tlocal_certs',
    '\tskip_install_trust',
    `\thttp_port ${httpPort}`,
    `\thttps_port ${httpsPort}`,
    '}',
    `import ${resolve('deploy/Caddyfile')}`,
    '',
  ].join('\n'))
  caddy = spawn('caddy', ['run', '--config', join(folder, 'Caddyfile'), '--adapter', 'caddyfile'], {
    cwd: folder,
    env: { PATH: process.env.PATH, HOME: folder, XDG_DATA_HOME: folder, XDG_CONFIG_HOME: folder, PIX_SITE: `localhost:${httpsPort}`, PIX_UPSTREAM: `127.0.0.1:${upstreamPort}` },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let log = ''
  caddy.stderr!.on('data', (chunk) => (log += chunk))
  const rootCertificate = join(folder, 'storage', 'pki', 'authorities', 'local', 'root.crt')
  for (let waited = 0; ; waited += 100) {
    if (existsSync(rootCertificate)) {
      ca = readFileSync(rootCertificate)
      if ((await viaCaddy('/healthz').catch(() => null))?.status === 200) break
    }
    if (waited > 15_000 || caddy.exitCode !== null) throw new Error(`caddy did not start:\n${log}`)
    await sleep(100)
  }
})

after(async () => {
  if (skip) return
  caddy.kill('SIGTERM')
  if (caddy.exitCode === null) await new Promise((resolve) => caddy.once('exit', resolve))
  await service.close()
  rmSync(folder, { recursive: true, force: true })
})

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string }

/** A request to Caddy over TLS, trusting only its own CA, from a loopback address of our choice. */
function viaCaddy(path: string, options: { method?: string; headers?: Record<string, string>; body?: unknown; from?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body)
    const outgoing = request({
      host: '127.0.0.1', port: httpsPort, servername: 'localhost', ca, localAddress: options.from ?? '127.0.0.1', path, method: options.method ?? 'GET',
      headers: { host: `localhost:${httpsPort}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks).toString('latin1') }))
    })
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

test("the Wallet's session cookie is Secure behind the proxy, with HSTS", { skip }, async () => {
  const page = await viaCaddy('/wallet/sign-up')
  assert.equal(page.status, 200)
  const cookie = (page.headers['set-cookie'] as string[]).find((line) => line.startsWith('wallet_session='))
  assert.ok(cookie, JSON.stringify(page.headers))
  assert.match(cookie, /;\s*Secure/i)
  assert.match(cookie, /;\s*HttpOnly/i)
  assert.match(String(page.headers['strict-transport-security']), /max-age=\d+/)
})

test("rate limits count the client's address that Caddy forwards, not Caddy's; a forged X-Forwarded-For changes nothing", { skip }, async () => {
  const failure = (from: string, headers: Record<string, string> = {}) => viaCaddy('/api/get-balance', { from, headers: { 'x-api-token': 'pxt_not-a-token', ...headers } })
  for (let i = 0; i < 3; i++) assert.equal((await failure('127.0.0.2')).status, 401)
  assert.equal((await failure('127.0.0.2')).status, 429)
  assert.equal((await failure('127.0.0.2', { 'x-forwarded-for': '198.51.100.7' })).status, 429)
  // Another client behind the same proxy still has its own budget.
  assert.equal((await failure('127.0.0.3')).status, 401)
})

test('qrImageUrl and docs_url use the https BASE_URL, and the QR image is served through the proxy', { skip }, async () => {
  const merchant = await service.merchant('proxy@example.com', '52998224725')
  const created = await viaCaddy('/api/create-payment', { method: 'POST', headers: { 'x-api-token': merchant.token }, body: { value: '10.00', email: 'proxy@example.com', euid: merchant.euid } })
  assert.equal(created.status, 200, created.body)
  const { id, qrImageUrl } = JSON.parse(created.body)
  assert.equal(qrImageUrl, `https://localhost:${httpsPort}/api/qr/${id}.png`)
  const image = await viaCaddy(new URL(qrImageUrl).pathname)
  assert.deepEqual([image.status, image.headers['content-type']], [200, 'image/png'])
  const refused = await viaCaddy('/api/get-balance')
  assert.equal(JSON.parse(refused.body).docs_url, `https://localhost:${httpsPort}/docs#token_missing`)
})

test('a request sent while the service restarts waits for it behind the proxy (lb_try_duration) instead of failing', { skip }, async () => {
  await service.close()
  const waiting = viaCaddy('/healthz')
  await sleep(500)
  service = await startTestService(serviceEnv)
  assert.equal((await waiting).status, 200)
})

test('the local rehearsal of the Caddy section runs as printed: pix.localhost over TLS from Caddy\'s own CA, nothing added to the trusted CAs', { skip, timeout: 60_000 }, async () => {
  const guide = readFileSync('docs/operations.md', 'utf8')
  const section = guide.slice(guide.indexOf('## TLS in front: Caddy'), guide.indexOf('\n## ', guide.indexOf('## TLS in front: Caddy') + 5))
  const run = /^PIX_SITE=pix\.localhost caddy run .*$/m.exec(section)?.[0]
  const check = /^curl --cacert .*\/readyz$/m.exec(section)?.[0]
  assert.ok(run && check, 'the section shows the rehearsal and its check')
  const home = mkdtempSync(join(tmpdir(), 'pix-caddy-rehearsal-'))
  const [https, http] = [await freePort(), await freePort()]
  // The guide's ports are 8443 and 8880; the file reads others from the environment, so this test takes free ones.
  const env = { PATH: process.env.PATH, HOME: home, PIX_HTTPS_PORT: String(https), PIX_HTTP_PORT: String(http), PIX_UPSTREAM: `127.0.0.1:${upstreamPort}` }
  const trusted = spawnSync('ls', ['/usr/local/share/ca-certificates'], { encoding: 'utf8' }).stdout
  // bash runs the one command in its own place (exec), so the signal below reaches Caddy.
  const rehearsal = spawn('bash', ['-c', run], { cwd: process.cwd(), env, stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  rehearsal.stderr!.on('data', (chunk) => (log += chunk))
  try {
    const curl = check.replace(':8443/', `:${https}/`)
    let answer = ''
    for (let waited = 0; !answer.includes('"status"'); waited += 200) {
      if (waited > 20_000 || rehearsal.exitCode !== null) assert.fail(`no answer through the rehearsal:\n${answer}\n${log}`)
      await sleep(200)
      // Not spawnSync: the service behind Caddy answers from this very process.
      answer = (await promisify(execFile)('bash', ['-c', curl], { env, encoding: 'utf8' }).catch(() => ({ stdout: '' }))).stdout
    }
    assert.equal(JSON.parse(answer).status, 'ready', answer)
    assert.equal(spawnSync('ls', ['/usr/local/share/ca-certificates'], { encoding: 'utf8' }).stdout, trusted, 'the rehearsal changed the trusted CAs')
  } finally {
    rehearsal.kill('SIGTERM')
    if (rehearsal.exitCode === null) await new Promise((resolve) => rehearsal.once('exit', resolve))
    rmSync(home, { recursive: true, force: true })
  }
})
