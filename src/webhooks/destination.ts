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
  // NAT64, the well-known prefix and the local-use one: a gateway inside someone's network.
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2001:10::', 28],
  ['2001:20::', 28],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv6')
}

/** An IPv6 address as its eight 16-bit groups (a dotted IPv4 tail read as two); null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) return null
  let text = address.toLowerCase().split('%')[0]!
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split('::') as [string, string | undefined]
  const part = (chunk: string | undefined) => (chunk ? chunk.split(':').map((group) => parseInt(group, 16)) : [])
  const front = part(head)
  const back = part(tail)
  return tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back]
}

const ipv4Of = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`

/**
 * The IPv4 addresses an IPv6 address carries, which decide whether it is public: IPv4-mapped
 * (::ffff:0:0/96) and IPv4-compatible (::/96) forms, and 6to4 (2002::/16), whose tunnel ends at the
 * IPv4 address it embeds.
 */
function embeddedIpv4(groups: number[]): string[] {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number]
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || g5 === 0)) return [ipv4Of(g6, g7)]
  if (g0 === 0x2002) return [ipv4Of(g1, g2)]
  return []
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return false
  if (family === 4) return !nonPublic.check(address, 'ipv4')
  const groups = ipv6Groups(address)
  if (groups === null || groups.length !== 8) return false
  // Teredo (2001::/32) hides the client's IPv4 address; no webhook receiver is reached that way.
  if (groups[0] === 0x2001 && groups[1] === 0) return false
  const embedded = embeddedIpv4(groups)
  if (embedded.length > 0) return embedded.every((inner) => !nonPublic.check(inner, 'ipv4'))
  return !nonPublic.check(address, 'ipv6')
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
