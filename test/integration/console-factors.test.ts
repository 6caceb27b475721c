// Second factors in the support console (issue 49), over HTTP with a real database: an operator
// without one can only enrol one; sign-in is the e-mail code and the factor; the actions that move
// money or trust need a factor checked within 5 minutes, and the audit log names the factor; an
// admin's support reset of an owner's factors is audited, mailed at once and waits 72 hours.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createAdjustableClock } from '../../src/clock.ts'
import { checkFactor, enrolTotp, signedInOperator } from '../support/factors.ts'
import { startTestService, T0, type TestService } from '../support/harness.ts'
import { newestCode, signedInClient, walletClient } from '../support/wallet-client.ts'

const clock = createAdjustableClock(T0)
let service: TestService
before(async () => {
  service = await startTestService({ OPERATORS: 'ana@example.com:admin, joao@example.com:support, bia@example.com:admin', AUTH_FAILURES_PER_MINUTE: '0' }, { clock })
})
after(() => service.close())

async function mails(email: string): Promise<Array<{ subject: string }>> {
  await service.jobs.runDue()
  return (await service.request({ method: 'GET', url: `/sandbox/outbox?email=${encodeURIComponent(email)}` })).body.mails
}

test('an operator without a second factor can only enrol one; then sign-in asks for it after the e-mail code', async () => {
  const client = walletClient(service)
  await client.get('/console')
  await client.post('/console/sign-in', { email: 'bia@example.com' })
  await client.get('/console/code?email=bia%40example.com')
  const entered = await client.post('/console/code', { email: 'bia@example.com', code: await newestCode(service, 'bia@example.com') })
  assert.equal(entered.location, '/console/factors')
  for (const path of ['/console', '/console/queues/holds', '/console/money', '/console/audit', '/console/lookup?q=x']) {
    assert.equal((await client.get(path)).location, '/console/factors', path)
  }
  const factors = await client.get('/console/factors')
  assert.match(factors.html, /Operadores precisam de um segundo fator/)
  assert.match(String(factors.headers['content-security-policy']), /script-src 'self'/, 'the passkey script may run here')
  const refused = await client.post('/console/quotes', { BTC: '350000', expires_in_minutes: '60', note: 'x' })
  assert.equal(refused.location, '/console/factors', 'no action before a factor')
  assert.equal((await service.store.quotes.overrides(service.clock.now())).length, 0)

  await enrolTotp(service, client, '/console', 'Bia app')
  assert.equal((await client.get('/console')).status, 200)
  assert.match(String((await client.get('/console')).headers['content-security-policy']), /script-src 'none'/, 'the rest of the console runs no script')
  assert.ok((await mails('bia@example.com')).some((mail) => /segundo fator foi adicionado: Bia app/.test(mail.subject)))

  // The next sign-in: the e-mail code is half of it.
  const again = walletClient(service, '10.9.0.1')
  await again.get('/console')
  await again.post('/console/sign-in', { email: 'bia@example.com' })
  await again.get('/console/code?email=bia%40example.com')
  assert.equal((await again.post('/console/code', { email: 'bia@example.com', code: await newestCode(service, 'bia@example.com') })).location, '/console/check')
  assert.match((await again.get('/console')).html, /action="\/console\/sign-in"/, 'not signed in before the factor')
})

test('money and trust actions need a step-up within 5 minutes, the audit log names the factor; blocks do not need one', async () => {
  const ana = await signedInOperator(service, 'ana@example.com')
  clock.advance(6 * 60)
  await ana.get('/console/money')
  const refused = await ana.post('/console/quotes', { BTC: '350000', expires_in_minutes: '60', note: 'preço do dia' })
  assert.equal(refused.status, 403)
  assert.equal(refused.headers['x-error-code'], 'step_up_required')
  assert.match(refused.html, /href="\/console\/check\?next=%2Fconsole%2Fmoney"/)
  // Blocks move no money: no step-up.
  await ana.get('/console/lookup')
  assert.equal((await ana.post('/console/blocks', { identity: 'email:bloqueado@example.com', note: 'fraude', back: '/console/lookup' })).status, 303)

  await checkFactor(service, ana, '/console', ana.factor, '/console/money')
  await ana.get('/console/money')
  const set = await ana.post('/console/quotes', { BTC: '350000', expires_in_minutes: '60', note: 'preço do dia' })
  assert.equal(set.status, 303, set.html.slice(0, 500))
  const row = await service.database.db.selectFrom('audit_log').select(['actor', 'details']).where('action', '=', 'quotes.set').orderBy('id', 'desc').executeTakeFirstOrThrow()
  assert.equal(row.actor, 'ana@example.com')
  assert.match(String((row.details as { factor: string }).factor), /^(totp:Operator app|recovery_code:)$/)
  const block = await service.database.db.selectFrom('audit_log').select('details').where('action', '=', 'block.add').orderBy('id', 'desc').executeTakeFirstOrThrow()
  assert.equal((block.details as { factor: string }).factor, 'totp:Operator app', 'the factor of the sign-in')
})

