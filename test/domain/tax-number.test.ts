import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { isEuid, maskTaxNumber, parseTaxNumber, stripTaxNumber, taxNumberPattern } from '../../src/domain/tax-number.ts'

test('valid CPF and CNPJ vectors of the reference parse, punctuation stripped, upper-cased', () => {
  for (const cpf of ['52998224725', '11144477735', '12345678909']) assert.deepEqual(parseTaxNumber(cpf), { kind: 'cpf', value: cpf })
  for (const cnpj of ['11222333000181', '00000000000191', '12ABC34501DE35', 'AA345678000A29']) {
    assert.deepEqual(parseTaxNumber(cnpj), { kind: 'cnpj', value: cnpj })
  }
  assert.deepEqual(parseTaxNumber('529.982.247-25'), { kind: 'cpf', value: '52998224725' })
  assert.deepEqual(parseTaxNumber('11.222.333/0001-81'), { kind: 'cnpj', value: '11222333000181' })
  assert.deepEqual(parseTaxNumber('12.abc.345/01de-35'), { kind: 'cnpj', value: '12ABC34501DE35' })
})

test('invalid check digits, repeated digits and wrong lengths are rejected', () => {
  for (const bad of ['52998224726', '11111111111', '00000000000', '11222333000182', '00000000000000', '12ABC34501DE36',
    '5299822472', '529982247250', '12ABC34501DEAB', 'ABCDEFGHIJKLMN', '', '5299822472x', '52998224725\u0000']) {
    assert.equal(parseTaxNumber(bad), null, bad)
  }
})

test('masking shows the middle of a CPF and the root of a CNPJ', () => {
  assert.equal(maskTaxNumber('12345678909'), '***.456.789-**')
  assert.equal(maskTaxNumber('12345678000195'), '12.345.678/****-**')
  // One the provider already masked is shown as it came, never masked again into nonsense.
  assert.equal(maskTaxNumber('***.444.777-**'), '***.444.777-**')
  assert.equal(maskTaxNumber('11.222.333/****-**'), '11.222.333/****-**')
  assert.equal(maskTaxNumber('12ABC34501DE35'), '12.ABC.345/****-**')
  assert.equal(maskTaxNumber('123'), '***')
})

test('an EUID is EU followed by 15 digits', () => {
  assert.equal(isEuid('EU123456789012345'), true)
  for (const bad of ['EU12345678901234', 'EU1234567890123456', 'eu123456789012345', 'EX123456789012345', 'EU12345678901234a']) {
    assert.equal(isEuid(bad), false, bad)
  }
})

test('the OpenAPI pattern for tax_number accepts exactly the shapes parseTaxNumber goes on to check the digits of', () => {
  const pattern = new RegExp(taxNumberPattern, 'u')
  const shape = /^(\d{11}|[0-9A-Z]{12}\d{2})$/
  const character = fc.constantFrom(...'0123456789', 'A', 'z', '.', '-', '/', ' ', '\t', '\u00a0', '_', '+')
  fc.assert(fc.property(fc.array(character, { maxLength: 20 }).map((characters) => characters.join('')), (text) => {
    assert.equal(pattern.test(text), shape.test(stripTaxNumber(text)), JSON.stringify(text))
  }), { numRuns: 2000 })
  for (const valid of ['529.982.247-25', '11.222.333/0001-81', '12.abc.345/01de-35']) assert.ok(pattern.test(valid), valid)
})
