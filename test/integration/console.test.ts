// The support console over inject (docs/rules.md#console): operators from OPERATORS sign in with
// an e-mail code under the Wallet's rules, roles are checked on every action, every action needs
// a note and lands in the audit log with the operator's e-mail; forms without CSRF change nothing;
// a bad OPERATORS entry stops the start, and production needs operators or OPS_TOKEN.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { loadConfig } from '../../src/config.ts'
import { nextDigestAt, sendOperatorDigest } from '../../src/app/operator-digest.ts'
import { queuePage } from '../../src/app/support-queues.ts'
import { createMailSeal } from '../../src/mail/sealed-mail.ts'
import { openAccount } from '../../src/app/open-account.ts'
import { startTestService, T0, type TestService } from '../support/harness.ts'
import { signedInOperator } from '../support/factors.ts'
import { newestCode, walletClient } from '../support/wallet-client.ts'

let service: TestService
let token: string
before(async () => {
  service = await startTestService({ OPERATORS: 'Ana@Example.com:admin, joao@example.com:support, maria@example.com:support', AUTH_FAILURES_PER_MINUTE: '0' })
  token = (await service.merchant('console-shop@example.com', '52998224725')).token
})
after(() => service.close())

/** Signed in with the e-mail code and the second factor operators must have (enrolled the first time). */
function signedIn(email: string, remoteAddress?: string) {
  return signedInOperator(service, email, remoteAddress)
}

/** A charge held because someone else paid it (payer_mismatch). */
async function heldCharge(): Promise<string> {
  const created = await service.request({ method: 'POST', url: '/api/create-payment', token, body: { value: '10.00', email: 'held@example.com', tax_number: generateCpf() } })
  assert.equal(created.status, 200, JSON.stringify(created.body))
  assert.equal((await service.pay(created.body.id, generateCpf())).body.status, 'security_hold')
  return created.body.id
}

test('OPERATORS: a malformed entry, an unknown role or a repeated e-mail stops the start; production needs operators or OPS_TOKEN', () => {
  assert.deepEqual(loadConfig({ OPERATORS: 'ana@example.com:admin,joao@example.com:support' }).operators, [{ email: 'ana@example.com', role: 'admin' }, { email: 'joao@example.com', role: 'support' }])
  assert.deepEqual(loadConfig({}).operators, [])
  for (const bad of ['ana@example.com', 'ana@example.com:root', 'not-an-email:admin', 'ana@example.com:admin,ANA@example.com:support']) {
    assert.throws(() => loadConfig({ OPERATORS: bad }), /OPERATORS/, bad)
  }
  const production = { MODE: 'production', PROVIDER_URL: 'http://127.0.0.1:1', PROVIDER_TOKEN: 'x', PROVIDER_WEBHOOK_SECRET: 'y', SMTP_URL: 'smtp://127.0.0.1:1', MAIL_FROM: 'a@b.c', ELEMENTS_RPC_URL: 'http://127.0.0.1:1', ELEMENTS_RPC_COOKIE_FILE: '/x' }
  assert.throws(() => loadConfig(production), /OPS_TOKEN/)
  assert.throws(() => loadConfig({ ...production, OPERATORS: 'ana@example.com:admin' }), /OPS_TOKEN/, 'the token also seals the mail and signs the cookies')
  assert.equal(loadConfig({ ...production, OPS_TOKEN: 'k'.repeat(32), OPERATORS: 'ana@example.com:admin' }).operators.length, 1)
})

