// Thousands of generated bodies against create-payment: never a 5xx, and a charge exists only for
// a request an independent reading of the rules accepts.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { startTestService, type TestService } from '../support/harness.ts'

// What is tested here (validation, the error catalogue, what makes a charge) does not depend on
// the database, so npm test's two runs share the work: each tries 1,500 generated bodies and 500
// byte soups from a random seed of its own, 3,000 and 1,000 in all, as when one run did them all.

let service: TestService
let token: string
let knownEuid: string
before(async () => {
  // Thousands of requests from one token: the per-token rate limit is not what is tested here.
  service = await startTestService({ RATE_LIMIT_PER_MINUTE: '0' })
  token = (await service.merchant('fuzz@example.com', '52998224725')).token
  knownEuid = (await service.sandbox!.fake.endUser('11144477735', 'Payer')).euid
})
after(() => service.close())

const validCpfs = ['11144477735', '12345678909', '111.444.777-35']
const fieldValue = fc.oneof(
  fc.constantFrom('10.00', '10', '9.99', '20.00', '499.00', '499.01', '5000.00', '5000.01', '10.001', '-1', '1e1', '', '１０'),
  fc.double(), fc.integer(), fc.string(), fc.string({ unit: 'binary', maxLength: 40 }), fc.boolean(), fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }), fc.object({ maxDepth: 1 }),
)
const wild = fc.record(
  {
    value: fieldValue, email: fieldValue, swap_to: fieldValue, euid: fieldValue, tax_number: fieldValue,
    payer_name: fieldValue, webhook_url: fieldValue, webhook_secret: fieldValue, extra: fieldValue,
  },
  { requiredKeys: [] },
)
const plausible = fc.record(
  {
    value: fc.constantFrom('10.00', '10', 10, 10.5, '9.99', '10.01', '15.50', '20.00', '499.00', '499.01', '5000.01'),
    email: fc.oneof(fc.constantFrom('a@example.com', 'B@Example.COM'), fc.emailAddress()),
    swap_to: fc.constantFrom('DEPIX', 'BTC', 'USDt'),
    euid: fc.constantFrom('KNOWN', 'EU000000000000001'),
    tax_number: fc.constantFrom(...validCpfs, '12ABC34501DE35', '11144477736'),
    payer_name: fc.constant('Ana Maria'),
    webhook_url: fc.constantFrom('http://127.0.0.1:1/h', 'https://example.com/h'),
    webhook_secret: fc.constant('s3cret'),
  },
  { requiredKeys: ['value', 'email'] },
)
const fields = ['value', 'email', 'swap_to', 'euid', 'tax_number', 'payer_name', 'webhook_url', 'webhook_secret', 'extra']
const mutated = fc.tuple(plausible, fc.constantFrom(...fields), fieldValue).map(([record, field, value]) => ({ ...record, [field]: value }))
const body = fc.oneof(plausible, mutated, wild).map((record) => {
  const out: Record<string, unknown> = { ...record }
  if (out.euid === 'KNOWN') out.euid = knownEuid
  return out
})

/**
 * An e-mail address one can write to: RFC 5322's dot-atom before the @ (no quoted local part),
 * and a host name after it, labels of letters, digits and inner hyphens, at least two of them.
 * (Looser, "anything@anything.anything" took a generated "!@!.!" for an address.)
 */
const atext = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
const label = '[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?'
const emailAddress = new RegExp(`^${atext}(?:\\.${atext})*@(?:${label}\\.)+${label}$`)

/** An independent reading of docs/rules.md#charge-creation: what must be accepted. */
function acceptable(input: Record<string, unknown>): boolean {
  const allowed = ['value', 'email', 'swap_to', 'euid', 'tax_number', 'payer_name', 'webhook_url', 'webhook_secret']
  if (Object.keys(input).some((key) => !allowed.includes(key))) return false
  const text = typeof input.value === 'number' ? String(input.value) : input.value
  if (typeof text !== 'string' || !/^\d+(\.\d{1,2})?$/.test(text)) return false
  const cents = Math.round(Number(text) * 100)
  const currency = 'swap_to' in input ? input.swap_to : 'DEPIX'
  if (!['DEPIX', 'BTC', 'USDt'].includes(currency as string)) return false
  if (cents < (currency === 'BTC' ? 2000 : 1000) || cents > 500000) return false
  if (typeof input.email !== 'string' || input.email.length > 254 || !emailAddress.test(input.email)) return false
  if (input.euid === undefined && input.tax_number === undefined) return false
  if (input.euid !== undefined && input.euid !== knownEuid) return false
  if (input.tax_number !== undefined && !(validCpfs.includes(input.tax_number as string) || input.tax_number === '12ABC34501DE35')) return false
  if (input.euid === undefined && cents > 1000) return false
  if (input.euid !== undefined && cents > 49900) return false
  for (const field of ['payer_name', 'webhook_secret']) {
    if (input[field] !== undefined && (typeof input[field] !== 'string' || !/^[^\u0000-\u001f\u007f]+$/u.test((input[field] as string).trim()))) return false
  }
  if (input.webhook_url !== undefined && !['http://127.0.0.1:1/h', 'https://example.com/h'].includes(input.webhook_url as string)) return false
  return true
}

test('generated create-payment bodies never get a 5xx; only acceptable ones create a charge', async () => {
  let created = 0
  let accepted = 0
  await fc.assert(
    fc.asyncProperty(body, async (input) => {
      const response = await service.app.inject({
        method: 'POST', url: '/api/create-payment', headers: { 'x-api-token': token, 'content-type': 'application/json' }, payload: JSON.stringify(input),
      })
      assert.ok(response.statusCode < 500, `${response.statusCode} for ${JSON.stringify(input)}: ${response.body}`)
      const reply = response.json()
      if (response.statusCode === 200) {
        created++
        assert.ok(acceptable(input), `accepted a body the rules refuse: ${JSON.stringify(input)}`)
      } else {
        assert.equal(typeof reply.code, 'string')
        assert.match(reply.code, /^[a-z_]+$/)
      }
      if (acceptable(input)) {
        accepted++
        assert.equal(response.statusCode, 200, `refused an acceptable body ${JSON.stringify(input)}: ${response.body}`)
      }
    }),
    { numRuns: 1500 },
  )
  const stored = await service.database.db.selectFrom('charges').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  assert.equal(stored.n, created)
  assert.equal(created, accepted)
  assert.ok(accepted > 20, `too few acceptable bodies generated (${accepted}) to mean anything`)
})

test('raw byte soup on create-payment never gets a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.json(), fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1'))), async (payload) => {
      const response = await service.app.inject({ method: 'POST', url: '/api/create-payment', headers: { 'x-api-token': token, 'content-type': 'application/json' }, payload })
      assert.ok(response.statusCode >= 400 && response.statusCode < 500, `${response.statusCode} for ${JSON.stringify(payload)}`)
    }),
    { numRuns: 500 },
  )
})
