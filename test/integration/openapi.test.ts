// Integration runner: pglite only (every test here skips on PostgreSQL).
// The OpenAPI documents as an integrator's tools see them: Redocly's linter finds no error in any,
// the merchant's holds the merchant API and nothing else, and a program written against the types
// openapi-typescript generates from it compiles, with named schemas, the Idempotency-Key header,
// per-operation error codes and the webhook bodies; the SDK's generated types are those.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sdkTypesFile, sdkTypesSource } from '../../scripts/sdk-types.ts'
import { formatBrl, formatBtc, formatUsdt } from '../../src/domain/money.ts'
import { documentAudiences, documentPath, type DocumentName } from '../../src/http/openapi.ts'
import { skipOnSecondDatabase, startTestService, type TestService } from '../support/harness.ts'

const skip = skipOnSecondDatabase
let service: TestService
const documents = {} as Record<DocumentName, Record<string, any>>
let document: Record<string, any>
const names = Object.keys(documentAudiences) as DocumentName[]
const folder = mkdtempSync(join(tmpdir(), 'openapi-'))
const bin = (name: string) => join(import.meta.dirname, '../../node_modules/.bin', name)

before(async () => {
  if (skip) return
  service = await startTestService()
  for (const name of names) {
    documents[name] = (await service.request({ method: 'GET', url: documentPath(name) })).body
    writeFileSync(join(folder, `${name}.json`), JSON.stringify(documents[name]))
  }
  document = documents.merchant
})
after(async () => {
  await service?.close()
  rmSync(folder, { recursive: true, force: true })
})

test('every route\'s validators and serializers compile (the service compiles each on its route\'s first use)', { skip }, () => {
  // 53 validators and 408 serializers when compiling moved to first use (2026-11-26), the sandbox's routes besides.
  assert.ok(service.app.compileSchemas() >= 461)
})

test('@redocly/cli lint: no errors in any document (the warnings left are justified in docs/api-contract.md)', { skip }, () => {
  // One run for the four documents: a run of its own each cost 2 s of CPU, most of it redocly's start.
  const result = spawnSync(bin('redocly'), ['lint', '--format=json', ...names.map((name) => join(folder, `${name}.json`))], {
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  })
  // It writes a report for each document, in their order, one JSON object after the other.
  const parts = result.stdout.slice(result.stdout.indexOf('{')).split(/\n\}\{\n/)
  const reports = parts.map((part, i) => JSON.parse(`${i > 0 ? '{\n' : ''}${part}${i < parts.length - 1 ? '\n}' : ''}`))
  assert.equal(reports.length, names.length, result.stdout)
  type Problem = { ruleId: string; severity: string; location: Array<{ pointer: string; source: { ref: string } }> }
  for (const [i, name] of names.entries()) {
    const problems = reports[i].problems as Problem[]
    assert.ok(problems.every((problem) => problem.location[0]?.source.ref.endsWith(`${name}.json`)), `${name}: its report names it`)
    assert.deepEqual(problems.filter((problem) => problem.severity === 'error'), [], name)
    // Only /healthz and /readyz lack a 4xx: they have none to answer.
    assert.deepEqual(
      problems.map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}`).sort(),
      name === 'merchant' ? ['operation-4xx-response #/paths/~1healthz/get/responses', 'operation-4xx-response #/paths/~1readyz/get/responses'] : [],
      name,
    )
  }
})

test('each audience has a document of its own: the merchant client sees no operator, provider or sandbox path', { skip }, async () => {
  const prefixes: Record<DocumentName, RegExp> = { merchant: /^\/(api\/|healthz$|readyz$)/, operator: /^\/ops\//, provider: /^\/provider\//, sandbox: /^\/sandbox\// }
  for (const name of names) {
    const paths = Object.keys(documents[name].paths)
    assert.ok(paths.length > 0, name)
    assert.deepEqual(paths.filter((path) => !prefixes[name].test(path)), [], `${name} holds only its own paths`)
    const used = new Set(Object.values(documents[name].paths as Record<string, Record<string, any>>).flatMap((methods) => Object.values(methods).flatMap((operation) => operation.security.flatMap(Object.keys))))
    assert.deepEqual(Object.keys(documents[name].components.securitySchemes).sort(), [...used].sort(), `${name} defines the security schemes it uses`)
    assert.equal(Boolean(documents[name].webhooks), name === 'merchant', `${name} webhooks`)
    for (const other of names.filter((other) => other !== name)) assert.match(documents[name].info.description, new RegExp(documentPath(other).replace('.', '\\.')))
  }
  // Together they are every documented route, once.
  const whole = (service.app.swagger() as unknown as { paths: Record<string, Record<string, unknown>> }).paths
  const operations = (paths: Record<string, Record<string, unknown>>) => Object.entries(paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`))
  assert.deepEqual(names.flatMap((name) => operations(documents[name].paths)).sort(), operations(whole).sort())
  assert.equal((await service.request({ method: 'GET', url: '/openapi/nobody.json' })).body.code, 'not_found')
})

