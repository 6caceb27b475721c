// npm run fakes: everything production mode talks to, faked and standalone, each on its own port,
// so production mode can be rehearsed on one machine (docs/operations.md, "Rehearsing production
// mode"): Eulen's API (src/sandbox/fake-eulen.ts) with controls that play the payer and the
// provider, an Elements node (fake-elements.ts), the two public price tickers (fake-ticker.ts)
// and an SMTP server that prints every message it receives, codes included. It prints the
// environment production mode needs to use them and writes it to production.env in its folder.
// A rehearsal tool: it needs the dev dependencies (smtp-server), so it runs after `npm ci`,
// not after `npm ci --omit=dev`; in a production install it says so and what to run, before
// anything starts. Its npm script `exec`s Node, so stopping npm stops the fakes and frees their ports.
// The environment file holds plain NAME=value lines that a shell (`set -a; . production.env`) and
// `docker run --env-file` read alike: no value needs quoting.
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Fastify from 'fastify'
import { createAdjustableClock } from '../src/clock.ts'
import { Type } from 'typebox'
import { environmentSchema, readEnvironment, url } from '../src/config-schema.ts'
import { environment, loadConfig } from '../src/config.ts'
import { startFakeElements } from '../src/sandbox/fake-elements.ts'
import { startFakeEulen } from '../src/sandbox/fake-eulen.ts'
import { startFakeTicker } from '../src/sandbox/fake-ticker.ts'
import { SANDBOX_DEFAULT_PRICES, fundNewFakeTreasury } from '../src/sandbox/wiring.ts'
import { openPglite } from '../src/store/database.ts'

const { SMTPServer } = await import('smtp-server').catch((error: unknown) => {
  if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error
  process.stderr.write([
    'npm run fakes needs the dev dependencies (its fake mail server is the smtp-server package), and this',
    'install has none: `npm ci --omit=dev` leaves them out. Rehearse from a checkout of its own with `npm ci`',
    '(all dependencies), then `npm run fakes` there; the production install stays as it is.',
    '',
  ].join('\n'))
  process.exit(1)
})

// MODE is read because production's required variables depend on it; none of these is one.
const settings = readEnvironment(environmentSchema({
  MODE: environment.properties.MODE,
  FAKES_HOST: Type.String({ default: '127.0.0.1', description: 'Interface the fakes listen on' }),
  FAKES_PORT: Type.Integer({ default: 7700, minimum: 0, maximum: 65_530, description: 'The provider\'s port; its controls, the tickers, the Elements node and SMTP take the next four (0: free ports)' }),
  FAKES_DATA_DIR: Type.String({ default: './data/fakes', description: 'What the fakes keep across restarts: the provider\'s deposits, the node\'s wallet, the secrets' }),
  SERVICE_URL: url({ default: 'http://127.0.0.1:8080', description: 'Where the service listens: the provider\'s webhooks go to its /provider/webhooks' }),
}), process.env)
const host = settings.FAKES_HOST
const portOf = (offset: number) => (settings.FAKES_PORT === 0 ? 0 : settings.FAKES_PORT + offset)
const dataDir = resolve(settings.FAKES_DATA_DIR)
mkdirSync(dataDir, { recursive: true })

// The secrets are kept, so the service's environment stays right when the fakes restart.
const secretsFile = join(dataDir, 'secrets.json')
const secret = () => randomBytes(24).toString('base64url')
const secrets: { providerToken: string; webhookSecret: string; rpcPassword: string; opsToken: string } = (() => {
  try {
    return JSON.parse(readFileSync(secretsFile, 'utf8'))
  } catch {
    const made = { providerToken: secret(), webhookSecret: secret(), rpcPassword: secret(), opsToken: secret() }
    writeFileSync(secretsFile, JSON.stringify(made), { mode: 0o600 })
    return made
  }
})()

// The provider's clock moves only when told (POST /clock on the controls), as the sandbox's does.
const clock = createAdjustableClock()
const database = await openPglite(dataDir)
const provider = await startFakeEulen({ db: database.db, clock, token: secrets.providerToken, host, port: portOf(0), requireEndUserName: true, enforceRateLimits: true })
provider.setWebhookTarget(`${settings.SERVICE_URL}/provider/webhooks`, secrets.webhookSecret)

