// What a withdrawal test needs first: an owner with money available and a destination confirmed
// through the Wallet's pages, the only place a destination can be added (docs/rules.md#destinations).
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { ok } from './api.ts'
import type { TestService } from './harness.ts'
import { newestCode, signedInClient } from './wallet-client.ts'

export type Owner = Awaited<ReturnType<typeof ownerWithBalance>>

/** An owner with an identity and `reais` credited to the available balance by a payment of their own. */
export async function ownerWithBalance(service: TestService, email: string, reais: string) {
  const taxNumber = generateCpf()
  const merchant = await service.merchant(email, taxNumber)
  const created = ok(await service.api.post('/api/create-payment', { value: reais, email, euid: merchant.euid }, { token: merchant.token }))
  assert.equal((await service.pay(created.id, taxNumber)).body.status, 'depix_sent')
  return { ...merchant, taxNumber, wallet: await signedInClient(service, email) }
}

/** Adds and confirms a destination through the Wallet's pages; answers its id. It is cooling down until the clock moves past the cool-down. */
export async function confirmedDestination(service: TestService, owner: Owner, type: 'pix' | 'liquid', value: string): Promise<string> {
  await owner.wallet.get('/wallet/destinations')
  const added = await owner.wallet.post('/wallet/destinations', { type, value, label: '' })
  assert.equal(added.status, 303, added.html)
  const id = /^\/wallet\/destinations\/(dst_[0-9a-f]+)$/.exec(added.location!)![1]!
  await owner.wallet.get(added.location!)
  const confirmed = await owner.wallet.post(`/wallet/destinations/${id}/confirm`, { code: await newestCode(service, owner.email) })
  assert.equal(confirmed.location, '/wallet/destinations?notice=confirmed')
  return id
}
