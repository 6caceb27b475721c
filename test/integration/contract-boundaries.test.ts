// The merchant OpenAPI document is as strict as the service: each field's boundary values (the
// longest accepted, one longer, patterns met and missed, page sizes in and out of range) are
// judged by the document's own schema, as a generated client would, and sent to the service.
// Both accept, or both refuse and the service answers the field's catalogue code; never a 5xx.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import AjvCompiler from '@fastify/ajv-compiler'
import { generateCnpj, generateCpf } from '@brazilian-utils/brazilian-utils'
import { createPaymentFieldCodes } from '../../src/http/schemas.ts'
import { startTestService, type TestService } from '../support/harness.ts'

type Validate = (value: unknown) => boolean
// A JSON Schema validator with no coercion, as a client checks what it sends.
const compile = AjvCompiler()({}, { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false } }) as unknown as (route: { schema: object }) => Validate

let service: TestService
let token: string
let euid: string
let document: Record<string, any>
before(async () => {
  service = await startTestService({ RATE_LIMIT_PER_MINUTE: '0' })
  token = (await service.merchant('bounds@example.com', '52998224725')).token
  euid = (await service.sandbox!.fake.endUser(generateCpf(), 'Payer')).euid
  document = (await service.request({ method: 'GET', url: '/openapi.json' })).body
})
after(() => service?.close())

/** The service's verdict: accepted, or refused with a catalogue code (the status says which family). */
async function send(request: { method: string; url: string; body?: unknown }): Promise<{ accepted: boolean; status: number; code?: string; param?: string }> {
  const response = await service.request({ ...request, token })
  assert.ok(response.status < 500, `${request.method} ${request.url} ${JSON.stringify(request.body)?.slice(0, 200)}: ${response.status} ${JSON.stringify(response.body)}`)
  return { accepted: response.status === 200, status: response.status, code: response.body.code, param: response.body.param }
}

const long = (length: number, tail = '') => 'a'.repeat(length - tail.length) + tail
const validCpf = '111.444.777-35'