const ticker = await startFakeTicker(SANDBOX_DEFAULT_PRICES, { host, port: portOf(2) })
const { assets } = loadConfig({ LIQUID_NETWORK: 'elementsregtest' }).treasury
const elements = await startFakeElements({ network: 'elementsregtest', wallet: 'treasury', user: 'rpc', password: secrets.rpcPassword, assets, stateFile: join(dataDir, 'fake-elements.json'), host, port: portOf(3) })
fundNewFakeTreasury(elements)
provider.watchPayouts(elements)

// The payer's bank and the provider's back office, as JSON calls.
const controls = Fastify({ logger: false })
type Body = Record<string, unknown>
const deposit = async (reference: unknown) => {
  const found = typeof reference === 'string' ? await provider.findDeposit(reference.trim()) : undefined
  if (!found) throw Object.assign(new Error('no deposit has this code: send the qrId or the copy-and-paste code as "code"'), { statusCode: 404 })
  return found
}
controls.post('/pay', async (request) => {
  const body = (request.body ?? {}) as Body
  const { qrId } = await deposit(body.code)
  if (typeof body.payer_tax_number !== 'string' || typeof body.payer_name !== 'string') throw Object.assign(new Error('payer_name and payer_tax_number are required'), { statusCode: 400 })
  const webhookStatus = await provider.settle(qrId, {
    payerName: body.payer_name, payerTaxNumber: body.payer_tax_number.replace(/\D/g, ''),
    outcome: typeof body.outcome === 'string' ? body.outcome : 'depix_sent',
    ...(typeof body.paid_cents === 'number' ? { paidCents: body.paid_cents } : {}),
  })
  return { qrId, status: (await deposit(qrId)).status, webhook_status: webhookStatus }
})
controls.post('/med', async (request) => {
  const body = (request.body ?? {}) as Body
  const { qrId } = await deposit(body.code)
  return { qrId, webhook_status: await provider.med(qrId, typeof body.principal_cents === 'number' ? body.principal_cents : undefined) }
})
controls.post('/clock', async (request) => {
  const seconds = Number(((request.body ?? {}) as Body).advance_seconds)
  if (!Number.isInteger(seconds) || seconds < 0) throw Object.assign(new Error('advance_seconds must be a whole number of seconds'), { statusCode: 400 })
  const now = clock.advance(seconds)
  return { now: now.toISOString(), delivered: await provider.deliverDelayed() }
})
controls.post('/mine', async (request) => {
  const blocks = Number(((request.body ?? {}) as Body).blocks ?? 1)
  elements.mine(Number.isInteger(blocks) && blocks > 0 && blocks <= 100 ? blocks : 1)
  return { height: elements.height() }
})
controls.get('/address', async () => ({ address: elements.outsideAddress(), network: 'elementsregtest' }))
controls.get('/payouts', async () => ({ payouts: (await provider.payouts()).map((row) => ({ id: row.id, status: row.status, pix_key: row.pix_key, payout_cents: row.payout_cents })) }))
controls.post<{ Params: { id: string } }>('/payouts/:id', async (request) => {
  const outcome = ((request.body ?? {}) as Body).outcome ?? 'sent'
  if (outcome !== 'sent' && outcome !== 'error' && outcome !== 'refunded') throw Object.assign(new Error('outcome is sent, error or refunded'), { statusCode: 400 })
  if (!(await provider.payout(request.params.id))) throw Object.assign(new Error('no such payout'), { statusCode: 404 })
  return { id: request.params.id, webhook_status: await provider.finishPayout(request.params.id, outcome) }
})
const controlsUrl = await controls.listen({ host, port: portOf(1) })

// An SMTP server that takes every message and prints it, decoded enough to read the codes.
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    const chunks: Buffer[] = []
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    stream.on('end', () => {
      const { subject, body } = readMessage(Buffer.concat(chunks).toString('latin1'))
      const to = session.envelope.rcptTo.map((rcpt) => rcpt.address).join(', ')
      process.stdout.write(`\nmail to ${to}: ${subject}\n${body.trimEnd().replace(/^/gm, '  | ')}\n`)
      callback()
    })
  },
})
await new Promise<void>((done) => smtp.listen(portOf(4), host, done))
const smtpPort = (smtp.server.address() as { port: number }).port

/** The subject and text of a message as nodemailer writes one: 7-bit headers, a quoted-printable or base64 text part. */
function readMessage(raw: string): { subject: string; body: string } {
  const split = raw.indexOf('\r\n\r\n')
  const headers = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ')
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(headers)?.[1] ?? ''
  const subject = header('Subject').replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_word, encoding: string, text: string) =>
    encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : quotedPrintable(text.replace(/_/g, ' ')))
  const content = raw.slice(split + 4)
  const encoding = header('Content-Transfer-Encoding').toLowerCase()
  const body = encoding === 'quoted-printable' ? quotedPrintable(content) : encoding === 'base64' ? Buffer.from(content, 'base64').toString('utf8') : Buffer.from(content, 'latin1').toString('utf8')
  return { subject, body: body.replace(/\r\n/g, '\n') }
}

