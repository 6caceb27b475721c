// Integration runner: pglite only (every test here skips on PostgreSQL).
// The OpenAPI document is generated from the routes' own schemas: every public route is in it,
// every path in it answers in the running service, and each lists the error codes it can answer.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { chargeStatuses } from '../../src/domain/charge.ts'
import { errorAudience, errorCatalogue } from '../../src/domain/errors.ts'
import { FIXED_FEE_CENTS } from '../../src/domain/money.ts'
import { errorFix } from '../../src/i18n/catalogue.ts'
import { skipOnSecondDatabase, startTestService, type TestService } from '../support/harness.ts'
import { parseLiquidAddress } from '../../src/treasury/liquid-address.ts'

let service: TestService
before(async () => {
  if (skipOnSecondDatabase) return
  service = await startTestService({ SANDBOX_PROVIDER_REQUIRE_NAME: 'on' })
})
after(() => service?.close())

test('/openapi.json and the other audiences\' documents are OpenAPI 3.1 and match the running routes both ways', { skip: skipOnSecondDatabase }, async () => {
  const documents = await Promise.all(['/openapi.json', '/openapi/operator.json', '/openapi/provider.json', '/openapi/sandbox.json'].map(async (url) => (await service.request({ method: 'GET', url })).body))
  const document = documents[0]
  for (const each of documents) assert.equal(each.openapi, '3.1.0')
  const documented = documents.flatMap((each) => Object.entries(each.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
  ))
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

test('/docs in Portuguese and English: quick start, every merchant endpoint with curl and examples, webhooks, sandbox', { skip: skipOnSecondDatabase }, async () => {
  const portuguese = await service.request({ method: 'GET', url: '/docs' })
  assert.equal(portuguese.status, 200)
  assert.match(String(portuguese.headers['content-type']), /text\/html/)
  assert.equal(portuguese.headers['content-language'], 'pt-BR')
  assert.match(portuguese.body, /Início rápido/)
  const english = await service.request({ method: 'GET', url: '/docs', headers: { 'accept-language': 'en-US,en;q=0.8' } })
  assert.equal(english.headers['content-language'], 'en')
  assert.match(english.body, /Quick start/)
  assert.equal((await service.request({ method: 'GET', url: '/docs?lang=pt-BR', headers: { 'accept-language': 'en' } })).headers['content-language'], 'pt-BR')
  for (const page of [portuguese.body, english.body]) {
    for (const path of ['/api/create-payment', '/api/get-payment/', '/api/payments', '/api/get-balance', '/api/balance-transactions', '/api/webhook-deliveries', '/redeliver', '/api/qr/']) {
      assert.ok(page.includes(`curl -s`) && page.includes(path), path)
    }
    for (const link of ['/openapi.json', '/openapi/operator.json', '/openapi/provider.json', '/openapi/sandbox.json']) assert.ok(page.includes(`<a href="${link}">`), link)
    for (const text of ['Idempotency-Key', 'webhook_events', 'payment.disputed', 'X-Webhook-Signature', 'webhook-timestamp', 'verifyWebhook', 'hmac.compare_digest', '/sandbox/clock', 'advance_seconds', 'security_hold', 'after7d']) {
      assert.ok(page.includes(text), text)
    }
  }
})

test('/docs in both languages: the withdrawal endpoints with curl and examples, the concept, the sandbox controls, the webhook events and the error anchors', { skip: skipOnSecondDatabase }, async () => {
  const token = (await service.merchant('docs-out@example.com', '52998224725')).token
  const refused = await service.request({ method: 'POST', url: '/api/withdrawals', token, body: { currency: 'DEPIX', amount: 10_000, destination_id: 'dst_000000000000000000000000' } })
  assert.equal(new URL(refused.body.docs_url).hash, '#destination_not_found')
  for (const [lang, concept] of [['pt-BR', '<b>Saques</b>'], ['en', '<b>Withdrawals</b>']] as const) {
    const page = (await service.request({ method: 'GET', url: `/docs?lang=${lang}` })).body as string
    const section = (id: string) => {
      const start = page.indexOf(`<section id="${id}">`)
      return start === -1 ? '' : page.slice(start, page.indexOf('</section>', start))
    }
    for (const [id, heading, curl] of [
      ['create-withdrawal', 'POST /api/withdrawals', 'Idempotency-Key: payout-77'],
      ['get-withdrawal', 'GET /api/withdrawals/{id}', '/api/withdrawals/$WITHDRAWAL_ID'],
      ['withdrawals', 'GET /api/withdrawals?status=', '/api/withdrawals?status=completed'],
      ['withdrawal-destinations', 'GET /api/withdrawal-destinations', '/api/withdrawal-destinations -H'],
    ] as const) {
      const text = section(id)
      assert.ok(text.includes(`<code>${heading}`) && text.includes(`curl -s`) && text.includes(curl), `${lang}: ${id}`)
    }
    // The examples are the contract's: the request's destination, the record's amounts, the list's states.
    assert.match(section('create-withdrawal'), /&quot;destination_id&quot;: &quot;dst_5f1c2e3d4b5a69788796a5b4&quot;[\s\S]*&quot;net_amount&quot;: 9800/)
    assert.match(section('withdrawals'), /&quot;next_cursor&quot;: null/)
    assert.match(section('withdrawal-destinations'), /&quot;state&quot;: &quot;active&quot;/)
    assert.ok(page.includes(concept) && page.includes('R$ 6.000,00') && page.includes('<code>in_review</code>'), `${lang}: the withdrawals concept`)
    for (const call of ['GET /sandbox/treasury', 'POST /sandbox/treasury/mine {blocks?}', 'POST /sandbox/withdrawals/{id}/payout', 'GET /sandbox/liquid-address']) assert.ok(page.includes(call), `${lang}: ${call}`)
    // The sandbox withdrawal walk-through, with an address ready to paste that the service accepts.
    const walk = page.slice(page.indexOf('<h3 id="sandbox-withdrawal">'), page.indexOf('<h3 id="sandbox-refund">'))
    // The refunds: their endpoints with the contract's examples, and a worked example whose numbers are the service's.
    assert.match(section('create-refund'), /&quot;amount&quot;: &quot;10.00&quot;[\s\S]*&quot;debit_amount&quot;: 1100/)
    assert.match(section('refunds'), /&quot;refunds&quot;: \[/)
    const refundWalk = page.slice(page.indexOf('<h3 id="sandbox-refund">'), page.indexOf('id="webhooks"'))
    assert.equal((refundWalk.match(/<li>/g) ?? []).length, 5, `${lang}: the refund walk-through's steps`)
    for (const text of ['/api/payments/{id}/refunds', '/sandbox/refunds/{id}/payout', 'insufficient_funds', 'payer_key_not_found', '600']) assert.ok(refundWalk.includes(text), `${lang}: the refund walk-through names ${text}`)
    assert.equal((walk.match(/<li>/g) ?? []).length, 6, `${lang}: the walk-through's steps`)
    for (const text of ['/sandbox/liquid-address', '/sandbox/outbox?email=', '86401', '/api/withdrawals', '/sandbox/treasury/mine']) assert.ok(walk.includes(text), `${lang}: the walk-through names ${text}`)
    assert.ok(parseLiquidAddress(/<code>(el1[0-9a-z]+)<\/code>/.exec(walk)![1]!, 'elementsregtest'), `${lang}: a ready regtest address`)
    const webhooks = page.slice(page.indexOf('id="webhooks"'), page.indexOf('id="statuses"'))
    assert.match(webhooks, /<p id="withdrawal-webhooks">[\s\S]*<code>withdrawal\.completed<\/code>[\s\S]*&quot;withdrawal_id&quot;/)
    const merchantErrors = page.slice(page.indexOf('id="errors"')).split('<h3>')[1]!
    for (const code of ['destination_not_found', 'destination_not_confirmed', 'destination_cooling_down', 'destination_currency_invalid', 'currency_invalid', 'amount_below_minimum',
      'amount_above_maximum', 'insufficient_funds', 'withdrawal_limit_exceeded', 'withdrawal_not_allowed', 'withdrawal_not_found']) {
      assert.ok(merchantErrors.includes(`<tr id="${code}"><td><a href="#${code}">`), `${lang}: ${code}`)
    }
  }
})

test('every error code has its own anchor, in the list of who meets it, with what to do about it, and docs_url points at it', { skip: skipOnSecondDatabase }, async () => {
  for (const lang of ['pt-BR', 'en'] as const) {
    const page = (await service.request({ method: 'GET', url: `/docs?lang=${lang}` })).body as string
    const lists = page.slice(page.indexOf('id="errors"')).split('<h3>').slice(1)
    assert.equal(lists.length, 3)
    for (const code of Object.keys(errorCatalogue) as Array<keyof typeof errorCatalogue>) {
      const list = ['merchant', 'wallet', 'operator'].indexOf(errorAudience(code))
      assert.ok(lists[list]!.includes(`<tr id="${code}">`), `${lang}: ${code} in list ${list}`)
      assert.equal(page.split(`id="${code}"`).length, 2, `${lang}: one anchor for ${code}`)
      // The row's last cell is the fix, its `code` spans as <code>.
      const row = page.slice(page.indexOf(`<tr id="${code}">`), page.indexOf('</tr>', page.indexOf(`<tr id="${code}">`)))
      const fix = row.slice(row.indexOf('>', row.lastIndexOf('<td')) + 1, row.lastIndexOf('</td>'))
      assert.equal(unescapeHtml(fix.replace(/<\/?code>/g, '`')), errorFix(code, lang), `${lang}: the fix of ${code}`)
    }
  }
  assert.equal(errorAudience('ops_token_invalid'), 'operator')
  assert.equal(errorAudience('csrf_invalid'), 'wallet')
  assert.equal(errorAudience('euid_required'), 'merchant')
  const error = await service.request({ method: 'GET', url: '/api/get-balance' })
  const docsUrl = new URL(error.body.docs_url)
  assert.equal(docsUrl.pathname, '/docs')
  assert.equal(docsUrl.hash, '#token_missing')
})

/** Runs a printed shell script against this process's service (asynchronously: the service answering it runs here). */
async function runAsPrinted(script: string, on: TestService): Promise<string> {
  const port = (on.app.server.address() as AddressInfo).port
  const result = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script.replace(/^BASE=.*$/m, `BASE=http://127.0.0.1:${port}`)], { encoding: 'utf8', timeout: 60_000 })
  assert.doesNotMatch(result.stdout, /"docs_url"/, 'an error answer was printed')
  return result.stdout
}

/** The statuses a script's comments promise (`| field status   # depix_sent`), in order. */
const promisedStatuses = (script: string) => [...script.matchAll(/\| field status +# (\w+)/g)].map((match) => match[1])
/** The statuses a run printed, one a line. */
const printedStatuses = (stdout: string) => stdout.split('\n').filter((line) => (chargeStatuses as readonly string[]).includes(line))

/** The shell blocks of /docs in a language: the quick start and every endpoint's curl line. */
async function docsShellBlocks(lang: string): Promise<string[]> {
  const page = (await service.request({ method: 'GET', url: `/docs?lang=${lang}` })).body as string
  return [...page.matchAll(/<pre(?: id="[^"]*")? class="sh">([\s\S]*?)<\/pre>/g)].map((match) => unescapeHtml(match[1]!))
}

/** The README's sh blocks; those of its Sandbox section are the walk-through: the first integration, the lifecycle, the provider delay. */
function readmeShellBlocks(section?: string): string[] {
  let readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  if (section !== undefined) readme = readme.slice(readme.indexOf(`\n## ${section}\n`), readme.indexOf('\n## ', readme.indexOf(`\n## ${section}\n`) + 1))
  return [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!)
}

test('the quick start on /docs runs as printed, twice against the same sandbox', { skip: skipOnSecondDatabase }, async () => {
  const [script] = await docsShellBlocks('en')
  assert.match(script!, /^BASE=/)
  assert.equal(script, (await docsShellBlocks('pt-BR'))[0])
  for (const run of [1, 2]) {
    const stdout = await runAsPrinted(script!, service)
    assert.deepEqual(printedStatuses(stdout), ['depix_sent'], `run ${run}`)
    // jq prints each answer indented; the last one, from its first unindented brace, is the balance.
    const balance = JSON.parse(stdout.slice(stdout.lastIndexOf('\n{') + 1))
    assert.equal(balance.balances.DEPIX.available_cents, 1000 - FIXED_FEE_CENTS, `run ${run}`)
  }
})

test('the README walk-through runs as printed, twice against the same sandbox, each status as its comment says', { skip: skipOnSecondDatabase, timeout: 120_000 }, async () => {
  const [first, lifecycle, delay] = readmeShellBlocks('Sandbox')
  assert.ok(first?.startsWith('BASE=') && lifecycle && delay, 'the Sandbox section has its three blocks')
  assert.deepEqual(promisedStatuses(lifecycle), ['depix_sent', 'after7d', 'depix_sent', 'security_hold', 'security_hold', 'depix_sent'])
  for (const run of [1, 2]) assert.deepEqual(printedStatuses(await runAsPrinted(`${first}\n${lifecycle}`, service)), promisedStatuses(lifecycle), `run ${run}`)
  // The delay block goes on from the first one against a service started as it says.
  assert.match(readFileSync(new URL('../../README.md', import.meta.url), 'utf8'), /start with `PROVIDER_DELAY_HOURS=24\nSANDBOX_PROVIDER_MIN_DELAY_HOURS=24 npm start`/)
  const delayed = await startTestService({ SANDBOX_PROVIDER_REQUIRE_NAME: 'on', PROVIDER_DELAY_HOURS: '24', SANDBOX_PROVIDER_MIN_DELAY_HOURS: '24' })
  try {
    assert.deepEqual(promisedStatuses(delay), ['pending', 'depix_sent'])
    for (const run of [1, 2]) assert.deepEqual(printedStatuses(await runAsPrinted(`${first}\n${delay}`, delayed)), promisedStatuses(delay), `run ${run}`)
  } finally {
    await delayed.close()
  }
})

/**
 * Where a shell script puts `$NAME`, `${…}` or `$(…)` inside single quotes, which the shell
 * passes on as it is: `curl '…?payment_id=$ID'` asks for the id "$ID". Comments are skipped.
 */
function singleQuotedExpansions(script: string): string[] {
  const found: string[] = []
  let quote: "'" | '"' | null = null
  for (let i = 0; i < script.length; i++) {
    const char = script[i]!
    if (quote === "'") {
      if (char === "'") quote = null
      else if (char === '$' && /[A-Za-z_{(]/.test(script[i + 1] ?? '')) found.push(script.slice(script.lastIndexOf('\n', i) + 1, script.indexOf('\n', i) === -1 ? undefined : script.indexOf('\n', i)))
    } else if (char === '\\') i++
    else if (quote === '"') {
      if (char === '"') quote = null
    } else if (char === "'" || char === '"') quote = char
    else if (char === '#' && /(^|\s)$/.test(script.slice(i - 1, i))) i = script.indexOf('\n', i) === -1 ? script.length : script.indexOf('\n', i)
  }
  return found
}

test('no shell snippet on /docs or in the README puts a variable in single quotes', { skip: skipOnSecondDatabase }, async () => {
  assert.deepEqual(singleQuotedExpansions(`curl -s 'http://x/api/webhook-deliveries?payment_id=$ID' -H "X-API-Token: $TOKEN"  # the customer's`),
    [`curl -s 'http://x/api/webhook-deliveries?payment_id=$ID' -H "X-API-Token: $TOKEN"  # the customer's`])
  const blocks = [...(await docsShellBlocks('pt-BR')), ...(await docsShellBlocks('en')), ...readmeShellBlocks()]
  assert.ok(blocks.length > 20 && blocks.some((block) => block.includes('/api/webhook-deliveries?payment_id=$ID')))
  assert.deepEqual(blocks.flatMap(singleQuotedExpansions), [])
})

test('the Python webhook snippet on /docs verifies a real delivery, with plain and whsec_ secrets, and refuses a changed body', { skip: skipOnSecondDatabase }, async () => {
  const received: Array<{ body: string; headers: Record<string, string> }> = []
  const receiver = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => { received.push({ body, headers: request.headers as Record<string, string> }); response.writeHead(204).end() })
  })
  receiver.listen(0, '127.0.0.1')
  await new Promise((resolve) => receiver.once('listening', resolve))
  try {
    const page = (await service.request({ method: 'GET', url: '/docs' })).body as string
    const snippet = unescapeHtml(/<pre id="python-webhook">([\s\S]*?)<\/pre>/.exec(page)![1]!)
    const token = (await service.merchant('py@example.com', '71428793860')).token
    for (const secret of ['plain sécret', 'whsec_' + Buffer.from('python secret of 32 bytes......!').toString('base64')]) {
      const payer = generateCpf()
      const euid = (await service.sandbox!.fake.endUser(payer, 'Payer')).euid
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
      const created = await service.request({ method: 'POST', url: '/api/create-payment', token, body: { value: '12.00', email: 'py@example.com', euid, webhook_url: url, webhook_secret: secret } })
      await service.pay(created.body.id, payer)
      const delivery = received.at(-1)!
      const run = (body: string) => spawnSync('python3', ['-c', `${snippet}\nimport sys\nprint(verify_webhook(sys.stdin.buffer.read(), json.loads(sys.argv[1]), sys.argv[2])["event"])`, JSON.stringify(delivery.headers), secret], { input: body, encoding: 'utf8' })
      const good = run(delivery.body)
      assert.equal(good.status, 0, good.stderr)
      assert.equal(good.stdout.trim(), 'payment.confirmed')
      const forged = run(delivery.body.replace('1200', '9900'))
      assert.notEqual(forged.status, 0)
      assert.match(forged.stderr, /does not match/)
    }
  } finally {
    receiver.closeAllConnections()
    await new Promise((resolve) => receiver.close(resolve))
  }
})

/** What a browser shows of escaped text: the named entities the template writes, and numeric ones. */
function unescapeHtml(html: string): string {
  return html.replace(/&(amp|lt|gt|quot|#\d+);/g, (_entity, name: string) =>
    name.startsWith('#') ? String.fromCharCode(Number(name.slice(1))) : ({ amp: '&', lt: '<', gt: '>', quot: '"' })[name]!,
  )
}