test('the documents name their schemas, audiences, retries and webhooks', { skip }, () => {
  assert.deepEqual(Object.keys(document.components.schemas).sort(), [
    'BalanceRecord', 'BalanceTransactionList', 'ChargeCreated', 'ChargeRecord', 'CreatePaymentRequest', 'CreateRefundRequest', 'CreateWithdrawalRequest', 'DestinationList', 'Error', 'PaymentList', 'RefundList', 'RefundRecord', 'WebhookBody', 'WebhookDeliveries',
    'WithdrawalList', 'WithdrawalRecord', 'WithdrawalWebhookBody',
  ])
  const operations = names.flatMap((name) => Object.entries(documents[name].paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  ))
  const securityOf = (path: string) =>
    path.startsWith('/api/qr/') || path.startsWith('/sandbox/') || path === '/healthz' || path === '/readyz' ? []
    : path.startsWith('/api/') ? [{ apiToken: [] }]
    : path.startsWith('/ops/') ? [{ operator: [] }]
    : [{ provider: [] }]
  for (const { path, method, operation } of operations) {
    assert.ok(operation.operationId && operation.summary, `${method} ${path} has an operationId and a summary`)
    assert.deepEqual(operation.security, securityOf(path), `${method} ${path} security`)
    for (const status of ['429', '503']) {
      if (operation.responses[status]) assert.ok(operation.responses[status].headers['Retry-After'], `${method} ${path} ${status} has Retry-After`)
    }
  }
  assert.equal(new Set(operations.map(({ operation }) => operation.operationId)).size, operations.length)
  // Every operation shows what it answers, with an example (the QR image is a PNG).
  for (const { path, method, operation } of operations.filter(({ path }) => !path.startsWith('/api/qr/'))) {
    assert.ok(operation.responses['200'].content['application/json'].example, `${method} ${path} has an example`)
  }
  assert.ok(document.paths['/api/create-payment'].post.responses['429'])
  assert.ok(document.paths['/api/create-payment'].post.responses['503'])
  assert.deepEqual(Object.keys(document.webhooks).sort(), [
    'balance.released', 'payment.confirmed', 'payment.disputed', 'payment.expired', 'payment.held', 'payment.refunded', 'payment.under_review', 'refund.completed', 'refund.created', 'refund.failed',
    'withdrawal.canceled', 'withdrawal.completed', 'withdrawal.confirmed', 'withdrawal.failed', 'withdrawal.in_review', 'withdrawal.sending', 'withdrawal.sent',
  ])
  assert.deepEqual(document.webhooks['withdrawal.sent'].post.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/WithdrawalWebhookBody' })
  assert.match(document.components.schemas.ChargeRecord.properties.amount.description, /centavos/)
  assert.match(document.components.schemas.CreatePaymentRequest.properties.value.description, /BRL/)
})

test('the balance example reads as the service writes balances (USDt in 10^-6 units)', { skip }, () => {
  const example = document.components.schemas.BalanceRecord.examples[0].balances
  assert.equal(example.DEPIX.available_brl, formatBrl(example.DEPIX.available_cents))
  assert.equal(example.BTC.available_btc, formatBtc(example.BTC.available_sats))
  assert.equal(example.USDt.available_USDt, formatUsdt(example.USDt.available_cents_USDt))
  assert.match(document.components.schemas.BalanceRecord.properties.balances.properties.USDt.properties.available_cents_USDt.description, /10\^-6/)
})

test('a program typed by openapi-typescript from the merchant document compiles, and a wrong one does not', { skip }, () => {
  execFileSync(bin('openapi-typescript'), [join(folder, 'merchant.json'), '-o', join(folder, 'api.ts')], { stdio: 'pipe' })
  const program = (extra: string) => `
import type { components, paths, webhooks } from './api.ts'
type Create = paths['/api/create-payment']['post']
const body: Create['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never = {
  value: '25.00', email: 'store@example.com', euid: 'EU123456789012345', webhook_url: 'https://store.example/hooks', webhook_events: ['payment.expired'],
}
const headers: NonNullable<Create['parameters']['header']> = { 'idempotency-key': 'order-1' }
const created: components['schemas']['ChargeCreated'] = { id: 'a', qrCopyPaste: 'b', qrImageUrl: 'c', payUrl: 'e', expiresAt: 'd', status: 'waiting_payment' }
const refused: Create['responses'][400]['content']['application/json']['code'] = 'euid_required'
const limited: Create['responses'][429]['content']['application/json']['code'] = 'rate_limited'
const status: components['schemas']['ChargeRecord']['status'] = 'after7d'
const balance: components['schemas']['BalanceRecord']['balances']['DEPIX']['available_cents'] = 1050
const event: components['schemas']['WebhookBody']['event'] = 'payment.disputed'
type Confirmed = NonNullable<webhooks['payment.confirmed']['post']>
const hook: Confirmed['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never = {
  payment_id: 'a', email: 'store@example.com', value_in_cents: 2500, paid_in_cents: 2500, payer_euid: null, event: 'payment.confirmed', status: 'depix_sent', hold_reason: null, metadata: {},
}
const page: paths['/api/payments']['get']['responses'][200]['content']['application/json'] = { payments: [], next_cursor: null }
// A page size is a number to a typed client (the query string carries it as text).
const query: NonNullable<paths['/api/payments']['get']['parameters']['query']> = { limit: 2, status: 'expired' }
export const all = [body, headers, created, refused, limited, status, balance, event, hook, page, query]
${extra}
`
  const compile = (source: string) => {
    writeFileSync(join(folder, 'program.ts'), source)
    return spawnSync(bin('tsc'), ['--ignoreConfig', '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--allowImportingTsExtensions', '--skipLibCheck', join(folder, 'program.ts')], { encoding: 'utf8' })
  }
  const good = compile(program(''))
  assert.equal(good.status, 0, good.stdout)
  // A code create-payment never answers is a type error: the enum is per operation.
  const bad = compile(program("export const never: paths['/api/create-payment']['post']['responses'][400]['content']['application/json']['code'] = 'payment_not_found'"))
  assert.notEqual(bad.status, 0)
  assert.match(bad.stdout, /payment_not_found/)
})

test('the SDK\'s types are those openapi-typescript generates from the merchant document today (else: npm run sdk:types)', { skip }, async () => {
  assert.equal(readFileSync(sdkTypesFile, 'utf8'), await sdkTypesSource(document), 'sdk/src/openapi.ts is stale: run npm run sdk:types')
})
