// Where a merchant webhook may go. In production the host must resolve only to public
// addresses, checked at creation and again before each delivery (DNS can change).
import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'
import { DomainError } from '../domain/errors.ts'

const nonPublic = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv4')
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv6')
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return false
  if (family === 6) {
    // An IPv4-mapped address is judged by the IPv4 address inside it.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
    if (mapped) return isPublicAddress(mapped[1]!)
  }
  return !nonPublic.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

export type ResolveHost = (hostname: string) => Promise<string[]>

export const resolveWithDns: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address)

/** Production rule: every address the host resolves to must be public. */
export async function assertPublicDestination(url: URL, resolve: ResolveHost = resolveWithDns): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  let addresses: string[]
  try {
    addresses = isIP(host) ? [host] : await resolve(host)
  } catch {
    throw new DomainError('webhook_url_invalid', { param: 'webhook_url', message: `webhook_url host ${host} does not resolve.` })
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw new DomainError('webhook_url_invalid', {
      param: 'webhook_url',
      message: 'webhook_url must not point to a private, loopback or link-local address.',
    })
  }
}