function quotedPrintable(text: string): string {
  const bytes = Buffer.from(text.replace(/=\r?\n/g, ''), 'latin1')
  const out: number[] = []
  for (let i = 0; i < bytes.length; i++) {
    const hex = bytes[i] === 0x3d ? bytes.subarray(i + 1, i + 3).toString('latin1') : ''
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      out.push(parseInt(hex, 16))
      i += 2
    } else {
      out.push(bytes[i]!)
    }
  }
  return Buffer.from(out).toString('utf8')
}

const serviceUrl = new URL(settings.SERVICE_URL)
const env: Record<string, string> = {
  MODE: 'production',
  BASE_URL: settings.SERVICE_URL,
  HOST: serviceUrl.hostname.replace(/^\[|\]$/g, ''),
  PORT: serviceUrl.port || (serviceUrl.protocol === 'https:' ? '443' : '80'),
  PROVIDER_URL: provider.url,
  PROVIDER_TOKEN: secrets.providerToken,
  PROVIDER_WEBHOOK_SECRET: secrets.webhookSecret,
  PRICE_SOURCE_URL: ticker.url,
  PRICE_CHECK_SOURCE_URL: `mercadobitcoin:${ticker.checkUrl}`,
  OPS_TOKEN: secrets.opsToken,
  OPERATORS: 'admin@example.com:admin',
  SMTP_URL: `smtp://${host.includes(':') ? `[${host}]` : host}:${smtpPort}`,
  MAIL_FROM: 'no-reply@example.com',
  LIQUID_NETWORK: 'elementsregtest',
  ELEMENTS_RPC_URL: elements.url,
  ELEMENTS_RPC_USER: 'rpc',
  ELEMENTS_RPC_PASSWORD: secrets.rpcPassword,
  ELEMENTS_WALLET: 'treasury',
  // The service runs on the wall clock here: without this a new destination waits a day. Honoured
  // only on elementsregtest, so this line copied into a real deployment stops its start.
  REHEARSAL_DESTINATION_COOLDOWN_SECONDS: '0',
  // A payout on its way is looked at every 2 s rather than 30: a rehearsed withdrawal completes as soon as its blocks are mined.
  TREASURY_POLL_SECONDS: '2',
}
// NAME=value, unquoted: `docker run --env-file` takes a value literally, quotes included, while
// a shell sourcing the file strips them. A value made only
// of characters a shell leaves alone reads the same in both; anything else is refused here.
for (const [name, value] of Object.entries(env)) {
  if (!/^[A-Za-z0-9_@%+=:,./[\]-]+$/.test(value)) throw new Error(`${name} would read differently in a shell and in docker --env-file: ${value}`)
}
const envText = Object.entries(env).map(([name, value]) => `${name}=${value}`).join('\n') + '\n'
const envFile = join(dataDir, 'production.env')
writeFileSync(envFile, envText, { mode: 0o600 })

process.stdout.write([
  `Fakes of what production mode talks to, kept in ${dataDir}:`,
  `  provider (Eulen API)   ${provider.url}`,
  `  provider controls      ${controlsUrl}   POST /pay {code, payer_name, payer_tax_number}, /med, /clock {advance_seconds}, /mine, GET /address, GET /payouts, POST /payouts/{id}`,
  `  price tickers          ${ticker.url} and ${ticker.checkUrl}`,
  `  Elements node (RPC)    ${elements.url}`,
  `  a Liquid address       ${elements.outsideAddress()}   (elementsregtest, nobody's: a destination to withdraw to)`,
  `  SMTP (prints mail)     smtp://${host}:${smtpPort}`,
  `The provider's webhooks go to ${settings.SERVICE_URL}/provider/webhooks.`,
  '',
  `Production mode with these (also in ${envFile}):`,
  envText,
].join('\n'))

let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  await controls.close()
  await new Promise<void>((done) => smtp.close(() => done()))
  await Promise.all([provider.close(), ticker.close(), elements.close()])
  await database.close()
  // PGlite can keep the process alive after its folder is closed.
  process.exit(0)
}
process.on('SIGTERM', () => void stop())
process.on('SIGINT', () => void stop())
