// Integration runner: pglite only (every test here skips on PostgreSQL).
// The files of deploy/, the Dockerfile and compose.yaml, checked as far as this machine allows:
// systemd verifies the unit; the Dockerfile (which cannot be built here: no base images) keeps
// the tested production install's steps, and its health check runs against a service; the
// Prometheus rules name only metrics the service exports; and `npm start` stops cleanly when npm
// alone gets SIGTERM, as it does as a container's PID 1.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { migratedPgliteFolder, skipOnSecondDatabase, startTestService, type TestService } from '../support/harness.ts'

const read = (path: string) => readFileSync(path, 'utf8')
const installed = (command: string) => spawnSync(command, ['--version']).status === 0
// CI installs systemd (.ci/run) and must run the check; a machine without it skips, saying so.
const withoutSystemd = !installed('systemd-analyze') && process.env.CI !== 'true' ? 'systemd-analyze is not installed (apt-get install systemd)' : false

let service: TestService
before(async () => {
  if (!skipOnSecondDatabase) service = await startTestService()
})
after(async () => {
  await service?.close()
})

test('the systemd unit passes systemd-analyze verify without a warning', { skip: skipOnSecondDatabase || withoutSystemd }, () => {
  const verified = spawnSync('systemd-analyze', ['verify', 'deploy/pix-charge.service'], { encoding: 'utf8' })
  assert.equal(verified.status, 0, verified.stderr)
  assert.equal(verified.stderr + verified.stdout, '')
  const unit = read('deploy/pix-charge.service')
  assert.match(unit, /^ExecStart=npm start$/m)
  assert.match(unit, /^EnvironmentFile=\/etc\/pix-charge\/env$/m)
})

test("the Dockerfile installs and starts as the tested production install does, on the pinned Node's major version", { skip: skipOnSecondDatabase }, () => {
  const dockerfile = read('Dockerfile')
  const pinned = (JSON.parse(read('package.json')) as { dependencies: Record<string, string> }).dependencies.node!
  assert.match(dockerfile, new RegExp(`^FROM node:${pinned.split('.')[0]}-`, 'm'))
  assert.match(dockerfile, /^USER node$/m)
  assert.match(dockerfile, /^RUN npm ci --omit=dev\b/m)
  assert.match(dockerfile, /^CMD \["npm", "start"\]$/m)
  assert.match(dockerfile, /^VOLUME \["\/home\/node\/data"\]$/m)
  assert.match(dockerfile, /DATA_DIR=\/home\/node\/data/)
  // The files npm ci needs are copied before it runs.
  assert.match(dockerfile, /^COPY --chown=node:node package\.json package-lock\.json \.npmrc \.\/$/m)
  // So are the files the install's own step runs (package.json's postinstall), and what they import.
  const beforeInstall = dockerfile.slice(0, dockerfile.search(/^RUN npm ci/m))
  const postinstall = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.postinstall!
  const script = postinstall.split(/\s+/).at(-1)!
  const imported = [...read(script).matchAll(/^import .* from '\.\.\/(.+)'$/gm)].map((match) => match[1]!)
  for (const file of [script, ...imported]) assert.ok(beforeInstall.includes(`COPY --chown=node:node ${file} ${dirname(file)}/\n`), `${file} is copied before npm ci`)
  assert.match(read('.dockerignore'), /^\*\*\/node_modules$/m)
})

test("the Dockerfile's health check, run as Docker runs it, passes against a ready service and fails without one", { skip: skipOnSecondDatabase }, async () => {
  const healthcheck = /^HEALTHCHECK [^\n]*\\\n\s+CMD (\[.*\])$/m.exec(read('Dockerfile'))
  assert.ok(healthcheck, 'HEALTHCHECK … CMD [exec form]')
  const [command, ...args] = JSON.parse(healthcheck[1]!) as string[]
  assert.equal(command, 'node')
  const port = String((service.app.server.address() as { port: number }).port)
  // Not spawnSync: the service answering the probe runs in this very process.
  const probe = async (env: Record<string, string>) => (await once(spawn(process.execPath, args, { env, stdio: 'ignore' }), 'exit'))[0]
  assert.equal(await probe({ PORT: port }), 0)
  assert.equal(await probe({ PORT: '1' }), 1)
})

test('compose.yaml migrates once before the service starts, both on the same PostgreSQL database', { skip: skipOnSecondDatabase }, () => {
  const compose = read('compose.yaml')
  assert.match(compose, /migrate:\n\s+build: \.\n\s+command: \["npm", "run", "migrate"\]/)
  assert.match(compose, /migrate:\n\s+condition: service_completed_successfully/)
  const urls = [...compose.matchAll(/DATABASE_URL: (\S+)/g)].map((match) => match[1])
  assert.deepEqual(urls, ['postgres://pix:${POSTGRES_PASSWORD}@postgres:5432/pix', 'postgres://pix:${POSTGRES_PASSWORD}@postgres:5432/pix'])
  assert.match(compose, /- "127\.0\.0\.1:8080:8080"/)
})