test('sign-in: only listed operators get a code, the same answer for anyone, a cookie of its own, codes burned after 5 wrong tries', async () => {
  const stranger = walletClient(service)
  await stranger.get('/console')
  const asked = await stranger.post('/console/sign-in', { email: 'mallory@example.com' })
  assert.equal(asked.status, 303)
  assert.match(asked.location!, /^\/console\/code\?email=mallory/)
  const outbox = (await service.request({ method: 'GET', url: '/sandbox/outbox?email=mallory%40example.com' })).body
  assert.equal(outbox.mails.length, 0, 'no code for an e-mail that is not an operator')

  const ana = await signedIn('ana@example.com')
  assert.ok(ana.jar.has('console_session'))
  assert.ok(!ana.jar.has('wallet_session'), 'a cookie of its own')
  const home = await ana.get('/console')
  assert.match(home.html, /ana@example\.com \(admin\)/)
  assert.match(home.html, /Pagamentos retidos/)
  assert.match(String(home.headers['content-security-policy']), /script-src 'none'/)
  // The console's cookie is no Wallet session.
  assert.equal((await service.app.inject({ method: 'GET', url: '/wallet', headers: { cookie: `console_session=${ana.jar.get('console_session')}` } })).body.includes('Entrar na Carteira'), true)

  // Five wrong codes burn it.
  const joao = walletClient(service, '10.0.0.7')
  await joao.get('/console')
  await joao.post('/console/sign-in', { email: 'joao@example.com' })
  await joao.get('/console/code?email=joao%40example.com')
  const code = await newestCode(service, 'joao@example.com')
  const wrong = code === '000000' ? '111111' : '000000'
  for (let i = 0; i < 5; i++) assert.equal((await joao.post('/console/code', { email: 'joao@example.com', code: wrong })).headers['x-error-code'], 'wallet_code_invalid')
  assert.equal((await joao.post('/console/code', { email: 'joao@example.com', code })).headers['x-error-code'], 'wallet_code_invalid', 'burned')
  // A Wallet sign-in code is no console code.
  assert.equal((await joao.post('/console/code', { email: 'console-shop@example.com', code: '123456' })).headers['x-error-code'], 'wallet_code_invalid')
})

test('a held charge: the queue shows it, release needs a note, is audited with the e-mail, and it leaves the queue', async () => {
  const id = await heldCharge()
  const ana = await signedIn('ana@example.com')
  const queue = await ana.get('/console/queues/holds')
  assert.equal(queue.status, 200)
  assert.ok(queue.html.includes(id), 'held charge listed')
  assert.match(queue.html, /Pagador diferente do informado/)
  const page = await ana.get(`/console/charges/${id}`)
  assert.match(page.html, /Liberar para a conta/)
  assert.match(page.html, /Devolver ao pagador/)
  assert.doesNotMatch(page.html, /Encerrar como devolvido/, 'close only once the provider took it back')
  assert.match(page.html, /data-kind="report"/, 'the provider report is on the timeline')
  assert.match(page.html, /depix_sent/)

  const noNote = await ana.post(`/console/charges/${id}/review`, { decision: 'release', note: '   ' })
  assert.equal(noNote.status, 400)
  assert.equal((await service.store.charges.findById(id))!.status, 'security_hold')

  await ana.get(`/console/charges/${id}`)
  const released = await ana.post(`/console/charges/${id}/review`, { decision: 'release', note: 'payer confirmed by phone' })
  assert.equal(released.status, 303, released.html.slice(0, 500))
  assert.equal((await service.store.charges.findById(id))!.status, 'after7d')
  const after = await ana.get(released.location!)
  assert.match(after.html, /ana@example\.com<\/strong> · <code>review\.release<\/code>/)
  assert.match(after.html, /security_hold → after7d/)
  assert.ok(!(await ana.get('/console/queues/holds')).html.includes(id), 'left the queue')
  const audit = await ana.get('/console/audit?actor=ana%40example.com&action=review.release')
  assert.ok(audit.html.includes(`payment:${id}`))
  assert.ok(audit.html.includes('payer confirmed by phone'))
})

