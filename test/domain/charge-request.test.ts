import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import AjvCompiler from '@fastify/ajv-compiler'
import { freeTextPattern, parseChargeRequest, parseWebhookUrl, webhookUrlPattern, type ChargeRequestInput } from '../../src/domain/charge-request.ts'
import { DomainError } from '../../src/domain/errors.ts'
import { brlValuePattern, parseBrlToCents } from '../../src/domain/money.ts'

const base: ChargeRequestInput = { value: '10.00', email: 'Customer@Example.com', tax_number: '111.444.777-35' }
const parse = (changes: Partial<ChargeRequestInput>, publicWebhooksOnly = false) =>
  parseChargeRequest({ ...base, ...changes } as ChargeRequestInput, { publicWebhooksOnly })

function code(changes: Partial<ChargeRequestInput>, publicWebhooksOnly = false): string {
  try {
    parse(changes, publicWebhooksOnly)
    return 'ok'
  } catch (error) {
    assert.ok(error instanceof DomainError)
    return `${error.code}:${error.param}`
  }
}

test('a valid request is normalized: cents, lower-case e-mail, DEPIX default, bare tax number', () => {
  assert.deepEqual(parse({}), {
    valueCents: 1000, email: 'customer@example.com', currency: 'DEPIX', euid: null, taxNumber: '11144477735',
    payerName: null, webhookUrl: null, webhookSecret: null, webhookEvents: [], metadata: null, returnUrl: null,
  })
})

test('each rule answers its own code and names the field', () => {
  assert.equal(code({ value: '10.001' }), 'value_invalid:value')
  assert.equal(code({ value: '9.99' }), 'value_out_of_range:value')
  assert.equal(code({ value: '5000.01', euid: 'EU123456789012345' }), 'value_out_of_range:value')
  assert.equal(code({ value: '19.99', swap_to: 'BTC', euid: 'EU123456789012345' }), 'value_out_of_range:value')
  assert.equal(code({ value: '20.00', swap_to: 'BTC', euid: 'EU123456789012345' }), 'ok')
  assert.equal(code({ tax_number: '11144477736' }), 'tax_number_invalid:tax_number')
  assert.equal(code({ tax_number: undefined, euid: 'EU12' }), 'euid_invalid:euid')
  assert.equal(code({ tax_number: undefined }), 'payer_identity_required:euid')
  assert.equal(code({ value: '10.01' }), 'euid_required:euid')
  assert.equal(code({ value: '10.01', euid: 'EU123456789012345' }), 'ok')
  assert.equal(code({ payer_name: '  ' }), 'payer_name_invalid:payer_name')
  assert.equal(code({ payer_name: 'Ana\nMaria' }), 'payer_name_invalid:payer_name')
  assert.equal(code({ webhook_url: 'not a url' }), 'webhook_url_invalid:webhook_url')
  assert.equal(code({ webhook_url: 'ftp://example.com/x' }), 'webhook_url_invalid:webhook_url')
  assert.equal(code({ webhook_url: 'https://user:pw@example.com/x' }), 'webhook_url_invalid:webhook_url')
  assert.equal(code({ webhook_url: 'http://127.0.0.1:9/x' }), 'ok')
  assert.equal(code({ webhook_url: 'http://example.com/x' }, true), 'webhook_url_invalid:webhook_url')
  assert.equal(code({ webhook_url: 'https://example.com/x' }, true), 'ok')
  assert.equal(code({ webhook_secret: '' }), 'webhook_secret_invalid:webhook_secret')
})

test('tax_number alone never lifts the R$ 10,00 limit; the alphanumeric CNPJ is accepted', () => {
  assert.equal(code({ value: '10.00', tax_number: '12ABC34501DE35' }), 'ok')
  assert.equal(code({ value: '11.00', tax_number: '12ABC34501DE35' }), 'euid_required:euid')
})

test('the OpenAPI pattern for payer_name and webhook_secret accepts exactly the texts the rule keeps', () => {
  const pattern = new RegExp(freeTextPattern, 'u')
  const character = fc.constantFrom('a', ' ', '\t', '\n', '\u0007', '\u007f', '\u00a0', '\u2028', '\ufeff', '😀')
  fc.assert(fc.property(fc.array(character, { maxLength: 12 }).map((characters) => characters.join('')), (text) => {
    assert.equal(pattern.test(text), code({ payer_name: text }) === 'ok', JSON.stringify(text))
    assert.equal(pattern.test(text), code({ webhook_secret: text }) === 'ok', JSON.stringify(text))
  }), { numRuns: 2000 })
})

test('payer_name is at most 100 characters, as JSON Schema counts them (code points, not UTF-16 units)', () => {
  assert.equal(code({ payer_name: '😀'.repeat(100) }), 'ok')
  assert.equal(code({ payer_name: '😀'.repeat(101) }), 'payer_name_invalid:payer_name')
  assert.equal(code({ payer_name: ` ${'a'.repeat(100)} ` }), 'ok')
})

test('the OpenAPI pattern for value as text accepts exactly the amounts the service reads', () => {
  const pattern = new RegExp(brlValuePattern)
  const character = fc.constantFrom('0', '1', '9', '.', ',', ' ', '-', '+', 'e', '١')
  fc.assert(fc.property(fc.array(character, { maxLength: 8 }).map((characters) => characters.join('')), (text) => {
    assert.equal(pattern.test(text), parseBrlToCents(text) !== null, JSON.stringify(text))
  }), { numRuns: 3000 })
})

test('a webhook_url the OpenAPI schema accepts (format uri and its pattern) is one the service accepts', () => {
  // Ajv with its formats, as the service and a client validate the document's schema.
  const compile = AjvCompiler()({}, { customOptions: {} }) as unknown as (route: { schema: object }) => (value: unknown) => boolean
  const schemaAccepts = compile({ schema: { type: 'string', format: 'uri', pattern: webhookUrlPattern } })
  const piece = fc.constantFrom('http', 'https', 'HTTPS', 'ftp', ':', '/', '//', 'h', 'h.io', '127.0.0.1', '[::1]', '@', 'u:p@', ':80', ':x', '?q=1', '#f', ' ', '%20', '%zz', 'é', '\\')
  fc.assert(fc.property(fc.array(piece, { maxLength: 7 }).map((pieces) => pieces.join('')), (text) => {
    if (!schemaAccepts(text)) return
    assert.doesNotThrow(() => parseWebhookUrl(text, false), JSON.stringify(text))
  }), { numRuns: 5000 })
  for (const url of ['http://h.io/hooks', 'https://127.0.0.1:8443/a?b#c', 'http://[::1]/x']) assert.ok(schemaAccepts(url), url)
})
