import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import ts from 'typescript'
import { Type, type TSchema } from 'typebox'
import { readEnvironment, withConfigTable } from '../../src/config-schema.ts'
import { defaultPayerLadder } from '../../src/domain/payer-limits.ts'
import { ConfigError, environment, loadConfig, productionWarnings } from '../../src/config.ts'

const treasury = { ELEMENTS_RPC_URL: 'http://127.0.0.1:7041', ELEMENTS_RPC_COOKIE_FILE: '/var/lib/elements/liquidv1/.cookie' }
const production = {
  MODE: 'production', PROVIDER_URL: 'https://depix.eulen.app/api', PROVIDER_TOKEN: 't', PROVIDER_WEBHOOK_SECRET: 's', OPS_TOKEN: 'o',
  SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'Pix <no-reply@example.com>', ...treasury,
}

test('sandbox defaults need no environment', () => {
  const config = loadConfig({})
  assert.equal(config.mode, 'sandbox')
  assert.equal(config.port, 8080)
  assert.equal(config.baseUrl, 'http://localhost:8080')
  assert.equal(config.docsUrl, 'http://localhost:8080/docs')
  assert.equal(config.databaseUrl, null)
  assert.equal(config.dataDir, './data')
  assert.equal(config.payerLadder[0]?.limitCents, 49_900)
})

test('BASE_URL and PORT shape the derived defaults', () => {
  const config = loadConfig({ PORT: '9000', BASE_URL: 'https://pix.example.com/' })
  assert.equal(config.baseUrl, 'https://pix.example.com')
  assert.equal(config.docsUrl, 'https://pix.example.com/docs')
  assert.equal(loadConfig({ PORT: '9000' }).baseUrl, 'http://localhost:9000')
})

test('production refuses to start without provider settings and names each missing one', () => {
  assert.throws(() => loadConfig({ MODE: 'production' }), (error: unknown) =>
    error instanceof ConfigError && /PROVIDER_URL, PROVIDER_TOKEN, PROVIDER_WEBHOOK_SECRET, OPS_TOKEN, SMTP_URL, MAIL_FROM, ELEMENTS_RPC_URL/.test(error.message))
  const mail = { SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'Pix <no-reply@example.com>', ...treasury }
  assert.throws(() => loadConfig({ MODE: 'production', PROVIDER_URL: 'https://depix.eulen.app/api', PROVIDER_TOKEN: 't', OPS_TOKEN: 'o', ...mail }),
    /needs PROVIDER_WEBHOOK_SECRET;/)
  assert.throws(() => loadConfig({ MODE: 'production', PROVIDER_URL: 'https://depix.eulen.app/api', PROVIDER_TOKEN: 't', PROVIDER_WEBHOOK_SECRET: 's', OPS_TOKEN: 'o', ...treasury }),
    /needs SMTP_URL, MAIL_FROM;/)
  const ok = loadConfig({ MODE: 'production', PROVIDER_URL: 'https://depix.eulen.app/api', PROVIDER_TOKEN: 't', PROVIDER_WEBHOOK_SECRET: 's', OPS_TOKEN: 'o', ...mail })
  assert.equal(ok.mode, 'production')
})