test('roles: support works the queues but cannot override quotes; no CSRF, no session or a stale token changes nothing', async () => {
  const joao = await signedIn('joao@example.com', '10.0.0.8')
  const money = await joao.get('/console/money')
  assert.equal(money.status, 200)
  assert.match(money.html, /Só um admin substitui cotações/)
  const refused = await joao.post('/console/quotes', { BTC: '350000.00', expires_in_minutes: '60', note: 'trying' })
  assert.equal(refused.status, 403)
  assert.equal(refused.headers['x-error-code'], 'operator_forbidden')
  assert.equal((await service.store.quotes.overrides(service.clock.now())).length, 0)

  const id = await heldCharge()
  await joao.get(`/console/charges/${id}`)
  const forged = await joao.postWithoutCsrf(`/console/charges/${id}/review`, { decision: 'refund', note: 'forged' })
  assert.equal(forged.status, 403)
  assert.equal(forged.headers['x-error-code'], 'csrf_invalid')
  const anonymous = await service.app.inject({ method: 'POST', url: `/console/charges/${id}/review`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'decision=refund&note=x' })
  assert.equal(anonymous.statusCode, 303)
  assert.equal((await service.store.charges.findById(id))!.status, 'security_hold')

  const refunded = await joao.post(`/console/charges/${id}/review`, { decision: 'refund', note: 'stranger paid; refund' })
  assert.equal(refunded.status, 303)
  assert.equal((await service.store.charges.findById(id))!.status, 'will_refund')
  const refund = (await service.store.refunds.findByCharge(id))!
  const refunds = await joao.get('/console/queues/refunds')
  assert.ok(refunds.html.includes(refund.id))
  const refundPage = await joao.get(`/console/refunds/${refund.id}`)
  assert.match(refundPage.html, /aria-label="Pagar por Pix-out"/)
  assert.match(refundPage.html, /Registrar pagamento feito por fora/)
  const paid = await joao.post(`/console/refunds/${refund.id}/paid`, { reference: 'E123', note: 'paid by bank transfer' })
  assert.equal(paid.status, 303, paid.html.slice(0, 300))
  assert.equal((await service.store.refunds.findById(refund.id))!.status, 'paid')
  assert.equal((await service.store.charges.findById(id))!.status, 'refunded')

  const ana = await signedIn('ana@example.com', '10.0.0.9')
  await ana.get('/console/money')
  const set = await ana.post('/console/quotes', { BTC: '350000,00', expires_in_minutes: '30', note: 'ticker down', force: 'yes' })
  assert.equal(set.status, 303, set.html.slice(0, 400))
  assert.equal((await service.store.quotes.overrides(service.clock.now())).length, 1)
  assert.match((await ana.get('/console/money')).html, /R\$ 350000\.00/)
  const entries = (await service.ops('GET', '/ops/audit')).body.entries as Array<{ actor: string; action: string; details: { note?: string } }>
  assert.ok(entries.some((entry) => entry.actor === 'ana@example.com' && entry.action === 'quotes.set' && entry.details.note === 'ticker down'))
  assert.ok(entries.some((entry) => entry.actor === 'joao@example.com' && entry.action === 'refund.paid'))

  // Signed out, the same cookie is worth nothing.
  await joao.get('/console')
  await joao.post('/console/sign-out')
  assert.match((await joao.get('/console')).html, /Entrar no console de suporte/)
})

test('a refund owed paid by Pix-out from its page: one payout, nothing else can pay it meanwhile, the charge refunded on the provider\'s word; one the treasury cannot cover is sent again from the page', async () => {
  const joao = await signedIn('joao@example.com', '10.0.0.10')
  const refundOf = async () => {
    const id = await heldCharge()
    await joao.get(`/console/charges/${id}`)
    assert.equal((await joao.post(`/console/charges/${id}/review`, { decision: 'refund', note: 'stranger paid' })).status, 303)
    return { chargeId: id, refund: (await service.store.refunds.findByCharge(id))! }
  }
  const { chargeId, refund } = await refundOf()
  await joao.get(`/console/refunds/${refund.id}`)
  const ordered = await joao.post(`/console/refunds/${refund.id}/payout`, { note: 'payer called' })
  assert.equal(ordered.status, 303, ordered.html.slice(0, 300))
  const page = await joao.get(`/console/refunds/${refund.id}`)
  assert.match(page.html, /Há um Pix-out desta devolução em andamento/)
  assert.doesNotMatch(page.html, /aria-label="Registrar pagamento feito por fora"/, 'no second way to pay it while one is under way')
  await service.jobs.runDue()
  const [payout] = await service.store.payouts.listForRefunds([refund.id])
  assert.deepEqual([payout!.status, payout!.created_by], ['sent', 'joao@example.com'])
  assert.equal(await service.sandbox!.fake.finishPayout(payout!.provider_withdrawal_id!, 'sent'), 200)
  assert.equal((await service.store.charges.findById(chargeId))!.status, 'refunded')
  assert.match((await joao.get(`/console/refunds/${refund.id}`)).html, /Concluído/)

  const short = await refundOf()
  const before = (await service.request({ method: 'GET', url: '/sandbox/treasury' })).body.DEPIX as number
  await service.request({ method: 'PUT', url: '/sandbox/treasury', body: { DEPIX: 100 } })
  await joao.get(`/console/refunds/${short.refund.id}`)
  await joao.post(`/console/refunds/${short.refund.id}/payout`, { note: 'pay' })
  await service.jobs.runDue()
  const waiting = await joao.get(`/console/refunds/${short.refund.id}`)
  assert.match(waiting.html, /aria-label="Enviar o Pix-out de novo"/)
  await service.request({ method: 'PUT', url: '/sandbox/treasury', body: { DEPIX: before } })
  const [held] = await service.store.payouts.listForRefunds([short.refund.id])
  assert.equal((await joao.post(`/console/refund-payouts/${held!.id}/review`, { decision: 'retry', note: 'topped up' })).status, 303)
  await service.jobs.runDue()
  assert.equal((await service.store.payouts.findById(held!.id))!.status, 'sent')
})

