// Every route, with the right credentials so the request reaches the handler, against hostile
// paths, queries, headers and bodies: never a 5xx, and every error is a catalogue body.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { errorCatalogue } from '../../src/domain/errors.ts'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { signedInOperator } from '../support/factors.ts'
import { newestCode, signedInClient, walletClient } from '../support/wallet-client.ts'

let service: TestService
let token: string
/** A signed-in Wallet session: its cookie, and a CSRF token that is valid for it. */
let wallet: { cookie: string; csrf: string }
/** A signed-in support console session (an admin, so every action reaches its use case). */
let consoleSession: { cookie: string; csrf: string }
/** Real ids for the routes whose handlers a made-up id never reaches (a link's slug, a charge's page). */
const realParams: Record<string, string> = {}
before(async () => {
  service = await startTestService({ RATE_LIMIT_PER_MINUTE: '0', AUTH_FAILURES_PER_MINUTE: '0', OPERATORS: 'sweep-operator@example.com:admin' })
  token = (await service.merchant('sweep@example.com', '52998224725')).token
  const client = await signedInClient(service, 'sweep@example.com')
  const home = await client.get('/wallet')
  wallet = { cookie: [...client.jar].map(([name, value]) => `${name}=${value}`).join('; '), csrf: /name="_csrf" value="([^"]+)"/.exec(home.html)![1]! }
  // With the second factor operators must have (enrolled here), so every action reaches its use case.
  const operator = await signedInOperator(service, 'sweep-operator@example.com')
  const queues = await operator.get('/console')
  consoleSession = { cookie: [...operator.jar].map(([name, value]) => `${name}=${value}`).join('; '), csrf: /name="_csrf" value="([^"]+)"/.exec(queues.html)![1]! }
  const link = ok(await service.api.post('/api/payment-links', { title: 'Sweep', min_amount: '10.00', max_amount: '20.00' }, { token }))
  realParams['/l/:slug'] = new URL(link.url).pathname
  realParams['/api/payment-links/:id'] = `/api/payment-links/${link.id}`
  realParams['/api/payment-links/:id/deactivate'] = `/api/payment-links/${link.id}/deactivate`
  realParams['/wallet/links/:id'] = `/wallet/links/${link.id}`
  const charge = ok(await service.api.post('/api/create-payment', { value: '10.00', email: 'sweep-payer@example.com', tax_number: '11144477735' }, { token }))
  realParams['/pay/:id'] = `/pay/${charge.id}`
  realParams['/pay/:id/status'] = `/pay/${charge.id}/status`
  // The queue whose cursor names two kinds, so its handler meets the hostile cursors.
  realParams['/console/queues/:queue'] = '/console/queues/provider_refusals'
})
after(() => service.close())

/** The app's routes, read from Fastify's own route tree (nested lines continue their parent's path). */
function routes(): Array<{ method: string; path: string }> {
  const found: Array<{ method: string; path: string }> = []
  const stack: string[] = []
  for (const line of service.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+) \(([^)]+)\)/.exec(line)
    if (!match) continue
    const depth = match[1]!.length / 4
    stack.length = depth
    const path = (stack[depth - 1] ?? '') + match[2]
    stack[depth] = path
    for (const method of match[3]!.split(', ')) if (method !== 'HEAD') found.push({ method, path })
  }
  return found
}

const hostileSegments = ['%00', '%zz', '%ff', 'a'.repeat(300), '..%2F..%2Fetc%2Fpasswd', '%F0%9F%92%A9', "x'%3B%20drop%20table%20charges%3B--", '%ED%A0%80', 'ab%00cd']
const hostileQueries = ['payment_id=%00', 'payment_id=%zz', 'payment_id=a&payment_id=b', `payment_id=${'a'.repeat(5000)}`, 'x=%ED%A0%80', '__proto__[x]=1',
  // The statement's, the exports' and the reports' filters.
  'month=%00&from=%zz&to=9999-99-99&currency=%00&type=__proto__&flavour=%00', 'month=2026-02&from=2026-02-30&to=0000-01-01&currency=EUR&type=constructor&flavour=excel',
  'month=a&month=b&flavour=br&flavour=standard&currency=DEPIX&currency=BTC', 'month[]=x&flavour[x]=1&from[a]=b', `cursor=${'A'.repeat(200)}`, 'cursor=TDk5OTk5OTk5OTk5OTk5OTk5XzE',
  // Cursors of the right shape with extreme parts (the queues' time and id, a kind, the audit log's id), and two cursors.
  `cursor=${Buffer.from(`999999999999999_${'f'.repeat(32)}`).toString('base64url')}`, `cursor=${Buffer.from(`999999999999999_c_${'f'.repeat(32)}`).toString('base64url')}`, `cursor=${Buffer.from(`0_p_${'~'.repeat(128)}`).toString('base64url')}`,
  `cursor=${Buffer.from('A999999999999999').toString('base64url')}`, 'cursor=a&cursor=b',
  'created_from=2026-02-30&created_to=1e400&limit=0', `month=${'9'.repeat(30)}&to=${'2'.repeat(30)}`]