test('create-payment: each field\'s boundaries are judged alike by the document and the service', async () => {
  const schema = document.components.schemas.CreatePaymentRequest
  const valid = compile({ schema })
  const byEuid = { value: '10.00', email: 'buyer@example.com', euid }
  const byTaxNumber = { value: '10.00', email: 'buyer@example.com', tax_number: validCpf, payer_name: 'Ana Souza' }
  const cases: Array<[field: string, base: Record<string, unknown>, value: unknown, accepted: boolean]> = [
    ['value', byEuid, `${'0'.repeat(27)}10.00`, true],
    ['value', byEuid, `${'0'.repeat(28)}10.00`, false],
    ['email', byEuid, `${long(64)}@${long(60)}.${long(60)}.${long(60)}.${long(6, 'com')}`, true],
    ['email', byEuid, `${long(64)}@${long(60)}.${long(60)}.${long(60)}.${long(7, 'com')}`, false],
    ['euid', byEuid, euid, true],
    ['euid', byEuid, euid.slice(0, -1), false],
    ['euid', byEuid, `${euid}0`, false],
    ['euid', byEuid, euid.toLowerCase(), false],
    ['euid', byEuid, `${euid.slice(0, -1)}X`, false],
    ['tax_number', byTaxNumber, '11144477735', true],
    ['tax_number', byTaxNumber, validCpf, true],
    ['tax_number', byTaxNumber, ` 111 444 777 35${' '.repeat(17)}`, true],
    ['tax_number', byTaxNumber, ` 111 444 777 35${' '.repeat(18)}`, false],
    ['tax_number', byTaxNumber, generateCnpj(), true],
    ['tax_number', byTaxNumber, '12.abc.345/01de-35', true],
    ['tax_number', byTaxNumber, '12ABC34501DE3X', false],
    ['tax_number', byTaxNumber, '1114447773', false],
    ['tax_number', byTaxNumber, '111444777350', false],
    ['tax_number', byTaxNumber, '111.444.777_35', false],
    ['payer_name', byTaxNumber, long(100), true],
    ['payer_name', byTaxNumber, long(101), false],
    ['payer_name', byTaxNumber, '😀'.repeat(100), true],
    ['payer_name', byTaxNumber, '😀'.repeat(101), false],
    ['payer_name', byTaxNumber, '\tAna Souza\u00a0', true],
    ['payer_name', byTaxNumber, '', false],
    ['payer_name', byTaxNumber, '   ', false],
    ['payer_name', byTaxNumber, 'Ana\tSouza', false],
    ['payer_name', byTaxNumber, 'Ana\u007fSouza', false],
    ['webhook_url', byEuid, `http://127.0.0.1/${long(2031)}`, true],
    ['webhook_url', byEuid, `http://127.0.0.1/${long(2032)}`, false],
    ['webhook_secret', byEuid, long(255), true],
    ['webhook_secret', byEuid, long(256), false],
    ['webhook_secret', byEuid, ' ', false],
    ['webhook_secret', byEuid, 'a\u0001b', false],
    ['webhook_events', { ...byEuid, webhook_url: 'http://127.0.0.1/hooks' }, ['payment.expired', 'payment.held'], true],
    ['webhook_events', { ...byEuid, webhook_url: 'http://127.0.0.1/hooks' }, ['payment.expired', 'payment.expired'], false],
    ['webhook_events', { ...byEuid, webhook_url: 'http://127.0.0.1/hooks' }, ['payment.paid'], false],
  ]
  for (const [field, base, value, accepted] of cases) {
    const body = { ...base, [field]: value }
    const label = `${field} ${JSON.stringify(value).slice(0, 40)}… (${typeof value === 'string' ? [...value].length : ''})`
    assert.equal(valid(body), accepted, `the document ${accepted ? 'refuses' : 'accepts'} ${label}`)
    const verdict = await send({ method: 'POST', url: '/api/create-payment', body })
    assert.equal(verdict.accepted, accepted, `the service ${accepted ? 'refuses' : 'accepts'} ${label}: ${JSON.stringify(verdict)}`)
    if (!accepted) assert.deepEqual([verdict.status, verdict.code, verdict.param], [400, createPaymentFieldCodes[field], field], label)
  }
})

test('the one rule the document leaves to the service: CPF/CNPJ check digits, refused with tax_number_invalid', async () => {
  const body = { value: '10.00', email: 'buyer@example.com', tax_number: '111.444.777-36', payer_name: 'Ana Souza' }
  assert.equal(compile({ schema: document.components.schemas.CreatePaymentRequest })(body), true)
  assert.deepEqual(await send({ method: 'POST', url: '/api/create-payment', body }), { accepted: false, status: 400, code: 'tax_number_invalid', param: 'tax_number' })
})

test('limit: an integer from 1 to 100 in the document, and the same in the query string', async () => {
  for (const path of ['/api/payments', '/api/withdrawals']) {
    const parameter = (document.paths[path].get.parameters as Array<{ name: string; schema: object }>).find((each) => each.name === 'limit')!
    assert.deepEqual(parameter.schema, { type: 'integer', minimum: 1, maximum: 100 })
    const valid = compile({ schema: parameter.schema })
    for (const [limit, accepted] of [[1, true], [100, true], [0, false], [101, false], [-1, false], [2.5, false], ['ten', false], ['', false]] as const) {
      assert.equal(valid(limit), accepted, `the document on ${path} limit ${limit}`)
      const verdict = await send({ method: 'GET', url: `${path}?limit=${limit}` })
      assert.equal(verdict.accepted, accepted, `${path}?limit=${limit}: ${JSON.stringify(verdict)}`)
      if (!accepted) assert.deepEqual([verdict.status, verdict.code, verdict.param], [400, 'invalid_request', 'limit'])
    }
  }
})
