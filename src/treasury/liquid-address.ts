// Liquid addresses, checked with liquidjs-lib for the treasury's network before they are stored:
// a destination is its output script, so the confidential and unconfidential forms of one address
// are one destination; a confidential address also names the key its output is blinded to.
import { ECDH } from 'node:crypto'
import { address, networks, type networks as Networks } from 'liquidjs-lib'

export const liquidNetworks = ['liquidv1', 'liquidtestnet', 'elementsregtest'] as const
export type LiquidNetwork = (typeof liquidNetworks)[number]

const libraryNetworks: Record<LiquidNetwork, Networks.Network> = { liquidv1: networks.liquid, liquidtestnet: networks.testnet, elementsregtest: networks.regtest }

export type LiquidAddress = {
  /** As given (trimmed). */
  address: string
  /** The output script, hex: what identifies the destination. */
  scriptHex: string
  /** The blinding public key of a confidential address, hex; null for an unconfidential one. */
  blindingKeyHex: string | null
}

/**
 * Addresses parsed lately, by network and text, with what each parsed to: an owner's saved
 * destination is paid again and again, and blech32 in JavaScript (its 64-bit checksum through
 * `long`) costs about 0.11 ms an address, in the payout worker and in the fake node alike
 * (docs/performance.md, "Withdrawals"). Emptied when full, so hostile input cannot grow it.
 */
const parsedLately = new Map<string, Readonly<LiquidAddress> | null>()
const MOST_REMEMBERED = 1_000

/** The address on `network`, or null when it is not a valid address of that network. */
export function parseLiquidAddress(input: string, network: LiquidNetwork): Readonly<LiquidAddress> | null {
  const key = `${network} ${input}`
  const remembered = parsedLately.get(key)
  if (remembered !== undefined) return remembered
  const parsed = parseAnew(input, network)
  if (parsedLately.size >= MOST_REMEMBERED) parsedLately.clear()
  parsedLately.set(key, parsed === null ? null : Object.freeze(parsed))
  return parsed
}

function parseAnew(input: string, network: LiquidNetwork): LiquidAddress | null {
  const trimmed = input.trim()
  if (trimmed.length === 0 || trimmed.length > 200 || !/^[0-9A-Za-z]+$/.test(trimmed)) return null
  try {
    // A confidential segwit v0 address (what wallets give, and the provider's deposit addresses)
    // is decoded once: its blech32 data is the output script and carries the blinding key. The
    // general path below tries every encoding first, each failure a thrown error with a stack, and
    // the payout worker parses one a payout (docs/performance.md, "Smaller choices, measured").
    // It gives the same answer for these addresses (checked on 150,000 valid and mangled ones of
    // the three networks); any other form still goes there.
    if (trimmed.startsWith(libraryNetworks[network].blech32)) {
      const decoded = address.fromBlech32(trimmed)
      if (decoded.version === 0 && (decoded.data.length === 22 || decoded.data.length === 34)) {
        return { address: trimmed, scriptHex: decoded.data.toString('hex'), blindingKeyHex: decoded.pubkey.toString('hex') }
      }
    }
    const script = address.toOutputScript(trimmed, libraryNetworks[network])
    const blindingKeyHex = address.isConfidential(trimmed) ? address.fromConfidential(trimmed).blindingKey.toString('hex') : null
    return { address: trimmed, scriptHex: script.toString('hex'), blindingKeyHex }
  } catch {
    return null
  }
}

/**
 * Whether a confidential address's blinding key is a point the node can blind to: 33 bytes, a
 * compressed key (02 or 03) whose x lies on secp256k1. The address encodings carry any 33 bytes;
 * the node accepts such an address and then cannot pay it, so a destination is checked here.
 */
export function isBlindingKeyValid(blindingKeyHex: string): boolean {
  if (!/^0[23][0-9a-f]{64}$/.test(blindingKeyHex)) return false
  try {
    ECDH.convertKey(Buffer.from(blindingKeyHex, 'hex'), 'secp256k1')
    return true
  } catch {
    return false
  }
}

/** The unconfidential address of an output script on `network` (what a node shows as the output's address). */
export function addressOfScript(scriptHex: string, network: LiquidNetwork): string {
  return address.fromOutputScript(Buffer.from(scriptHex, 'hex'), libraryNetworks[network])
}

/**
 * A fresh address of `network` for a random 20-byte key hash: confidential (blinded to
 * `blindingKey`) when one is given. For the sandbox's fakes, which need addresses that the real
 * library accepts, and for tests.
 */
export function newLiquidAddress(network: LiquidNetwork, keyHash: Buffer, blindingKey?: Buffer): string {
  const lib = libraryNetworks[network]
  return blindingKey === undefined ? address.toBech32(keyHash, 0, lib.bech32) : address.toBlech32(Buffer.concat([Buffer.from([0, 20]), keyHash]), blindingKey, lib.blech32, 0)
}