const deep = '['.repeat(6000) + ']'.repeat(6000)
const hostileBodies: Array<{ payload: string | Buffer; contentType?: string }> = [
  { payload: deep },
  { payload: '{"a":' .repeat(2000) + '1' + '}'.repeat(2000) },
  { payload: Buffer.concat([Buffer.from('{"note":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]) },
  { payload: '{"note":"a\\u0000b","decision":"release","email":"a\\u0000@x.com"}' },
  { payload: '{"note":"\\ud800"}' },
  { payload: '{"__proto__":{"polluted":true}}' },
  { payload: '{"constructor":{"prototype":{"polluted":true}}}' },
  { payload: '[]' },
  { payload: 'null' },
  { payload: '12345678901234567890123456789' },
  { payload: '{"value":1e400,"advance_seconds":1e400}' },
  { payload: '{' },
  { payload: '' },
  { payload: `{"reason":"${'x'.repeat(15_000)}"}` },
  { payload: 'a=b', contentType: 'application/x-www-form-urlencoded' },
  { payload: '{}', contentType: 'text/plain' },
  { payload: '{}', contentType: 'application/json; charset=iso-8859-1' },
]

const hostileForms = [
  'email=%00&code=%00&value=%00&name=%00&tax_number=%00&confirm=%00',
  'email=a%40b.co&email=c%40d.co&value=1&value=2&confirm=yes&confirm=yes',
  'email=%FF%FE&value=%FF&name=%ED%A0%80&code=%FF',
  `email=${'a'.repeat(3000)}&code=${'9'.repeat(900)}&value=${'9'.repeat(900)}`,
  'value=-1&confirm=yes',
  'value=99999999999999999999&confirm=no',
  'name[]=x&email[a]=b&__proto__[x]=1&constructor[prototype][x]=1',
  'email=x%40example.com&name=Ana%20Maria&tax_number=11111111111',
  // The support console's fields.
  'decision=%00&note=%00&reference=%00&identity=%00&BTC=%00&USDt=%00&expires_in_minutes=%00&paid=%00&back=%00',
  `decision=release&note=x&paid=99999999999999999999&BTC=1e400&USDt=-1&expires_in_minutes=99999&back=${'/console/'.repeat(40)}`,
  `identity=email%3A%FF&note=${'x'.repeat(1200)}&reference=${'r'.repeat(300)}&decision=approve`,
  'identity=tax_number%3A00000000000&note=x&decision=close&clear=yes&force=yes&expires_in_minutes=0',
  'decision[]=release&note[x]=1&identity=__proto__%3Ax',
  // Payment links: the public form, the Wallet's, and the Wallet's settings.
  'name=%00&tax_number=%00&amount=%00&display_name=%00&notify_sales=%00',
  `name=${'n'.repeat(3000)}&tax_number=52998224725&amount=1e400&display_name=${'d'.repeat(3000)}`,
  'name=Ana%20Souza&tax_number=52998224725&amount=R%24%2015%2C00',
  'name[]=x&tax_number[a]=b&amount=-10',
  'title=%00&description=%00&amount=%00&min_amount=%00&max_amount=%00&swap_to=%00&expires_at=%00&max_uses=%00',
  'title=x&amount=10%2C00&min_amount=5&swap_to=BTC&expires_at=9999-99-99T99%3A99&max_uses=99999999999',
  `title=${'t'.repeat(500)}&description=${'d'.repeat(3000)}&expires_at=2020-01-01T00%3A00&max_uses=-1`,
  '',
]

function credentials(path: string): Record<string, string> {
  if (path.startsWith('/wallet')) return { cookie: wallet.cookie }
  if (path.startsWith('/console')) return { cookie: consoleSession.cookie }
  if (path.startsWith('/ops') || path === '/metrics') return { authorization: `Bearer ${service.opsToken}` }
  if (path.startsWith('/provider')) return { authorization: `Basic ${service.providerWebhookSecret}` }
  return { 'x-api-token': token }
}

test('hostile paths, queries, headers and bodies on every route: never a 5xx, always a catalogue error', async (t) => {
  const list = routes()
  assert.ok(list.length >= 25, `found only ${list.length} routes`)
  const tally = new Map<string, number>()
  let sent = 0
  const send = async (method: string, url: string, headers: Record<string, string>, payload?: string | Buffer) => {
    const response = await service.app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) })
    sent++
    const where = `${method} ${url.slice(0, 80)} ${JSON.stringify(headers).slice(0, 80)}`
    assert.ok(response.statusCode < 500, `${response.statusCode} for ${where}: ${response.body.slice(0, 300)}`)
    if (response.statusCode >= 400 && String(response.headers['content-type']).startsWith('text/html')) {
      // The Wallet and the console answer people with a page; its catalogue code travels in X-Error-Code.
      const code = String(response.headers['x-error-code'])
      assert.ok(code in errorCatalogue, `${where}: code ${code} is not in the catalogue`)
      assert.equal(errorCatalogue[code as keyof typeof errorCatalogue].status, response.statusCode, where)
      tally.set(`${response.statusCode} ${code}`, (tally.get(`${response.statusCode} ${code}`) ?? 0) + 1)
    } else if (response.statusCode >= 400) {
      const body = response.json()
      assert.ok(body.code in errorCatalogue, `${where}: code ${body.code} is not in the catalogue`)
      assert.equal(errorCatalogue[body.code as keyof typeof errorCatalogue].status, response.statusCode, where)
      for (const field of ['error', 'docs_url', 'support_email', 'request_id']) assert.equal(typeof body[field], 'string', `${where}: ${field}`)
      tally.set(`${response.statusCode} ${body.code}`, (tally.get(`${response.statusCode} ${body.code}`) ?? 0) + 1)
    } else {
      tally.set(String(response.statusCode), (tally.get(String(response.statusCode)) ?? 0) + 1)
    }
  }

  for (const { method, path } of list) {
    const auth = credentials(path)
    const json = { ...auth, 'content-type': 'application/json' }
    const plain = realParams[path] ?? path.replace(/:[a-z_]+/g, 'a'.repeat(32))
    const paths = path.includes(':') ? hostileSegments.map((segment) => path.replace(/:[a-z_]+/g, segment)) : [path]
    for (const url of paths) await send(method, url, method === 'GET' ? auth : json, method === 'GET' ? undefined : '{}')
    for (const query of hostileQueries) await send(method, `${plain}?${query}`, method === 'GET' ? auth : json, method === 'GET' ? undefined : '{}')
    const oddHeaders: Array<Record<string, string>> = [{ 'x-api-token': '\u00ff'.repeat(10) }, { authorization: 'Basic' }, { authorization: 'Bearer ' + 'x'.repeat(8000) }, { 'idempotency-key': '\u00e9' }, { 'x-operator': 'a'.repeat(500) }]
    for (const header of oddHeaders) {
      await send(method, plain, { ...auth, ...header })
    }
    if (method === 'GET') continue
    if (path.startsWith('/l/')) {
      // The public link form takes no session: its handler meets the hostile fields as they are.
      for (const fields of hostileForms) await send(method, plain, { 'content-type': 'application/x-www-form-urlencoded' }, fields)
    }
    if ((path.startsWith('/wallet') && path !== '/wallet/sign-out') || (path.startsWith('/console') && path !== '/console/sign-out')) {
      // Past the CSRF check, so the handlers themselves meet the hostile fields.
      const form = { ...auth, 'content-type': 'application/x-www-form-urlencoded' }
      const csrf = path.startsWith('/console') ? consoleSession.csrf : wallet.csrf
      for (const fields of hostileForms) await send(method, plain, form, `_csrf=${encodeURIComponent(csrf)}&${fields}`)
    }
    for (const body of hostileBodies) await send(method, plain, { ...auth, 'content-type': body.contentType ?? 'application/json' }, body.payload)
  }
  for (const url of ['/%zz', '/api/get-payment/%zz', '/nope%00', '/' + 'a'.repeat(10_000)]) await send('GET', url, {})
  t.diagnostic(`sent ${sent} hostile requests to ${list.length} routes: ${[...tally].sort().map(([key, count]) => `${key} ×${count}`).join(', ')}`)
})