test('/ops with the token is audited as "token" unless it names itself', async () => {
  const id = await heldCharge()
  const response = await service.request({ method: 'POST', url: `/ops/payments/${id}/review`, headers: { authorization: `Bearer ${service.opsToken}` }, body: { decision: 'release', note: 'automation' } })
  assert.equal(response.status, 200)
  const entries = (await service.ops('GET', '/ops/audit')).body.entries as Array<{ actor: string; subject: string }>
  assert.equal(entries.find((entry) => entry.subject === `payment:${id}`)!.actor, 'token')
})

test('look-up by e-mail, tax number and EUID; a charge by id or qrId; blocks added and lifted with a note', async () => {
  const ana = await signedIn('ana@example.com', '10.0.0.10')
  const byEmail = await ana.get('/console/lookup?q=console-shop%40example.com')
  const link = /href="(\/console\/accounts\/\d+)"/.exec(byEmail.html)
  assert.ok(link, byEmail.html.slice(0, 500))
  assert.match((await ana.get('/console/lookup?q=529.982.247-25')).html, /console-shop@example\.com/)
  const account = await ana.get(link[1]!)
  assert.match(account.html, /Tokens \(nunca o valor\)/)
  assert.ok(!account.html.includes(token), 'never the token itself')
  assert.ok(account.html.includes(`…${token.slice(-4)}`))
  const euid = (await service.store.accounts.findByEmail('console-shop@example.com'))!.euid!
  assert.match((await ana.get(`/console/lookup?q=${euid}`)).html, /console-shop@example\.com/)

  const id = await heldCharge()
  const charge = (await service.store.charges.findById(id))!
  assert.equal((await ana.get(`/console/lookup?q=${charge.provider_deposit_id}`)).location, `/console/charges/${id}`)

  await ana.get(link[1]!)
  const blocked = await ana.post('/console/blocks', { identity: 'email:console-shop@example.com', note: 'MED reported by phone', back: link[1]! })
  assert.equal(blocked.status, 303, blocked.html.slice(0, 300))
  const withBlock = await ana.get(blocked.location!)
  const lift = /action="\/console\/blocks\/(\d+)\/lift"/.exec(withBlock.html)
  assert.ok(lift)
  assert.equal((await ana.post(`/console/blocks/${lift[1]}/lift`, { note: '', back: link[1]! })).status, 400)
  assert.equal((await ana.post(`/console/blocks/${lift[1]}/lift`, { note: 'entered by mistake', back: link[1]! })).status, 303)
  assert.match((await ana.get(link[1]!)).html, /Nenhum bloqueio/)
  const actions = ((await service.ops('GET', '/ops/audit')).body.entries as Array<{ actor: string; action: string }>).filter((entry) => entry.actor === 'ana@example.com').map((entry) => entry.action)
  assert.ok(actions.includes('block.add') && actions.includes('block.lift'))
})

