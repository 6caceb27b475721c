// Issue 46 (point 11): a confidential address's blinding key must be a point of secp256k1, or the
// node takes the address and never pays it. Checked against the curve's equation itself.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { address as libraryAddress, networks } from 'liquidjs-lib'
import { isBlindingKeyValid, liquidNetworks, newLiquidAddress, parseLiquidAddress, type LiquidNetwork } from '../../src/treasury/liquid-address.ts'

const P = 2n ** 256n - 2n ** 32n - 977n
function power(base: bigint, exponent: bigint): bigint {
  let result = 1n
  base %= P
  for (; exponent > 0n; exponent >>= 1n, base = (base * base) % P) if (exponent & 1n) result = (result * base) % P
  return result
}
/** Whether some point of y² = x³ + 7 over the field has this x (Euler's criterion). */
const onCurve = (x: bigint) => x < P && power(x ** 3n + 7n, (P - 1n) / 2n) === 1n

test('a blinding key is valid exactly when it is a compressed key whose x is on secp256k1', () => {
  const generatorX = '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'
  assert.equal(isBlindingKeyValid(`02${generatorX}`), true)
  assert.equal(isBlindingKeyValid(`03${generatorX}`), true)
  assert.equal(isBlindingKeyValid(`04${generatorX}`), false, 'not a compressed key')
  assert.equal(isBlindingKeyValid(`02${generatorX}00`), false, '34 bytes')
  assert.equal(isBlindingKeyValid(`02${'0'.repeat(63)}5`), false, 'x = 5: 132 is no square')
  assert.equal(isBlindingKeyValid(`02${'f'.repeat(64)}`), false, 'x beyond the field')
  let valid = 0
  for (let i = 0; i < 200; i++) {
    const x = randomBytes(32).toString('hex')
    const expected = onCurve(BigInt(`0x${x}`))
    if (expected) valid++
    assert.equal(isBlindingKeyValid(`0${2 + (i % 2)}${x}`), expected, x)
  }
  // About half of all x are on the curve: both answers were tried.
  assert.ok(valid > 50 && valid < 150, String(valid))
})

const libraryNetworks = { liquidv1: networks.liquid, liquidtestnet: networks.testnet, elementsregtest: networks.regtest }
/** The library's own answer: the output script and the blinding key, or null. */
function libraryParse(text: string, network: LiquidNetwork) {
  try {
    const script = libraryAddress.toOutputScript(text.trim(), libraryNetworks[network]).toString('hex')
    return { scriptHex: script, blindingKeyHex: libraryAddress.isConfidential(text.trim()) ? libraryAddress.fromConfidential(text.trim()).blindingKey.toString('hex') : null }
  } catch {
    return null
  }
}

test('an address parsed again (a saved destination paid again) answers as the library does, on every network, valid or mangled', () => {
  const key = Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')
  const made = fc.record({
    network: fc.constantFrom(...liquidNetworks),
    confidential: fc.boolean(),
    keyHash: fc.uint8Array({ minLength: 20, maxLength: 20 }),
    mangle: fc.option(fc.record({ at: fc.nat(), to: fc.constantFrom(...'qpzry9x8gf2tvdw0s3jn54khce6mua7l') }), { nil: undefined }),
    askedOn: fc.constantFrom(...liquidNetworks),
  })
  fc.assert(fc.property(made, ({ network, confidential, keyHash, mangle, askedOn }) => {
    let text = newLiquidAddress(network, Buffer.from(keyHash), confidential ? key : undefined)
    if (mangle) {
      const at = 4 + (mangle.at % (text.length - 4))
      text = `${text.slice(0, at)}${mangle.to}${text.slice(at + 1)}`
    }
    const expected = libraryParse(text, askedOn)
    // Asked on its own network first, then on the one under test, then again: the remembered
    // answer is the network's own.
    parseLiquidAddress(text, network)
    for (let i = 0; i < 2; i++) {
      const parsed = parseLiquidAddress(text, askedOn)
      assert.deepEqual(parsed === null ? null : { scriptHex: parsed.scriptHex, blindingKeyHex: parsed.blindingKeyHex }, expected)
    }
  }), { numRuns: 3_000 })
  assert.ok(Object.isFrozen(parseLiquidAddress(newLiquidAddress('elementsregtest', randomBytes(20), key), 'elementsregtest')), 'a remembered answer cannot be changed by a caller')
})
