import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DomainError } from '../../src/domain/errors.ts'
import { assertPublicDestination, isPublicAddress } from '../../src/webhooks/destination.ts'

test('private, loopback, link-local and special addresses are not public', () => {
  for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0',
    '100.64.0.1', '224.0.0.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not-an-ip']) {
    assert.equal(isPublicAddress(address), false, address)
  }
  for (const address of ['8.8.8.8', '172.32.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) {
    assert.equal(isPublicAddress(address), true, address)
  }
})

test('a host is accepted only when every address it resolves to is public', async () => {
  const resolver = (map: Record<string, string[]>) => async (host: string) => {
    if (!map[host]) throw new Error('ENOTFOUND')
    return map[host]
  }
  const resolve = resolver({ 'ok.example': ['93.184.216.34'], 'mixed.example': ['93.184.216.34', '10.0.0.1'], 'empty.example': [] })
  await assertPublicDestination(new URL('https://ok.example/hook'), resolve)
  for (const url of ['https://mixed.example/', 'https://empty.example/', 'https://missing.example/', 'https://127.0.0.1/', 'https://[::1]/']) {
    await assert.rejects(assertPublicDestination(new URL(url), resolve), (error: unknown) => error instanceof DomainError && error.code === 'webhook_url_invalid', url)
  }
})