test('operators learn of work: a daily digest with the queue counts (once a day, only when a queue has work) and per-queue gauges on /metrics', async () => {
  assert.equal(nextDigestAt(new Date('2026-11-22T10:59:00Z')).toISOString(), '2026-11-22T11:00:00.000Z')
  assert.equal(nextDigestAt(new Date('2026-11-22T11:00:00Z')).toISOString(), '2026-11-23T11:00:00.000Z')
  await heldCharge()
  const deps = { store: service.store, clock: service.clock, mailSeal: createMailSeal([service.opsToken]), operators: loadConfig({ OPERATORS: 'ana@example.com:admin,joao@example.com:support' }).operators, baseUrl: 'http://pix.test' }
  const first = await sendOperatorDigest(deps)
  assert.equal(first.sent, 2)
  assert.equal((await sendOperatorDigest(deps)).sent, 0, 'once a day')
  const holds = (await service.store.console.queueCounts(service.clock.now())).holds
  const mails = (await service.request({ method: 'GET', url: '/sandbox/outbox?email=joao%40example.com' })).body.mails as Array<{ subject: string; text: string }>
  const digest = mails.find((mail) => mail.subject.startsWith('Filas do suporte'))!
  assert.ok(digest, JSON.stringify(mails.map((mail) => mail.subject)))
  assert.match(digest.text, new RegExp(`Pagamentos retidos: ${holds}`))
  assert.match(digest.text, /http:\/\/pix\.test\/console/)
  assert.equal((await sendOperatorDigest({ ...deps, operators: [] })).sent, 0)
  // One digest job per deployment, due at the next 08:00 in São Paulo.
  assert.deepEqual((await service.store.jobs.dueByKind(new Date('2030-01-01'))).filter((row) => row.kind === 'operator_digest').map((row) => row.n), [1])
  const metrics = String((await service.ops('GET', '/metrics')).body)
  assert.match(metrics, new RegExp(`pix_console_queue\\{queue="holds"\\} ${holds}`))
  assert.match(metrics, /pix_console_queue\{queue="stuck_reconciliations"\} \d+/)
})

test('identity release is an admin action: support is refused, the admin gives the EUID with a note', async () => {
  const taxNumber = generateCpf()
  const account = await openAccount(service, { email: 'stuck-owner@example.com', taxNumber, name: 'Dona Travada', kyc: 'unidentified', euid: null })
  const euid = `EU${'4'.repeat(15)}`
  const joao = await signedIn('joao@example.com', '10.0.0.11')
  const seen = await joao.get(`/console/accounts/${account.id}`)
  assert.doesNotMatch(seen.html, /Liberar identidade/, 'support is not offered it')
  const refused = await joao.post(`/console/accounts/${account.id}/identity`, { euid, note: 'owner sent documents' })
  assert.equal(refused.headers['x-error-code'], 'operator_forbidden')
  assert.equal((await service.store.accounts.findById(account.id))!.kyc, 'unidentified')
  const ana = await signedIn('ana@example.com', '10.0.0.12')
  assert.match((await ana.get(`/console/accounts/${account.id}`)).html, /Liberar identidade/)
  const released = await ana.post(`/console/accounts/${account.id}/identity`, { euid, note: 'owner sent documents' })
  assert.equal(released.status, 303, released.html.slice(0, 300))
  assert.equal((await service.store.accounts.findById(account.id))!.kyc, 'verified')
})

/** Every page of a console list from `first`, following its "next" link: the page's ids (by `pattern`) in order. */
async function walk(client: Awaited<ReturnType<typeof signedIn>>, first: string, pattern: RegExp): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = []
  let pages = 0
  for (let url: string | undefined = first; url !== undefined; pages++) {
    const page = await client.get(url)
    assert.equal(page.status, 200, `${url}: ${page.html.slice(0, 300)}`)
    ids.push(...[...page.html.matchAll(pattern)].map((found) => found[1]!))
    url = /<a href="([^"]+)" rel="next">/.exec(page.html)?.[1]?.replaceAll('&#38;', '&').replaceAll('&amp;', '&')
    if (url !== undefined) assert.match(url, /[?&]cursor=[\w-]+$/, 'the next page is named by an opaque cursor')
  }
  return { ids, pages }
}

