// The sandbox withdrawal walk-through (README, "A withdrawal in the sandbox", and /docs#sandbox-withdrawal)
// as an owner follows it: a Liquid address from the sandbox, the destination added and confirmed
// in the Wallet, the clock moved a day past its cool-down (the Wallet stays signed in), the
// withdrawal made, blocks mined, completed.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { parseLiquidAddress } from '../../src/treasury/liquid-address.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { newestCode, signedInClient } from '../support/wallet-client.ts'

let service: TestService
before(async () => {
  service = await startTestService()
})
after(() => service?.close())

test('a withdrawal in the sandbox: the address it gives, the Wallet across a day of sandbox clock, the blocks mined', async () => {
  const cpf = generateCpf()
  const shop = await service.merchant('walk@example.com', cpf)
  // A payment of the owner's own is available at once.
  const charge = await service.request({ method: 'POST', url: '/api/create-payment', token: shop.token, body: { value: '20.00', email: shop.email, euid: shop.euid } })
  assert.equal((await service.pay(charge.body.id, cpf)).body.status, 'depix_sent')

  const given = await service.request({ method: 'GET', url: '/sandbox/liquid-address' })
  assert.equal(given.status, 200, JSON.stringify(given.body))
  assert.equal(given.body.network, 'elementsregtest')
  assert.ok(parseLiquidAddress(given.body.address, 'elementsregtest'), 'a regtest address the service accepts')
  assert.notEqual((await service.request({ method: 'GET', url: '/sandbox/liquid-address' })).body.address, given.body.address, 'a new one each time')

  const wallet = await signedInClient(service, shop.email)
  await wallet.get('/wallet/destinations')
  const added = await wallet.post('/wallet/destinations', { type: 'liquid', value: given.body.address, label: 'my wallet' })
  assert.equal(added.status, 303, added.html)
  await wallet.get(added.location!)
  const id = /(dst_[0-9a-f]{24})$/.exec(added.location!)![1]!
  assert.equal((await wallet.post(`/wallet/destinations/${id}/confirm`, { code: await newestCode(service, shop.email) })).location, '/wallet/destinations?notice=confirmed')

  await service.advance(86_401)
  assert.match((await wallet.get('/wallet')).html, /walk@example\.com/, 'still signed in after a day of sandbox clock')
  const listed = await service.request({ method: 'GET', url: '/api/withdrawal-destinations', token: shop.token })
  assert.equal(listed.body.destinations.find((each: { id: string }) => each.id === id).state, 'active')

  const withdrawal = await service.request({ method: 'POST', url: '/api/withdrawals', token: shop.token, body: { currency: 'DEPIX', amount: 500, destination_id: id } })
  assert.equal(withdrawal.status, 200, JSON.stringify(withdrawal.body))
  await service.jobs.runDue()
  const mined = await service.request({ method: 'POST', url: '/sandbox/treasury/mine', body: { blocks: 2 } })
  assert.equal(mined.status, 200, JSON.stringify(mined.body))
  const done = await service.request({ method: 'GET', url: `/api/withdrawals/${withdrawal.body.id}`, token: shop.token })
  assert.equal(done.body.status, 'completed', JSON.stringify(done.body))
})
