import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { issueToken } from '../../src/app/issue-token.ts'
import { openAccount } from '../../src/app/open-account.ts'
import { createAdjustableClock } from '../../src/clock.ts'
import { startFakeTicker, type FakeTicker } from '../../src/sandbox/fake-ticker.ts'
import type { Service } from '../../src/service.ts'
import { ok } from '../support/api.ts'
import { reachable, T0 } from '../support/harness.ts'
import { startProductionRig, type ProductionRig } from '../support/production-rig.ts'

let rig: ProductionRig
let service: ReturnType<typeof reachable<Service>>
let provider: ProductionRig['provider']
let ticker: FakeTicker
let providerClock: ReturnType<typeof createAdjustableClock>
let token: string
let hosts: Record<string, string[]>

before(async () => {
  const clock = createAdjustableClock(T0)
  providerClock = clock
  rig = await startProductionRig({ clock, requireEndUserName: true })
  provider = rig.provider
  ticker = await startFakeTicker({ BTC: 350_000_000_000, USDt: 5_400_000 })
  hosts = { 'merchant.example.com': ['93.184.216.34'], 'sneaky.example.com': ['93.184.216.34', '10.0.0.8'], 'rebinding.example.com': ['93.184.216.34'] }
  // Secrets that look like examples: /readyz names them (the last test).
  service = reachable((await rig.serve({
    env: { PRICE_SOURCE_URL: ticker.url, BASE_URL: 'https://pix.example.com', PROVIDER_WEBHOOK_SECRET: 'hook-secret', OPS_TOKEN: 'ops-token' },
    resolveHost: async (host) => {
      if (!hosts[host]) throw new Error('ENOTFOUND')
      return hosts[host]
    },
  })).service)
  const euid = (await provider.endUser('52998224725', 'Merchant')).euid
  const account = await openAccount({ store: service.store, clock }, { email: 'prod@example.com', taxNumber: '52998224725', name: 'Merchant', kyc: 'verified', euid })
  token = (await issueToken({ store: service.store, clock }, { accountId: account.id })).token
})
after(async () => {
  await rig.close()
  await ticker.close()
})

const create = (webhookUrl: string) =>
  service.api.post('/api/create-payment', { value: '10.00', email: 'c@example.com', tax_number: '11144477735', payer_name: 'Carla Dias', webhook_url: webhookUrl }, { token })

test('production mode serves no sandbox controls', async () => {
  const response = await service.app.inject({ method: 'POST', url: '/sandbox/accounts', payload: { email: 'x@example.com', tax_number: '11144477735' } })
  assert.equal(response.statusCode, 404)
  assert.equal(response.json().code, 'not_found')
})

test('production webhooks must be https to hosts that resolve only to public addresses', async () => {
  assert.equal((await create('https://merchant.example.com/hooks')).status, 200)
  for (const url of ['http://merchant.example.com/hooks', 'https://sneaky.example.com/h', 'https://127.0.0.1/h', 'https://[::1]/h',
    'https://169.254.169.254/latest', 'https://10.1.1.1/h', 'https://unresolvable.example.com/h']) {
    const response = await create(url)
    assert.equal(response.status, 400, url)
    assert.equal(response.body.code, 'webhook_url_invalid', url)
  }
})

test('the production adapter talks to the provider over HTTP with its Bearer token', async () => {
  const created = ok(await create('https://merchant.example.com/hooks'))
  const charge = await service.store.charges.findById(created.id)
  assert.match(charge!.provider_deposit_id, /^[0-9a-f]{32}$/)
  assert.equal(created.qrImageUrl, `https://pix.example.com/api/qr/${charge!.id}.png`)
})

