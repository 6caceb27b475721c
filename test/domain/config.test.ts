import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ConfigError, loadConfig, productionWarnings } from '../../src/config.ts'

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
    error instanceof ConfigError && /PROVIDER_URL, PROVIDER_TOKEN, PROVIDER_WEBHOOK_SECRET, OPS_TOKEN, SMTP_URL, MAIL_FROM/.test(error.message))
  const mail = { SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'Pix <no-reply@example.com>' }
  assert.throws(() => loadConfig({ MODE: 'production', PROVIDER_URL: 'https://depix.eulen.app/api', PROVIDER_TOKEN: 't', OPS_TOKEN: 'o', ...mail }),
    /needs PROVIDER_WEBHOOK_SECRET;/)
  assert.throws(() => loadConfig({ MODE: 'production', PROVIDER_URL: 'https://depix.eulen.app/api', PROVIDER_TOKEN: 't', PROVIDER_WEBHOOK_SECRET: 's', OPS_TOKEN: 'o' }),
    /needs SMTP_URL, MAIL_FROM;/)
  const ok = loadConfig({ MODE: 'production', PROVIDER_URL: 'https://depix.eulen.app/api', PROVIDER_TOKEN: 't', PROVIDER_WEBHOOK_SECRET: 's', OPS_TOKEN: 'o', ...mail })
  assert.equal(ok.mode, 'production')
})

test('bad values are refused with the variable named', () => {
  assert.throws(() => loadConfig({ MODE: 'staging' }), /MODE/)
  assert.throws(() => loadConfig({ PORT: 'eighty' }), /PORT/)
  assert.throws(() => loadConfig({ BASE_URL: 'localhost' }), /BASE_URL/)
  assert.throws(() => loadConfig({ PAYER_LIMIT_LADDER: '5:0:100' }), /PAYER_LIMIT_LADDER/)
})

test('issue 21 (point 8): production warns on an http BASE_URL, a trusted proxy on an open interface and default-looking secrets', () => {
  const production = {
    MODE: 'production', PROVIDER_URL: 'https://depix.eulen.app/api', PROVIDER_TOKEN: 't', SMTP_URL: 'smtp://mail.example.com:587', MAIL_FROM: 'Pix <no-reply@example.com>',
    OPS_TOKEN: 'k3J9vQ2mX8pL5nR7tW4yZ1aB6cD0eF', PROVIDER_WEBHOOK_SECRET: 'Hq7Lm2Xv9Pz4Rt8Wn3Ks6Jd1Fb5Gc0', BASE_URL: 'https://pix.example.com',
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
