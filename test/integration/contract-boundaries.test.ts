// The merchant OpenAPI document is as strict as the service: each field's boundary values (the
// longest accepted, one longer, patterns met and missed, page sizes in and out of range) are
// judged by the document's own schema, as a generated client would, and sent to the service.
// Both accept, or both refuse and the service answers the field's catalogue code; never a 5xx.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import AjvCompiler from '@fastify/ajv-compiler'
import { generateCnpj, generateCpf } from '@brazilian-utils/brazilian-utils'
import { jsonSchemaNextKeywords } from '../../src/http/app.ts'
import { createPaymentFieldCodes } from '../../src/http/schemas.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { confirmedDestination, ownerWithBalance } from '../support/withdrawals.ts'

type Validate = (value: unknown) => boolean
// A JSON Schema validator with no coercion, as a client checks what it sends; it knows the
// 2019+ keywords an OpenAPI 3.1 document may use (dependentRequired).
const compile = AjvCompiler()({}, { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false }, plugins: [jsonSchemaNextKeywords] }) as unknown as (route: { schema: object }) => Validate

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
async function send(request: { method: string; url: string; body?: unknown; headers?: Record<string, string>; token?: string }): Promise<{ accepted: boolean; status: number; code?: string; param?: string }> {
  const response = await service.request({ token, ...request })
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
    ['value', byEuid, '10.5', true],
    ['value', byEuid, 10.5, true],
    ['value', byEuid, '10,00', false],
    ['value', byEuid, '10.505', false],
    ['value', byEuid, ' 10.00', false],
    ['value', byEuid, '1e3', false],
    ['value', byEuid, -10, false],
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
    ['webhook_url', byEuid, 'HTTP://127.0.0.1:8080/hooks?shop=1#x', true],
    ['webhook_url', byEuid, 'not a url', false],
    ['webhook_url', byEuid, '/hooks', false],
    ['webhook_url', byEuid, 'ftp://127.0.0.1/hooks', false],
    ['webhook_url', byEuid, 'http:/127.0.0.1/hooks', false],
    ['webhook_url', byEuid, 'http://user:pw@127.0.0.1/hooks', false],
    ['webhook_url', byEuid, 'http://:80/hooks', false],
    ['webhook_url', byEuid, 'http://127.0.0.1/a b', false],
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

test('create-payment: the rules across fields are in the document too (one of euid and tax_number; webhook_events needs webhook_url)', async () => {
  const valid = compile({ schema: document.components.schemas.CreatePaymentRequest })
  const cases: Array<[label: string, body: Record<string, unknown>, refusal: [code: string, param: string] | null]> = [
    ['neither euid nor tax_number', { value: '10.00', email: 'buyer@example.com' }, ['payer_identity_required', 'euid']],
    ['tax_number without euid', { value: '10.00', email: 'buyer@example.com', tax_number: validCpf, payer_name: 'Ana Souza' }, null],
    ['a tax_number of the wrong type, no euid', { value: '10.00', email: 'buyer@example.com', tax_number: 11144477735 }, ['tax_number_invalid', 'tax_number']],
    ['both', { value: '10.00', email: 'buyer@example.com', euid, tax_number: validCpf, payer_name: 'Ana Souza' }, null],
    ['webhook_events without webhook_url', { value: '10.00', email: 'buyer@example.com', euid, webhook_events: ['payment.expired'] }, ['webhook_events_invalid', 'webhook_events']],
    ['webhook_url without webhook_events', { value: '10.00', email: 'buyer@example.com', euid, webhook_url: 'http://127.0.0.1/hooks' }, null],
  ]
  for (const [label, body, refusal] of cases) {
    assert.equal(valid(body), refusal === null, `the document on ${label}`)
    const verdict = await send({ method: 'POST', url: '/api/create-payment', body })
    assert.deepEqual(verdict.accepted ? null : [verdict.code, verdict.param], refusal, `the service on ${label}: ${JSON.stringify(verdict)}`)
  }
})

test('Idempotency-Key: its pattern is in the document, and a space inside is printable', async () => {
  const owner = await ownerWithBalance(service, 'keys@example.com', '50.00')
  const destination = await confirmedDestination(service, owner, 'pix', owner.taxNumber)
  await service.advance(24 * 3600)
  const creates = [
    { url: '/api/create-payment', body: (n: number) => ({ value: `10.${String(n).padStart(2, '0')}`, email: 'buyer@example.com', euid }), token },
    { url: '/api/withdrawals', body: () => ({ currency: 'DEPIX', amount: 205, destination_id: destination }), token: owner.token },
  ]
  let n = 0
  for (const create of creates) {
    const parameter = (document.paths[create.url].post.parameters as Array<{ name: string; in: string; schema: object }>).find((each) => each.in === 'header' && /^idempotency-key$/i.test(each.name))!
    assert.ok(parameter, `${create.url} documents Idempotency-Key`)
    const valid = compile({ schema: parameter.schema })
    for (const [key, accepted] of [['pedido 1042', true], ['order-1042', true], [long(255), true], ['a  b', true], [long(256), false], ['a\tb', false], ['', false]] as const) {
      assert.equal(valid(key), accepted, `the document on ${create.url} Idempotency-Key ${JSON.stringify(key).slice(0, 20)}`)
      const verdict = await send({ method: 'POST', url: create.url, body: create.body(n++), headers: { 'idempotency-key': key }, token: create.token })
      assert.equal(verdict.accepted, accepted, `${create.url} Idempotency-Key ${JSON.stringify(key).slice(0, 20)}: ${JSON.stringify(verdict)}`)
      if (!accepted) assert.deepEqual([verdict.status, verdict.code, verdict.param], [400, 'idempotency_key_invalid', 'Idempotency-Key'])
    }
  }
})

test('create-withdrawal: a type error names amount; each field\'s boundaries are judged alike', async () => {
  const owner = await ownerWithBalance(service, 'amounts@example.com', '50.00')
  const destination = await confirmedDestination(service, owner, 'pix', owner.taxNumber)
  await service.advance(24 * 3600)
  const valid = compile({ schema: document.components.schemas.CreateWithdrawalRequest })
  // R$ 2,05: the least a Pix key can be sent, R$ 2,00 reaching the provider after our 2 %.
  const base = { currency: 'DEPIX', amount: 205, destination_id: destination }
  const cases: Array<[field: string, value: unknown, refusal: [code: string, status: number] | null]> = [
    ['amount', 205, null],
    ['amount', 'abc', ['amount_invalid', 400]],
    ['amount', '1000', ['amount_invalid', 400]],
    ['amount', 500.5, ['amount_invalid', 400]],
    ['amount', null, ['amount_invalid', 400]],
    ['amount', 0, ['amount_below_minimum', 400]],
    ['amount', -5, ['amount_below_minimum', 400]],
    ['currency', 'BRL', ['currency_invalid', 400]],
    ['destination_id', '$ID', ['destination_not_found', 404]],
    ['destination_id', 'dst_000000000000000000000000', ['destination_not_found', 404]],
    ['webhook_url', 'http://127.0.0.1/hooks', null],
    ['webhook_url', 'not a url', ['webhook_url_invalid', 400]],
    ['webhook_url', 'http://user:pw@127.0.0.1/hooks', ['webhook_url_invalid', 400]],
    ['webhook_secret', long(255), null],
    ['webhook_secret', '', ['webhook_secret_invalid', 400]],
    ['webhook_secret', ' ', ['webhook_secret_invalid', 400]],
    ['webhook_secret', 'a\u0001b', ['webhook_secret_invalid', 400]],
  ]
  for (const [field, value, refusal] of cases) {
    const body = { ...base, [field]: value }
    const label = `${field} ${JSON.stringify(value)?.slice(0, 40)}`
    // One rule the document leaves to the service: whether a well-formed destination id is the account's.
    const documentAccepts = refusal === null || (field === 'destination_id' && value === 'dst_000000000000000000000000')
    assert.equal(valid(body), documentAccepts, `the document ${documentAccepts ? 'refuses' : 'accepts'} ${label}`)
    const verdict = await send({ method: 'POST', url: '/api/withdrawals', body, token: owner.token })
    assert.deepEqual(verdict.accepted ? null : [verdict.code, verdict.status, verdict.param], refusal === null ? null : [...refusal, field], `the service on ${label}: ${JSON.stringify(verdict)}`)
  }
})

test('ids: a malformed one is refused, by the document and the service alike, and an empty one never lists', async () => {
  const deliveries = (document.paths['/api/webhook-deliveries'].get.parameters as Array<{ name: string; schema: object }>).find((each) => each.name === 'payment_id')!
  assert.equal(compile({ schema: deliveries.schema })('$ID'), false, 'the document refuses payment_id=$ID')
  assert.deepEqual(await send({ method: 'GET', url: '/api/webhook-deliveries?payment_id=$ID' }), { accepted: false, status: 400, code: 'invalid_request', param: 'payment_id' })
  assert.equal((await send({ method: 'GET', url: `/api/webhook-deliveries?payment_id=${'0'.repeat(32)}` })).accepted, true)

  const pathId = (path: string, method: string) => compile({ schema: (document.paths[path][method].parameters as Array<{ in: string; schema: object }>).find((each) => each.in === 'path')!.schema })
  for (const [path, method, url, code, param] of [
    ['/api/get-payment/{payment_id}', 'get', '/api/get-payment/$ID', 'payment_not_found', 'payment_id'],
    ['/api/payments/{payment_id}/cancel', 'post', '/api/payments/$ID/cancel', 'payment_not_found', 'payment_id'],
    ['/api/withdrawals/{withdrawal_id}', 'get', '/api/withdrawals/$ID', 'withdrawal_not_found', 'withdrawal_id'],
    ['/api/qr/{file}', 'get', '/api/qr/$ID.png', 'payment_not_found', 'payment_id'],
  ] as const) {
    assert.equal(pathId(path, method)(url.split('/').at(-1) === 'cancel' ? '$ID' : url.split('/').at(-1)), false, `the document refuses ${url}`)
    assert.deepEqual(await send({ method: method.toUpperCase(), url }), { accepted: false, status: 404, code, param }, url)
  }
  // A client that builds /api/withdrawals/${id} with an empty id gets no list in place of a withdrawal.
  assert.deepEqual(await send({ method: 'GET', url: '/api/withdrawals/' }), { accepted: false, status: 404, code: 'withdrawal_not_found', param: 'withdrawal_id' })
  assert.equal((await send({ method: 'GET', url: '/api/withdrawals' })).accepted, true)
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
