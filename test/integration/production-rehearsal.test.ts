// Integration runner: pglite only (every test here skips on PostgreSQL).
// docs/operations.md, "Rehearsing production mode", followed as written: its shell blocks run as
// printed (only the folders, ports and the values a reader pastes are filled in), the Wallet steps
// are made over HTTP as a browser makes them, and the code comes from the fakes' printed mail.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, rmSync } from 'node:fs'
import { promisify } from 'node:util'
import { execFile } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { freePort } from '../support/free-port.ts'
import { migratedPgliteFolder, skipOnSecondDatabase } from '../support/harness.ts'
import { httpWalletClient } from '../support/wallet-client.ts'

const section = (() => {
  const guide = readFileSync('docs/operations.md', 'utf8')
  return guide.slice(guide.indexOf('## Rehearsing production mode'))
})()
/** The section's shell blocks, in order, unindented (one sits in a list item). */
const blocks = [...section.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map(([, indent, body]) => body!.replace(new RegExp(`^${indent}`, 'gm'), ''))

/** Starts a block in a shell of its own process group; its output is collected. */
function background(script: string, env: Record<string, string | undefined>) {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const run = { child, output: '' }
  child.stdout.on('data', (chunk) => (run.output += chunk))
  child.stderr.on('data', (chunk) => (run.output += chunk))
  return run
}

async function until<T>(what: string, run: { child: ChildProcess; output: string }, found: () => T | null | undefined): Promise<T> {
  for (let waited = 0; ; waited += 100) {
    const value = found()
    if (value) return value
    if (waited > 45_000 || run.child.exitCode !== null) throw new Error(`${what}:\n${run.output}`)
    await sleep(100)
  }
}

async function stop(run: { child: ChildProcess }) {
  if (run.child.exitCode !== null) return
  process.kill(-run.child.pid!, 'SIGTERM')
  await once(run.child, 'exit')
}

test('the rehearsal section: production mode against npm run fakes, an owner joins through the Wallet, a charge is paid and delivered, a withdrawal completes', { skip: skipOnSecondDatabase, timeout: 150_000 }, async () => {
  assert.equal(blocks.length, 5, 'the section has five shell blocks')
  assert.equal(blocks[0], 'npm run fakes\n')
  const [fakesDir, dataDir] = [await migratedPgliteFolder('pix-rehearsal-fakes-'), await migratedPgliteFolder('pix-rehearsal-data-')]
  const base = `http://127.0.0.1:${await freePort()}`
  const shell = { PATH: process.env.PATH, HOME: process.env.HOME }
  const fakes = background(blocks[0]!, { ...shell, FAKES_PORT: '0', FAKES_DATA_DIR: fakesDir, SERVICE_URL: base })
  let service: ReturnType<typeof background> | undefined
  try {
    const controls = await until('the fakes did not start', fakes, () => /provider controls\s+(http:\/\/\S+)/.exec(fakes.output)?.[1])
    await until('the fakes printed no environment', fakes, () => fakes.output.includes(`${fakesDir}/production.env`))
    // The file reads the same to a shell (the next block) and to `docker run --env-file`, which
    // takes everything after the first = as the value, quotes included.
    const envFile = readFileSync(`${fakesDir}/production.env`, 'utf8')
    const asDocker = Object.fromEntries(envFile.split('\n').filter((line) => line && !line.startsWith('#')).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]))
    assert.ok(Object.keys(asDocker).length > 10 && asDocker.MODE === 'production', envFile)
    const names = Object.keys(asDocker)
    const sourced = (await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', `set -a; . ${fakesDir}/production.env; set +a; for name in ${names.join(' ')}; do printf '%s\\0' "\${!name}"; done`], { env: shell })).stdout
    assert.deepEqual(Object.fromEntries(sourced.split('\0').slice(0, -1).map((value, i) => [names[i], value])), asDocker)
    service = background(blocks[1]!.replaceAll('./data/fakes', fakesDir).replaceAll('./data/rehearsal', dataDir), shell)
    await until('production mode did not start', service, () => service!.output.includes('"msg":"listening in production mode"'))

    const email = 'you@example.com'
    const name = 'Rita Ensaio'
    const cpf = generateCpf()
    const wallet = httpWalletClient(base)
    await wallet.get('/wallet/sign-up')
    assert.equal((await wallet.post('/wallet/sign-up', { email, name, tax_number: cpf })).status, 303)
    const code = await until('no code was mailed', fakes, () => {
      const mail = fakes.output.slice(fakes.output.lastIndexOf(`mail to ${email}:`))
      return fakes.output.includes(`mail to ${email}:`) ? /\b(\d{6})\b/.exec(mail)?.[1] : null
    })
    await wallet.get(`/wallet/code?email=${encodeURIComponent(email)}`)
    assert.equal((await wallet.post('/wallet/code', { email, code })).location, '/wallet')

    await wallet.get('/wallet')
    const purchase = (await wallet.post('/wallet/purchases', { value: '10,00' })).location!
    assert.match(purchase, /^\/wallet\/purchases\/[0-9a-f]{32}$/)
    const copyPaste = /<textarea id="copy-paste" readonly rows="4">([^<]+)<\/textarea>/.exec((await wallet.get(purchase)).html)![1]!
    assert.match(copyPaste, /^000201/)
    const payPurchase = blocks[2]!.replaceAll('http://127.0.0.1:7701', controls).replace('<the copia e cola code>', copyPaste).replace('<your name>', name).replace('<your CPF>', cpf)
    const paid = JSON.parse((await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', payPurchase], { env: shell })).stdout)
    assert.deepEqual([paid.status, paid.webhook_status], ['depix_sent', 200])
    assert.equal(JSON.parse((await wallet.get(`${purchase}/status`)).html).status, 'depix_sent')

    const nonce = /name="nonce" value="([^"]+)"/.exec((await wallet.get('/wallet')).html)![1]!
    assert.equal((await wallet.post('/wallet/token', { confirm: 'yes', nonce })).location, '/wallet/token')
    const token = /id="token" class="token" type="text" readonly value="(pxt_[^"]+)"/.exec((await wallet.get('/wallet/token')).html)![1]!

    const charge = blocks[3]!.replace(/^BASE=.*$/m, `BASE=${base} FAKES=${controls} EMAIL=${email} TOKEN=${token}`)
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', charge], { env: shell })
    const lines = stdout.trim().split('\n')
    assert.deepEqual([JSON.parse(lines[0]!).status, lines[1], JSON.parse(lines[2]!).delivered, lines[3]], ['delayed', 'pending', 1, 'depix_sent'], stdout)

    // The withdrawal: the address the fakes printed, added and confirmed in the Wallet, usable at
    // once (the rehearsal's cool-down); then the section's block, in the same shell's variables.
    const address = /a Liquid address\s+(\S+)/.exec(fakes.output)![1]!
    await wallet.get('/wallet/destinations')
    const added = await wallet.post('/wallet/destinations', { type: 'liquid', value: address, label: '' })
    assert.equal(added.status, 303, added.html)
    await wallet.get(added.location!)
    // The Wallet speaks Portuguese unless asked otherwise, and so does its mail.
    const destinationCode = await until('no destination code was mailed', fakes, () =>
      /(?:Código para confirmá-lo|Code to confirm it): (\d{6})/.exec(fakes.output.slice(fakes.output.lastIndexOf(`mail to ${email}:`)))?.[1])
    assert.equal((await wallet.post(`${added.location!}/confirm`, { code: destinationCode })).location, '/wallet/destinations?notice=confirmed')
    const withdraw = `BASE=${base} FAKES=${controls} TOKEN=${token}\n${blocks[4]!}`
    const withdrawn = (await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', withdraw], { env: shell })).stdout.trim().split('\n')
    assert.deepEqual([withdrawn[0], JSON.parse(withdrawn[1]!).height > 0, withdrawn[2]], ['sent', true, 'completed'], withdrawn.join('\n'))
  } finally {
    if (service) await stop(service)
    await stop(fakes)
    rmSync(fakesDir, { recursive: true, force: true })
    rmSync(dataDir, { recursive: true, force: true })
  }
})

