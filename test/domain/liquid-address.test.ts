// Issue 46 (point 11): a confidential address's blinding key must be a point of secp256k1, or the
// node takes the address and never pays it. Checked against the curve's equation itself.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { isBlindingKeyValid } from '../../src/treasury/liquid-address.ts'

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