test('queues and the audit log page by an opaque cursor: rows of one time across a page border are neither skipped nor repeated, a row leaving meanwhile shifts nothing, a cursor not ours is an error page', async () => {
  // Support reads the queues and the audit log too (an operator of her own: each e-mail has a budget of sign-in codes an hour).
  const maria = await signedIn('maria@example.com', '10.0.0.30')
  const db = service.database.db
  // 45 deposits seen at one instant (the test clock stands still): only the id orders them, and the ids are not in insertion order.
  const qrIds = Array.from({ length: 45 }, (_, i) => `pg${String((i * 17) % 45).padStart(2, '0')}${'0'.repeat(8)}`)
  await db.insertInto('unknown_deposits').values(qrIds.map((qr_id) => ({ qr_id, status: 'depix_sent', value_cents: 100, seen_by: 'sweep', first_seen_at: T0, last_seen_at: T0 }))).execute()
  const first = await maria.get('/console/queues/unknown_deposits')
  assert.doesNotMatch(first.html, /rel="first"/, 'the first page links to no first page')
  // A row of the first page settled while the operator reads it: with offset pages the row after the border would be skipped.
  const gone = /<code class="id">(pg\d+)<\/code>/.exec(first.html)![1]!
  await db.deleteFrom('unknown_deposits').where('qr_id', '=', gone).execute()
  const walked = await walk(maria, '/console/queues/unknown_deposits', /<code class="id">(pg\d+)<\/code>/g)
  assert.equal(walked.pages, 3)
  assert.equal(new Set(walked.ids).size, walked.ids.length, 'no row twice')
  assert.deepEqual(walked.ids, qrIds.filter((id) => id !== gone).sort(), 'every row once, by id at one time')
  const second = await maria.get(/<a href="([^"]+)" rel="next">/.exec(first.html)![1]!)
  assert.match(second.html, /<a href="\/console\/queues\/unknown_deposits" rel="first">/, 'a later page links back to the first')

  // The provider's refusals merge two kinds: at one time claw-backs come first, each kind by id, one row a page.
  const charges = await Promise.all([heldCharge(), heldCharge(), heldCharge(), heldCharge()])
  const at = new Date('2020-01-01T00:00:00.000Z')
  await db.updateTable('charges').set({ status: 'depix_sent', clawback: 'will_refund', updated_at: at }).where('id', 'in', charges.slice(0, 2)).execute()
  const payoutIds = charges.slice(2).map((_, i) => `po_${String(i).repeat(24)}`)
  for (const [i, chargeId] of charges.slice(2).entries()) {
    const refundId = `ref_${String(i + 5).repeat(24)}`
    await db.insertInto('refunds').values({ id: refundId, charge_id: chargeId, amount_cents: 100, owed_cents: 0, status: 'paid', created_by: 'test', created_at: at }).execute()
    await db.insertInto('payouts').values({ id: payoutIds[i]!, refund_id: refundId, rail: 'pix', currency: 'DEPIX', amount: 100, status: 'sent', provider_status: 'error', created_by: 'test', created_at: at, updated_at: at }).execute()
  }
  const refusals = async (cursor: string | undefined, limit: number) => {
    const page = await queuePage(service, 'provider_refusals', cursor, limit)
    assert.equal(page.queue, 'provider_refusals')
    return { ids: page.queue === 'provider_refusals' ? page.rows.map((row) => (row.kind === 'clawback' ? row.charge.id : row.payout.id)) : [], next: page.nextCursor ?? undefined }
  }
  const whole = (await refusals(undefined, 1000)).ids
  assert.deepEqual(whole.slice(0, 4), [...charges.slice(0, 2).sort(), ...payoutIds])
  let page = await refusals(undefined, 1)
  const oneByOne = [...page.ids]
  while (page.next !== undefined) {
    page = await refusals(page.next, 1)
    oneByOne.push(...page.ids)
  }
  assert.deepEqual(oneByOne, whole)

  // The audit log, newest first, 50 a page, the filter carried by the next link.
  for (let i = 0; i < 120; i++) await service.store.audit.record({ actor: 'pager@example.com', action: 'test.page', subject: `pager-${i}`, details: {}, at: T0 })
  const audit = await walk(maria, '/console/audit?actor=pager%40example.com', /<code class="id">pager-(\d+)<\/code>/g)
  assert.equal(audit.pages, 3)
  assert.deepEqual(audit.ids.map(Number), Array.from({ length: 120 }, (_, i) => 119 - i))

  // A cursor we did not give, one of another list, or two of them: the catalogue's page, never a 5xx.
  const holdsCursor = Buffer.from(`${T0.getTime()}_${charges[0]}`).toString('base64url')
  for (const url of ['/console/queues/holds?cursor=bm9wZQ', `/console/queues/refunds?cursor=${holdsCursor}`, `/console/audit?cursor=${holdsCursor}`, '/console/audit?cursor=a&cursor=b', `/console/queues/provider_refusals?cursor=${holdsCursor}`]) {
    const refused = await maria.get(url)
    assert.deepEqual([refused.status, refused.headers['x-error-code']], [400, 'invalid_request'], url)
  }
  assert.equal((await maria.get(`/console/queues/holds?cursor=${holdsCursor}`)).status, 200)
})
