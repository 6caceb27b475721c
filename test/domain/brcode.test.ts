import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { isValidPixPayload } from '@brazilian-utils/brazilian-utils'
import { parsePix } from 'pix-utils'
import { buildDynamicBrCode, crc16ccitt } from '../../src/sandbox/brcode.ts'

function topLevelFields(code: string): Map<string, string> {
  const fields = new Map<string, string>()
  for (let at = 0; at < code.length; ) {
    const length = Number(code.slice(at + 2, at + 4))
    fields.set(code.slice(at, at + 2), code.slice(at + 4, at + 4 + length))
    at += 4 + length
  }
  return fields
}

test('CRC-16/CCITT-FALSE check value and the BCB manual vectors', () => {
  assert.equal(crc16ccitt('123456789'), '29B1')
  for (const vector of [
    '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D',
    '00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4',
    '00020126330014br.gov.bcb.pix0111123456789095204000053039865406123.455802BR5913Fulano de Tal6008Brasilia62070503***630479EE',
  ]) {
    assert.equal(crc16ccitt(vector.slice(0, -4)), vector.slice(-4))
  }
  const stale = '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***6304'
  assert.equal(crc16ccitt(stale.replace('5303986', '5303986540510.00')), '288F')
})

test('built dynamic codes pass both independent parsers, amount and location intact', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.stringMatching(/^[0-9a-f]{32}$/), fc.string({ maxLength: 40 }), (cents, id, name) => {
      const code = buildDynamicBrCode({ location: `pix.sandbox.depix.invalid/cob/${id}`, amountCents: cents, merchantName: name, merchantCity: 'São Paulo' })
      assert.equal(isValidPixPayload(code), true, code)
      const parsed = parsePix(code) as Record<string, unknown>
      assert.equal(parsed.type, 'DYNAMIC', code)
      assert.equal(parsed.url, `pix.sandbox.depix.invalid/cob/${id}`)
      const amount = `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`
      assert.equal(topLevelFields(code).get('54'), amount)
      assert.match(code, /^[\x20-\x7e]+$/)
    }),
    { numRuns: 500 },
  )
})

test('a location longer than 77 characters is refused', () => {
  assert.throws(() => buildDynamicBrCode({ location: 'x'.repeat(78), amountCents: 100, merchantName: 'A', merchantCity: 'B' }), RangeError)
})