test('the destination is checked again at delivery: a host now resolving to a private address gets nothing', async () => {
  const created = ok(await service.api.post('/api/create-payment', {
    value: '10.00', email: 'dns@example.com', tax_number: '12345678909', payer_name: 'Davi Nunes', webhook_url: 'https://rebinding.example.com/hook', webhook_secret: 's',
  }, { token }))
  hosts['rebinding.example.com'] = ['10.0.0.5']
  const charge = await service.store.charges.findById(created.id)
  const applied = await service.app.inject({
    method: 'POST', url: '/provider/webhooks/deposit', headers: { authorization: 'Basic hook-secret' },
    payload: { qrId: charge!.provider_deposit_id, status: 'depix_sent', valueInCents: 1000, payerTaxNumber: '12345678909', payerEUID: 'EU000000000000077' },
  })
  assert.equal(applied.statusCode, 200)
  await service.jobs.runDue()
  const attempts = await service.database.db.selectFrom('webhook_attempts').selectAll().execute()
  assert.equal(attempts.length, 1)
  assert.equal(attempts[0]!.status_code, null)
  assert.match(attempts[0]!.error!, /private, loopback or link-local/)
})

test('the provider refuses a tax number it does not know without the payer\'s name: 400 payer_name_required with its sentence', async () => {
  const unknown = generateCpf()
  const send = (body: { payer_name?: string }, taxNumber = unknown) => service.api.post('/api/create-payment', { value: '10.00', email: 'named@example.com', tax_number: taxNumber, ...body }, { token })
  // A tax number the provider knows (this one paid before) needs no name.
  assert.equal((await send({}, '52998224725')).status, 200)
  const refused = await send({})
  assert.equal(refused.status, 400)
  assert.equal(refused.body.code, 'payer_name_required')
  assert.equal(refused.body.param, 'payer_name')
  assert.match(refused.body.error, /endUserFullName é obrigatório/)
  assert.equal((await send({ payer_name: 'Nina Alves' })).status, 200)
})

test('with one price source (no PRICE_CHECK_SOURCE_URL), the first price fetched after installation is used and anchors the band; a jump beyond it waits for an operator', async () => {
  const payer = generateCpf()
  const euid = (await provider.endUser(payer, 'Ana Paga')).euid
  const pay = async () => {
    const created = ok(await service.api.post('/api/create-payment', { value: '100.00', email: 'first-price@example.com', euid, swap_to: 'BTC' }, { token }))
    const charge = (await service.store.charges.findById(created.id))!
    assert.equal(await provider.settle(charge.provider_deposit_id, { payerName: 'Ana Paga', payerTaxNumber: payer, outcome: 'depix_sent' }), 200)
    // Production charges carry Eulen's 24 h delay: the provider delivers when it ends.
    providerClock.advance(24 * 3600)
    await provider.deliverDelayed()
    return (await service.store.charges.findById(charge.id))!
  }
  const ops = (method: string, url: string, body?: unknown) => service.app.inject({ method: method as 'PUT', url, headers: { authorization: 'Bearer ops-token' }, ...(body ? { payload: body as object } : {}) })
  assert.deepEqual((await ops('GET', '/ops/quotes')).json().accepted, [], 'a fresh install: no price accepted yet')
  const first = await pay()
  assert.deepEqual([first.status, first.hold_reason, first.quote_source, first.quote_micros], ['depix_sent', null, 'ticker', 350_000_000_000])
  assert.ok(first.credited_units! > 0)
  assert.deepEqual((await ops('GET', '/ops/quotes')).json().accepted.map((row: { currency: string; price: string; source: string }) => [row.currency, row.price, row.source]), [['BTC', '350000.00', 'ticker']])
  // The first price is the band's anchor now: 20 % above it is not used.
  ticker.setPrices({ BTC: 420_000_000_000 })
  try {
    const jumped = await pay()
    assert.deepEqual([jumped.status, jumped.hold_reason, jumped.credited_units], ['security_hold', 'quote_unavailable', null])
  } finally {
    ticker.setPrices({ BTC: 350_000_000_000 })
  }
  const next = await pay()
  assert.deepEqual([next.status, next.quote_source], ['depix_sent', 'ticker'])
})

test('issue 21 (point 8): /readyz names the unsafe settings production runs with', async () => {
  // This test's OPS_TOKEN ("ops-token") and webhook secret ("hook-secret") look like examples.
  const ready = await service.app.inject({ method: 'GET', url: '/readyz' })
  assert.deepEqual(ready.json().warnings, ['weak_secret', 'weak_secret'])
})
