import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DomainError } from '../../src/domain/errors.ts'
import { parseAllowedNetworks, webhookDestinations, type ResolveHost } from '../../src/webhooks/destination.ts'

const resolver = (map: Record<string, string[]>): ResolveHost => async (host) => {
  if (!map[host]) throw new Error('ENOTFOUND')
  return map[host]
}
const refusedAsInvalid = (error: unknown) => error instanceof DomainError && error.code === 'webhook_url_invalid'

test('production: a host is accepted only when every address it resolves to is public', async () => {
  const destinations = webhookDestinations({
    publicOnly: true, timeoutMs: 1_000,
    resolveHost: resolver({ 'ok.example': ['93.184.216.34'], 'mixed.example': ['93.184.216.34', '10.0.0.1'], 'empty.example': [] }),
  })
  await destinations.check(new URL('https://ok.example/hook'))
  for (const url of ['https://mixed.example/', 'https://empty.example/', 'https://missing.example/', 'https://127.0.0.1/', 'https://[::1]/']) {
    await assert.rejects(destinations.check(new URL(url)), refusedAsInvalid, url)
  }
})

test('the sandbox delivers anywhere: a developer\'s receiver is on their own machine', async () => {
  await webhookDestinations({ publicOnly: false, timeoutMs: 1_000 }).check(new URL('http://127.0.0.1:9/hook'))
})

test('WEBHOOK_ALLOWED_NETWORKS lets the operator\'s own networks through, and nothing else private', async () => {
  const destinations = webhookDestinations({
    publicOnly: true, timeoutMs: 1_000, allowedNetworks: parseAllowedNetworks('10.20.0.0/16, 192.168.1.5,fd00:1::/32'),
    resolveHost: resolver({ 'inside.example': ['10.20.3.4', 'fd00:1::7'], 'next-door.example': ['10.20.3.4', '10.21.0.1'] }),
  })
  for (const url of ['https://inside.example/', 'https://192.168.1.5/', 'https://10.20.255.255/', 'https://[fd00:1::1]/']) await destinations.check(new URL(url))
  for (const url of ['https://next-door.example/', 'https://192.168.1.6/', 'https://127.0.0.1/', 'https://[fd00:2::1]/']) {
    await assert.rejects(destinations.check(new URL(url)), refusedAsInvalid, url)
  }
  assert.deepEqual(parseAllowedNetworks(''), [])
  for (const bad of ['10.0.0.0/33', 'example.com', '10.0.0.0/8/1', '::/129', '10.0.0.0/']) assert.throws(() => parseAllowedNetworks(bad), /neither an address/, bad)
})
