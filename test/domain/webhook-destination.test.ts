import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isPublicAddress } from '../../src/webhooks/destination.ts'

test('issue 21 (point 6): every private address is refused, however it is written', () => {
  const refused = [
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', 'not-an-ip',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1',
    // IPv4-mapped and IPv4-compatible, dotted and in hex
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:a00:1', '::127.0.0.1', '::a9fe:a9fe', '0:0:0:0:0:ffff:c0a8:101',
    // 6to4 embedding a private IPv4 (2002:0a00:0001:: is 10.0.0.1; 2002:c0a8:0101:: is 192.168.1.1)
    '2002:a00:1::1', '2002:c0a8:101::', '2002:7f00:1::1', '2002:a9fe:a9fe::1',
    // Teredo, whatever it embeds
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::1',
    // NAT64: the well-known prefix and the local-use one
    '64:ff9b::a00:1', '64:ff9b::8.8.8.8', '64:ff9b:1::a00:1',
  ]
  for (const address of refused) assert.equal(isPublicAddress(address), false, address)
  const allowed = ['8.8.8.8', '172.32.0.1', '93.184.216.34', '2001:4860:4860::8888', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8', '::ffff:808:808', '2002:808:808::1']
  for (const address of allowed) assert.equal(isPublicAddress(address), true, address)
})