test('stopping npm run fakes (npm alone gets SIGTERM, as a terminal or a supervisor sends it) stops the fakes and frees their ports', { skip: skipOnSecondDatabase, timeout: 60_000 }, async () => {
  const fakesDir = await migratedPgliteFolder('pix-fakes-stop-')
  const npm = spawn('npm', ['run', 'fakes'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, FAKES_PORT: '0', FAKES_DATA_DIR: fakesDir }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const run = { child: npm as ChildProcess, output: '' }
  npm.stdout.on('data', (chunk) => (run.output += chunk))
  npm.stderr.on('data', (chunk) => (run.output += chunk))
  try {
    const controls = await until('the fakes did not start', run, () => /provider controls\s+(http:\/\/\S+)/.exec(run.output)?.[1])
    assert.equal((await fetch(`${controls}/payouts`)).status, 200)
    npm.kill('SIGTERM')
    await once(npm, 'exit')
    // npm has exited; so has Node under it, its ports closed.
    await assert.rejects(fetch(`${controls}/payouts`), 'the fakes outlived npm')
  } finally {
    // Whatever is left of its process group (the fakes, when they outlived npm).
    try {
      process.kill(-npm.pid!, 'SIGKILL')
    } catch {
      // Nothing left.
    }
    rmSync(fakesDir, { recursive: true, force: true })
  }
})