test('bad values are refused with the variable named', () => {
  assert.throws(() => loadConfig({ MODE: 'staging' }), /MODE/)
  assert.throws(() => loadConfig({ PORT: 'eighty' }), /PORT/)
  assert.throws(() => loadConfig({ BASE_URL: 'localhost' }), /BASE_URL/)
  assert.throws(() => loadConfig({ PAYER_LIMIT_LADDER: '5:0:100' }), /PAYER_LIMIT_LADDER/)
  assert.throws(() => loadConfig({ WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8,intranet' }), /WEBHOOK_ALLOWED_NETWORKS: has "intranet"/)
  assert.deepEqual(loadConfig({ WEBHOOK_ALLOWED_NETWORKS: ' 10.0.0.0/8 , fd00::/8' }).webhookAllowedNetworks, ['10.0.0.0/8', 'fd00::/8'])
})

test('issue 21 (point 8): production warns on an http BASE_URL, a trusted proxy on an open interface and default-looking secrets', () => {
  const production = {
    MODE: 'production', PROVIDER_URL: 'https://depix.eulen.app/api', PROVIDER_TOKEN: 't', SMTP_URL: 'smtp://mail.example.com:587', MAIL_FROM: 'Pix <no-reply@example.com>',
    OPS_TOKEN: 'k3J9vQ2mX8pL5nR7tW4yZ1aB6cD0eF', PROVIDER_WEBHOOK_SECRET: 'Hq7Lm2Xv9Pz4Rt8Wn3Ks6Jd1Fb5Gc0', BASE_URL: 'https://pix.example.com', ...treasury,
  }
  assert.deepEqual(productionWarnings(loadConfig(production)), [])
  assert.deepEqual(productionWarnings(loadConfig({ ...production, BASE_URL: 'http://pix.example.com' })).map((warning) => warning.code), ['base_url_not_https'])
  assert.deepEqual(productionWarnings(loadConfig({ ...production, TRUST_PROXY_HOPS: '1' })).map((warning) => warning.code), ['trust_proxy_on_open_interface'])
  assert.deepEqual(productionWarnings(loadConfig({ ...production, TRUST_PROXY_HOPS: '1', HOST: '127.0.0.1' })), [])
  for (const weak of ['changeme', 'ops-token', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'my-production-secret-value-123']) {
    const warnings = productionWarnings(loadConfig({ ...production, OPS_TOKEN: weak }))
    assert.deepEqual(warnings.map((warning) => warning.code), ['weak_secret'], weak)
    assert.match(warnings[0]!.message, /OPS_TOKEN/)
  }
  assert.deepEqual(productionWarnings(loadConfig({})), [], 'the sandbox warns of nothing')
})

test('issue 22 (point 5): the configuration table in the README is the one the declarations give', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  assert.equal(withConfigTable(readme, environment), readme, 'README and src/config.ts differ: run npm run docs:config')
})

test('a default is written as the environment would hold it, and is what the service uses when the variable is set to it', () => {
  const defaults: Record<string, unknown> = readEnvironment(environment, {})
  for (const [name, variable] of Object.entries(environment.properties)) {
    if (!('default' in variable)) continue
    const set: Record<string, unknown> = readEnvironment(environment, { [name]: String(variable.default) })
    assert.deepEqual(set[name], defaults[name], name)
  }
  assert.deepEqual(loadConfig({}).payerLadder, defaultPayerLadder)
})

test('issue 48 (point 5): one start names every wrong variable, not only the first', () => {
  const wrong = { PORT: 'eighty', LOG_LEVEL: 'loud', WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8,intranet' }
  assert.throws(() => loadConfig(wrong), (error: unknown) => {
    assert.ok(error instanceof ConfigError)
    assert.deepEqual(error.problems.map((problem) => problem.split(/[ :]/)[0]), ['PORT', 'LOG_LEVEL', 'WEBHOOK_ALLOWED_NETWORKS'])
    for (const name of Object.keys(wrong)) assert.match(error.message, new RegExp(`^${name}`, 'm'))
    return true
  })
  // So do the rules between variables, once each variable is right on its own.
  const tangled = { OPS_TOKEN_PREVIOUS: 'old', PROVIDER_WEBHOOK_SECRET_PREVIOUS: 'old', ELEMENTS_RPC_URL: 'http://127.0.0.1:7041', ELEMENTS_RPC_USER: 'rpc', LIQUID_NETWORK: 'liquidtestnet' }
  assert.throws(() => loadConfig(tangled), (error: unknown) => {
    assert.ok(error instanceof ConfigError)
    assert.deepEqual(error.problems.map((problem) => problem.split(/[ :]/)[0]), ['OPS_TOKEN_PREVIOUS', 'PROVIDER_WEBHOOK_SECRET_PREVIOUS', 'ELEMENTS_RPC_USER', 'DEPIX_ASSET_ID'])
    return true
  })
})

test('PROVIDER_DELAY_HOURS: production refuses 0 and 721, naming it; the sandbox allows 0', () => {
  for (const hours of ['0', '721']) {
    assert.throws(() => loadConfig({ ...production, PROVIDER_DELAY_HOURS: hours }), (error: unknown) =>
      error instanceof ConfigError && error.message.startsWith('PROVIDER_DELAY_HOURS must be between 1 and 720 in production'))
  }
  assert.equal(loadConfig({ ...production, PROVIDER_DELAY_HOURS: '1' }).providerDelayHours, 1)
  assert.equal(loadConfig({ ...production, PROVIDER_DELAY_HOURS: '720' }).providerDelayHours, 720)
  assert.equal(loadConfig(production).providerDelayHours, 24)
  assert.equal(loadConfig({ PROVIDER_DELAY_HOURS: '0' }).providerDelayHours, 0)
  assert.equal(loadConfig({}).providerDelayHours, 0)
  assert.throws(() => loadConfig({ PROVIDER_DELAY_HOURS: '721' }), /^ConfigError: PROVIDER_DELAY_HOURS must be between 0 and 720/)
})

test('a value of the wrong kind or out of bounds is refused, naming its variable', () => {
  const variables: Record<string, TSchema & { type?: string; maximum?: number }> = environment.properties
  for (const [name, variable] of Object.entries(variables)) {
    const namesIt = (error: unknown) => error instanceof ConfigError && error.message.startsWith(name)
    // A plain string takes any text; every other kind refuses one of these.
    const value = variable.type === 'integer' ? '12.5' : 'enum' in variable || Type.IsCodec(variable) ? 'nope' : null
    if (value !== null) assert.throws(() => loadConfig({ ...production, [name]: value }), namesIt, `${name}=${value}`)
    if (variable.maximum !== undefined) {
      const above = String(variable.maximum + 1)
      assert.throws(() => loadConfig({ [name]: above }), namesIt, `${name}=${above}`)
    }
  }
})

test('every variable the code reads from the environment is declared', () => {
  const read = new Set<string>()
  const recording = (env: Record<string, string>) => new Proxy(env, {
    get: (target, name) => {
      if (typeof name === 'string') read.add(name)
      return target[name as string]
    },
  })
  loadConfig(recording({}))
  loadConfig(recording(production))
  assert.deepEqual([...read].filter((name) => !(name in environment.properties)), [], 'loadConfig reads only declared variables')
  assert.deepEqual(Object.keys(environment.properties).filter((name) => !read.has(name)), [], 'every declared variable is read')

  // Everything else takes its settings from the Config: only loadConfig may touch the environment.
  const readers: string[] = []
  const src = new URL('../../src/', import.meta.url)
  for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.ts') && path !== 'config.ts')) {
    const source = ts.createSourceFile(file, readFileSync(new URL(file, src), 'utf8'), ts.ScriptTarget.Latest)
    const visit = (node: ts.Node): void => {
      const processEnv = ts.isPropertyAccessExpression(node) && node.name.text === 'env' && ts.isIdentifier(node.expression) && node.expression.text === 'process'
      const processModule = ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /^(node:)?process$/.test(node.moduleSpecifier.text)
      if (processEnv || processModule) readers.push(`src/${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`)
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  assert.deepEqual(readers, [])
})

test('issue 23: the treasury node needs its credentials, withdrawal limits are never off, and assets follow the network', () => {
  const { ELEMENTS_RPC_COOKIE_FILE: _cookie, ...noCredentials } = production
  assert.throws(() => loadConfig(noCredentials), /ELEMENTS_RPC_URL needs ELEMENTS_RPC_USER and ELEMENTS_RPC_PASSWORD, or ELEMENTS_RPC_COOKIE_FILE/)
  assert.throws(() => loadConfig({ ...noCredentials, ELEMENTS_RPC_USER: 'rpc' }), /ELEMENTS_RPC_USER and ELEMENTS_RPC_PASSWORD go together/)
  const withPassword = loadConfig({ ...noCredentials, ELEMENTS_RPC_USER: 'rpc', ELEMENTS_RPC_PASSWORD: 'p' })
  assert.deepEqual(withPassword.treasury.rpc, { url: 'http://127.0.0.1:7041', wallet: 'treasury', auth: { user: 'rpc', password: 'p' } })
  assert.equal(withPassword.treasury.network, 'liquidv1')
  assert.equal(withPassword.treasury.assets.BTC, '6f0279e9ed041c3d710a9f57d0c02928416460c4b722ae3457a11eec381c526d')
  assert.equal(withPassword.treasury.assets.DEPIX, '02f22f8d9c76ab41661a2729e4752e2c5d1a263012141b86ea98af5472df5189')
  assert.throws(() => loadConfig({ ...production, LIQUID_NETWORK: 'liquidtestnet' }), /DEPIX_ASSET_ID: has no default on liquidtestnet/)
  for (const name of ['WITHDRAWAL_LIMIT_BRL', 'WITHDRAWAL_DAILY_LIMIT_BRL', 'WITHDRAWAL_30D_LIMIT_BRL', 'WITHDRAWAL_REVIEW_BRL']) {
    for (const value of ['0', '0.00', '-1', 'off']) assert.throws(() => loadConfig({ [name]: value }), new RegExp(`^ConfigError: ${name}`), `${name}=${value}`)
  }
  assert.equal(loadConfig({ WITHDRAWAL_LIMIT_BRL: '2500.50' }).withdrawals.limits.perWithdrawalCents, 250_050)
  const weak = (password: string) => productionWarnings(loadConfig({ ...noCredentials, ELEMENTS_RPC_USER: 'rpc', ELEMENTS_RPC_PASSWORD: password })).filter((warning) => warning.message.startsWith('ELEMENTS_RPC_PASSWORD'))
  assert.equal(weak('password').length, 1)
  assert.equal(weak('Hq7Lm2Xv9Pz4Rt8Wn3Ks6Jd1Fb5Gc0').length, 0)
})

test('a previous secret is accepted only beside its successor: *_PREVIOUS alone is refused, naming both', () => {
  const rotating = loadConfig({ ...production, OPS_TOKEN_PREVIOUS: 'old-o', PROVIDER_WEBHOOK_SECRET_PREVIOUS: 'old-s' })
  assert.deepEqual([rotating.opsTokenPrevious, rotating.providerWebhookSecretPrevious], ['old-o', 'old-s'])
  assert.throws(() => loadConfig({ OPS_TOKEN_PREVIOUS: 'old-o' }), /OPS_TOKEN_PREVIOUS is set without OPS_TOKEN/)
  assert.throws(() => loadConfig({ PROVIDER_WEBHOOK_SECRET_PREVIOUS: 'old-s' }), /PROVIDER_WEBHOOK_SECRET_PREVIOUS is set without PROVIDER_WEBHOOK_SECRET/)
})

test('REHEARSAL_DESTINATION_COOLDOWN_SECONDS: a rehearsal on regtest may shorten the cool-down; a real network refuses to start with it', () => {
  assert.equal(loadConfig({ ...production }).withdrawals.cooldownMs, 24 * 3_600_000)
  assert.equal(loadConfig({ ...production, LIQUID_NETWORK: 'elementsregtest', REHEARSAL_DESTINATION_COOLDOWN_SECONDS: '0' }).withdrawals.cooldownMs, 0)
  assert.equal(loadConfig({ ...production, LIQUID_NETWORK: 'elementsregtest', REHEARSAL_DESTINATION_COOLDOWN_SECONDS: '90' }).withdrawals.cooldownMs, 90_000)
  assert.equal(loadConfig({ REHEARSAL_DESTINATION_COOLDOWN_SECONDS: '60' }).withdrawals.cooldownMs, 60_000, 'the sandbox is on regtest')
  for (const network of ['liquidv1', 'liquidtestnet']) {
    assert.throws(() => loadConfig({ ...production, LIQUID_NETWORK: network, DEPIX_ASSET_ID: 'ab'.repeat(32), REHEARSAL_DESTINATION_COOLDOWN_SECONDS: '0' }),
      (error: unknown) => error instanceof ConfigError && error.message.startsWith(`REHEARSAL_DESTINATION_COOLDOWN_SECONDS is for rehearsals against fakes (LIQUID_NETWORK=elementsregtest), not ${network}`), network)
  }
  assert.throws(() => loadConfig({ ...production, LIQUID_NETWORK: 'elementsregtest', REHEARSAL_DESTINATION_COOLDOWN_SECONDS: '86401' }), /^ConfigError: REHEARSAL_DESTINATION_COOLDOWN_SECONDS must be between 0 and 86400/)
})
