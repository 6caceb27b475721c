// Where a merchant webhook may go. In production the host must resolve only to public addresses
// (or to networks the operator names in WEBHOOK_ALLOWED_NETWORKS): checked at creation, for an
// early and clear refusal, and again as each connection is opened, in the connection's own lookup,
// so the address checked is the address connected to. A name that answers a public address to a
// check and a private one to the connection after it (DNS rebinding) reaches nothing.
import { lookup } from 'node:dns/promises'
import { BlockList, isIP, type LookupFunction } from 'node:net'
import { DomainError } from '../domain/errors.ts'
import { createKeepAliveHttp, type UpstreamReply, type UpstreamRequest } from '../net/keep-alive-http.ts'

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

const resolveWithDns: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address)

/** One entry of WEBHOOK_ALLOWED_NETWORKS, as a BlockList takes it; null when it is neither an address nor address/prefix. */
function networkOf(entry: string): { address: string; prefix: number | undefined; type: 'ipv4' | 'ipv6' } | null {
  const [address = '', prefix, extra] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || extra !== undefined) return null
  if (prefix !== undefined && (!/^\d{1,3}$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128))) return null
  return { address, prefix: prefix === undefined ? undefined : Number(prefix), type: family === 4 ? 'ipv4' : 'ipv6' }
}

/** WEBHOOK_ALLOWED_NETWORKS: a comma-separated list of networks (`10.1.0.0/16`) or addresses; refuses anything else. */
export function parseAllowedNetworks(text: string): string[] {
  const networks = text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '')
  const wrong = networks.find((network) => networkOf(network) === null)
  if (wrong !== undefined) throw new Error(`has "${wrong}", which is neither an address nor address/prefix`)
  return networks
}

function blockListOf(networks: readonly string[]): BlockList {
  const list = new BlockList()
  for (const { address, prefix, type } of networks.map(networkOf).filter((network) => network !== null)) {
    if (prefix === undefined) list.addAddress(address, type)
    else list.addSubnet(address, prefix, type)
  }
  return list
}

const refused = () => new DomainError('webhook_url_invalid', { param: 'webhook_url', message: 'webhook_url must not point to a private, loopback or link-local address.' })

/** Who may receive webhooks, and the way to call them. */
export type WebhookDestinations = {
  /** Refuses (`webhook_url_invalid`) a URL whose host is, or resolves to, an address webhooks may not reach. */
  check(url: URL): Promise<void>
  /** Calls a receiver over kept-alive connections, each opened only to addresses the same rule let through. */
  call(url: URL, request: UpstreamRequest): Promise<UpstreamReply>
}

/**
 * Production (`publicOnly`): every address of the host must be public or inside `allowedNetworks`.
 * The sandbox delivers anywhere, as a developer's receiver is usually on their own machine.
 */
export function webhookDestinations(options: { publicOnly: boolean; allowedNetworks?: readonly string[]; resolveHost?: ResolveHost; timeoutMs: number }): WebhookDestinations {
  if (!options.publicOnly) {
    const http = createKeepAliveHttp({ timeoutMs: options.timeoutMs })
    return { check: async () => {}, call: http.call }
  }
  const resolve = options.resolveHost ?? resolveWithDns
  const allowed = blockListOf(options.allowedNetworks ?? [])
  const reachable = (address: string) => isPublicAddress(address) || allowed.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6')
  /** The host's addresses, every one reachable; refused otherwise. */
  const addressesOf = async (host: string): Promise<string[]> => {
    let addresses: string[]
    try {
      addresses = isIP(host) ? [host] : await resolve(host)
    } catch {
      throw new DomainError('webhook_url_invalid', { param: 'webhook_url', message: `webhook_url host ${host} does not resolve.` })
    }
    if (addresses.length === 0 || !addresses.every(reachable)) throw refused()
    return addresses
  }
  const checkedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    const family = lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 'IPv6' ? 6 : (lookupOptions.family ?? 0)
    addressesOf(hostname).then((addresses) => {
      const entries = addresses.map((address) => ({ address, family: isIP(address) })).filter((entry) => family === 0 || entry.family === family)
      const first = entries[0]
      if (first === undefined) callback(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }), '', 0)
      else if (lookupOptions.all) callback(null, entries)
      else callback(null, first.address, first.family)
    }, (error: Error) => callback(error, '', 0))
  }
  const http = createKeepAliveHttp({ timeoutMs: options.timeoutMs, lookup: checkedLookup })
  const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '')
  return {
    async check(url) {
      await addressesOf(hostOf(url))
    },
    async call(url, request) {
      // A connection to an address given as such asks no lookup: it is checked here instead.
      const host = hostOf(url)
      if (isIP(host)) await addressesOf(host)
      return http.call(url, request)
    },
  }
}
