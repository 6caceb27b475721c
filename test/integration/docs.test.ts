// The OpenAPI document is generated from the routes' own schemas: every public route is in it,
// every path in it answers in the running service, and each lists the error codes it can answer.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { errorCatalogue } from '../../src/domain/errors.ts'
import { startTestService, type TestService } from '../support/harness.ts'

let service: TestService
before(async () => {
  service = await startTestService()
})
after(() => service.close())

test('/openapi.json is OpenAPI 3.1 and matches the running routes both ways', async () => {
  const document = (await service.request({ method: 'GET', url: '/openapi.json' })).body
  assert.equal(document.openapi, '3.1.0')
  const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
  )
  for (const route of ['POST /api/create-payment', 'GET /api/get-payment/{payment_id}', 'GET /api/get-balance', 'GET /api/qr/{file}',
    'GET /api/webhook-deliveries', 'POST /api/webhook-deliveries/{id}/redeliver', 'GET /healthz', 'GET /readyz',
    'POST /provider/webhooks/deposit', 'POST /provider/webhooks/med', 'GET /ops/holds', 'POST /ops/payments/{id}/review',
    'POST /sandbox/accounts', 'POST /sandbox/payments/{id}/pay', 'POST /sandbox/clock']) {
    assert.ok(documented.includes(route), `${route} is missing from the document`)
  }
  // Every documented path is a real route: it never answers the router's not_found.
  for (const entry of documented) {
    const [method, path] = entry.split(' ') as [string, string]
    const url = path.replace(/\{[^}]+\}/g, 'x')
    const response = await service.app.inject({ method: method as 'GET', url })
    assert.notEqual(response.json().code, 'not_found', `${entry} is documented but not served`)
  }
  const createErrors = document.paths['/api/create-payment'].post.responses
  // The shared Error, narrowed to the codes this operation answers.
  const codesOf = (status: string) => createErrors[status].content['application/json'].schema.allOf[1].properties.code.enum as string[]
  assert.deepEqual(createErrors['403'].content['application/json'].schema.allOf[0], { $ref: '#/components/schemas/Error' })
  assert.deepEqual(codesOf('403').sort(),
    ['end_user_blocked', 'merchant_id_missing', 'token_inactive', 'token_pending'])
  assert.ok(codesOf('400').includes('euid_required'))
  assert.ok(document.components.schemas.CreatePaymentRequest.properties.swap_to)
})

test('/docs is the human page every docs_url points to: statuses, every error code, webhooks', async () => {
  const page = await service.request({ method: 'GET', url: '/docs' })
  assert.equal(page.status, 200)
  assert.match(String(page.headers['content-type']), /text\/html/)
  for (const code of Object.keys(errorCatalogue)) assert.ok(page.body.includes(`<code>${code}</code>`), code)
  for (const text of ['security_hold', 'after7d', 'X-Webhook-Signature', 'webhook-id', 'hmac.compare_digest']) assert.ok(page.body.includes(text), text)
  const error = await service.request({ method: 'GET', url: '/api/get-balance' })
  assert.equal(new URL(error.body.docs_url).pathname, '/docs')
})