test('support reset: an admin, after an identity check and with a note, removes an owner\'s factors after 72 hours, with an e-mail at once', async () => {
  const owner = await service.merchant('lost@example.com', '39053344705')
  const wallet = await signedInClient(service, owner.email)
  await enrolTotp(service, wallet, '/wallet')
  const account = await service.database.db.selectFrom('accounts').select('id').where('email', '=', owner.email).executeTakeFirstOrThrow()

  const joao = await signedInOperator(service, 'joao@example.com')
  await joao.get(`/console/accounts/${account.id}`)
  const bySupport = await joao.post(`/console/accounts/${account.id}/factors/reset`, { identity_checked: 'yes', note: 'ligou' })
  assert.equal(bySupport.headers['x-error-code'], 'operator_forbidden')

  const ana = await signedInOperator(service, 'ana@example.com')
  const page = await ana.get(`/console/accounts/${account.id}`)
  assert.match(page.html, /data-factor-count="1"/)
  assert.equal((await ana.post(`/console/accounts/${account.id}/factors/reset`, { note: 'ligou' })).status, 400, 'the identity check is confirmed')
  await ana.get(`/console/accounts/${account.id}`)
  const reset = await ana.post(`/console/accounts/${account.id}/factors/reset`, { identity_checked: 'yes', note: 'Conferido por vídeo com documento' })
  assert.equal(reset.location, `/console/accounts/${account.id}?done=1`, reset.html.slice(0, 500))
  const audit = await service.database.db.selectFrom('audit_log').select(['actor', 'details']).where('action', '=', 'factors.reset').orderBy('id', 'desc').executeTakeFirstOrThrow()
  assert.equal(audit.actor, 'ana@example.com')
  assert.equal((audit.details as { note: string }).note, 'Conferido por vídeo com documento')
  assert.ok((audit.details as { factor?: string }).factor, 'with the factor the admin confirmed it with')
  assert.ok((await mails(owner.email)).some((mail) => /O suporte vai remover seus segundos fatores/.test(mail.subject)))

  const halfway = async () => {
    const client = walletClient(service, '10.8.0.1')
    await client.get('/wallet')
    await client.post('/wallet/sign-in', { email: owner.email })
    await client.get(`/wallet/code?email=${encodeURIComponent(owner.email)}`)
    return (await client.post('/wallet/code', { email: owner.email, code: await newestCode(service, owner.email) })).location
  }
  clock.advance(71 * 3600)
  assert.equal(await halfway(), '/wallet/check', 'the factor holds during the wait')
  clock.advance(3600 + 1)
  assert.equal(await halfway(), '/wallet', 'gone after 72 hours')
})

test('an operator who lost every factor is reset by another admin, never by herself', async () => {
  const ana = await signedInOperator(service, 'ana@example.com')
  const home = await ana.get('/console')
  assert.match(home.html, /action="\/console\/operators\/factors\/reset"/)
  const self = await ana.post('/console/operators/factors/reset', { email: 'ana@example.com', identity_checked: 'yes', note: 'eu mesma' })
  assert.equal(self.headers['x-error-code'], 'operator_forbidden')
  await ana.get('/console')
  const reset = await ana.post('/console/operators/factors/reset', { email: 'joao@example.com', identity_checked: 'yes', note: 'João perdeu o celular; conferido pessoalmente' })
  assert.equal(reset.location, '/console?done=1', reset.html.slice(0, 400))
  assert.ok((await mails('joao@example.com')).some((mail) => /O suporte vai remover/.test(mail.subject)))
  const removal = await service.database.db.selectFrom('factor_removals').selectAll().where('holder', '=', 'operator:joao@example.com').executeTakeFirstOrThrow()
  assert.equal(removal.effective_at.getTime() - removal.requested_at.getTime(), 72 * 3600 * 1000)
})

test('every console action that moves money or trust is refused without a fresh factor, before it reads anything', async () => {
  const ana = await signedInOperator(service, 'ana@example.com')
  clock.advance(6 * 60)
  const home = await ana.get('/console')
  assert.equal(home.status, 200)
  const forms: Array<[string, Record<string, string>]> = [
    ['/console/charges/pay_none/review', { decision: 'release', note: 'x' }],
    ['/console/withdrawals/wdr_none/review', { decision: 'approve', note: 'x' }],
    ['/console/refunds/rfd_none/payout', { note: 'x' }],
    ['/console/refund-payouts/rpo_none/review', { decision: 'retry', note: 'x' }],
    ['/console/quotes', { BTC: '350000', expires_in_minutes: '60', note: 'x' }],
    ['/console/accounts/1/identity', { euid: 'EU123456789012345', note: 'x' }],
    ['/console/tokens/tok_none/activate', { note: 'x' }],
    ['/console/accounts/1/factors/reset', { identity_checked: 'yes', note: 'x' }],
  ]
  for (const [path, form] of forms) {
    const answer = await ana.post(path, form)
    assert.equal(answer.headers['x-error-code'], 'step_up_required', path)
    assert.equal(answer.status, 403, path)
  }
})