test('the Prometheus rules name only metrics the service exports', { skip: skipOnSecondDatabase }, async () => {
  const rules = read('deploy/prometheus-rules.yml')
  const metrics = (await service.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${service.opsToken}` } })).body as string
  const exported = new Set([...metrics.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) => (type === 'histogram' ? [`${name}_bucket`, `${name}_count`, `${name}_sum`] : [name!])))
  const named = new Set([...rules.matchAll(/\b(pix_[a-z_]+)\b/g)].map((match) => match[1]!))
  assert.ok(named.size >= 10, [...named].join(' '))
  assert.deepEqual([...named].filter((name) => !exported.has(name)), [])
})

// CI installs Debian's prometheus, which brings promtool (.ci/run), and must run the check.
const withoutPromtool = !installed('promtool') && process.env.CI !== 'true' ? 'promtool is not installed (apt-get install prometheus)' : false

test('promtool accepts the Prometheus rules', { skip: skipOnSecondDatabase || withoutPromtool }, () => {
  const checked = spawnSync('promtool', ['check', 'rules', 'deploy/prometheus-rules.yml'], { encoding: 'utf8' })
  assert.equal(checked.status, 0, checked.stdout + checked.stderr)
})

test('SIGTERM to npm alone (a container\'s PID 1, docker stop) reaches the service, which finishes and exits', { skip: skipOnSecondDatabase, timeout: 60_000 }, async () => {
  const dataDir = await migratedPgliteFolder('pix-npm-sigterm-')
  try {
    const npm = spawn('npm', ['start'], { env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    npm.stdout.on('data', (chunk) => (output += chunk))
    npm.stderr.on('data', (chunk) => (output += chunk))
    // The banner comes once the service handles SIGTERM; it names the release running.
    while (!/demo API token/.test(output)) await Promise.race([once(npm.stdout, 'data'), once(npm, 'exit').then(() => assert.fail(output))])
    assert.match(output, new RegExp(`^Pix charge service ${JSON.parse(read('package.json')).version.replaceAll('.', '\\.')} \\(sandbox mode\\)`, 'm'))
    npm.kill('SIGTERM')
    const [code, signal] = await once(npm, 'exit')
    // npm ends as its child did, or by the signal it passed on (exit status 143 to Docker).
    assert.ok(code === 0 || signal === 'SIGTERM', `${code} ${signal}\n${output}`)
    assert.doesNotMatch(output, /"level":(50|60)/)
    const stopped = /\{[^\n]*"pid":(\d+)[^\n]*"msg":"shutting down"\}/.exec(output)
    assert.ok(stopped, `no shutdown logged:\n${output}`)
    assert.throws(() => process.kill(Number(stopped[1]), 0), { code: 'ESRCH' }, 'the service outlived npm')
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
})

test("the package's version is a release of CHANGELOG.md, which keeps Keep a Changelog's form, and the upgrade guide pins tags", { skip: skipOnSecondDatabase }, () => {
  const { version } = JSON.parse(read('package.json')) as { version: string }
  assert.match(version, /^\d+\.\d+\.\d+$/)
  const lock = JSON.parse(read('package-lock.json')) as { version: string; packages: Record<string, { version?: string }> }
  assert.deepEqual([lock.version, lock.packages['']!.version], [version, version])
  const changelog = read('CHANGELOG.md')
  const releases = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map(([, name, date]) => ({ name, date }))
  assert.equal(releases[0]?.name, 'Unreleased', 'the first section gathers what is not released yet')
  assert.equal(releases[1]?.name, version, 'the newest release is the package\'s version')
  for (const release of releases.slice(1)) assert.match(release.date ?? '', /^\d{4}-\d{2}-\d{2}$/, `${release.name} has its date`)
  const entry = changelog.slice(changelog.indexOf(`## [${version}]`)).split(/^## /m)[1]!
  assert.match(entry, /^### Upgrade$/m, 'the release says what an operator must do')
  const upgrades = read('docs/operations.md').split('## Upgrades')[1]!.split('\n## ')[0]!
  assert.match(upgrades, /CHANGELOG\.md/)
  assert.match(upgrades, new RegExp(`\`v${version.replaceAll('.', '\\.')}\``))
  assert.doesNotMatch(read('docs/operations.md'), /<release>|release notes/)
})
