// Integration runner: pglite only (every test here skips on PostgreSQL).
// The SDK as an integrator gets it: sdk/ copied out of the repository builds itself when packed
// (prepack, its own tsconfig, the TypeScript its package.json names), the tarball ships the built
// package and installs into a project elsewhere, and the README's example type-checks there with
// tsc --strict and runs against the service: a charge, the balance, a verified webhook.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { freePort } from '../support/free-port.ts'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { specSignature, standardWebhooksHeaders } from '../../src/webhooks/signature.ts'
import { childNodeFlags, skipOnSecondDatabase, startTestService, type TestService } from '../support/harness.ts'

const skip = skipOnSecondDatabase
const root = join(import.meta.dirname, '../..')
const scratch = mkdtempSync(join(tmpdir(), 'sdk-package-'))
// npm without its chatter, its audit or its update check: nothing here needs the registry.
const npmEnv = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', npm_config_offline: 'true' }
const npm = (args: string[], cwd: string) => {
  const result = spawnSync('npm', args, { cwd, env: npmEnv, encoding: 'utf8' })
  assert.equal(result.status, 0, `npm ${args.join(' ')}: ${result.stdout}${result.stderr}`)
  return result.stdout
}
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'))

let service: TestService
let example: ChildProcess | undefined
before(async () => {
  if (skip) return
  service = await startTestService()
})
after(async () => {
  example?.kill()
  await service?.close()
  rmSync(scratch, { recursive: true, force: true })
})

test('sdk/ copied out of the repository packs itself, and the tarball installs and runs the README example against the service', { skip }, async () => {
  // 1. The package alone, outside the repository. `npm install` there would fetch its two
  // devDependencies; the root's node_modules stands in (no network), so they must be the very
  // versions the root installs.
  const sdk = readJson(join(root, 'sdk/package.json'))
  const rootDevDependencies = readJson(join(root, 'package.json')).devDependencies
  assert.deepEqual(Object.keys(sdk.devDependencies).sort(), ['@types/node', 'typescript'])
  for (const [name, version] of Object.entries(sdk.devDependencies)) assert.equal(version, rootDevDependencies[name], `${name}: the root's exact version`)
  assert.deepEqual(sdk.dependencies ?? {}, {})
  assert.ok(!readFileSync(join(root, 'sdk/tsconfig.json'), 'utf8').includes('..'), 'sdk/tsconfig.json names nothing outside sdk/')
  const copy = join(scratch, 'sdk')
  cpSync(join(root, 'sdk'), copy, { recursive: true, filter: (source) => !['dist', 'node_modules'].includes(basename(source)) && !source.endsWith('.tgz') })
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'))
  // The root also installs TypeScript 7 for its own type check (package.json): the `tsc` the
  // package's build finds is still the one it names.
  assert.equal(spawnSync(join(copy, 'node_modules/.bin/tsc'), ['-v'], { encoding: 'utf8' }).stdout.trim(), `Version ${sdk.devDependencies.typescript}`)

  // 2. npm pack builds dist/ (prepack) and ships it, the README and package.json; no sources.
  const packed = npm(['pack', '--json', '--pack-destination', scratch], copy)
  const [tarball] = JSON.parse(packed.slice(packed.indexOf('[\n'))) as Array<{ filename: string; files: Array<{ path: string }> }>
  const files = tarball!.files.map((file) => file.path).sort()
  assert.deepEqual(files.filter((path) => !path.startsWith('dist/')), ['README.md', 'package.json'])
  for (const source of readdirSync(join(root, 'sdk/src')).filter((name) => name.endsWith('.ts'))) {
    for (const built of ['.js', '.d.ts']) assert.ok(files.includes(`dist/${source.replace(/\.ts$/, built)}`), `dist/${source} ${built}`)
  }

  // 3. A shop's project elsewhere installs the tarball: a real copy, not a link into the repository.
  const project = join(scratch, 'shop')
  mkdirSync(project)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'shop', private: true, type: 'module' }))
  npm(['install', join(scratch, tarball!.filename)], project)
  const installed = join(project, 'node_modules/@pix-charge/sdk')
  assert.ok(!lstatSync(installed).isSymbolicLink() && existsSync(join(installed, 'dist/index.d.ts')))

  // 4. The README's examples (the later ones go on from the first one's client), with an EUID the
  // sandbox's provider knows in place of the README's made-up one.
  const readme = readFileSync(join(root, 'sdk/README.md'), 'utf8')
  const [code, ...more] = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!)
  assert.ok(code!.trimEnd().split('\n').length < 30, `${code!.split('\n').length} lines`)
  assert.ok(more.some((block) => block.includes('withdrawals.create')))
  const payer = generateCpf()
  const euid = (await service.sandbox!.fake.endUser(payer, 'Payer')).euid
  assert.ok(code!.includes("'EU123456789012345'"))
  writeFileSync(join(project, 'example.ts'), [code!.replace("'EU123456789012345'", `'${euid}'`), ...more].join('\n'))
  const typeRoots = join(root, 'node_modules/@types')
  const checked = spawnSync(join(root, 'node_modules/.bin/tsc'), ['--ignoreConfig', '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--types', 'node', '--typeRoots', typeRoots, 'example.ts'], { cwd: project, encoding: 'utf8' })
  assert.equal(checked.status, 0, checked.stdout)

  // 5. It runs against the service: the charge's QR, then the balance.
  const merchant = await service.merchant('store@example.com', '52998224725')
  const secret = 'whsec_' + Buffer.from('the README example secret, 32 b!').toString('base64')
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`
  example = spawn(process.execPath, [...childNodeFlags, 'example.ts'], { cwd: project, env: { ...process.env, PIX_URL: baseUrl, PIX_TOKEN: merchant.token, PIX_WEBHOOK_SECRET: secret, PORT: String(port) } })
  let output = ''
  example.stdout!.on('data', (chunk) => (output += chunk))
  example.stderr!.on('data', (chunk) => (output += chunk))
  const deadline = Date.now() + 30_000
  while (!/R\$ \d/.test(output) && example.exitCode === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  const qrImageUrl = /(\S+\/api\/qr\/([0-9a-f]{32})\.png)/.exec(output)
  assert.ok(qrImageUrl, output)
  assert.equal((await service.request({ method: 'GET', url: `/api/get-payment/${qrImageUrl[2]}`, token: merchant.token })).body.amount, 2500)
  assert.match(output, /R\$ 0,00/)

  // 6. Its receiver takes a webhook signed as the service signs them, and refuses a changed one.
  const body = JSON.stringify({ payment_id: qrImageUrl[2], email: 'store@example.com', value_in_cents: 2500, paid_in_cents: 2500, payer_euid: euid, event: 'payment.confirmed', status: 'depix_sent' })
  const headers = { 'content-type': 'application/json', 'x-webhook-signature': specSignature(secret, body), ...standardWebhooksHeaders(secret, 'msg_readme', Math.floor(Date.now() / 1000), body) }
  const deliver = (payload: string) => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body: payload })
  assert.equal((await deliver(body)).status, 204)
  assert.equal((await deliver(body.replace('2500', '9900'))).status, 400)
  while (!output.includes('paid') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  assert.match(output, new RegExp(`^paid ${qrImageUrl[2]} 2500$`, 'm'))
})
