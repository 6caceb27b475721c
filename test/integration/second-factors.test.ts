// Second factors in the Wallet (issue 49), over HTTP with a real database: an owner enrols a TOTP
// app (its codes computed here from the secret the page shows, with otpauth), gets ten recovery
// codes once, and from then on signs in with the e-mail code and the factor; money actions ask
// for a factor checked within 5 minutes (the clock is moved, never slept on); a TOTP code counts
// once; a recovery code works once; removing the last factor waits 72 hours; every change is mailed.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { Secret, TOTP } from 'otpauth'
import { randomBytes } from 'node:crypto'
import { createAdjustableClock } from '../../src/clock.ts'
import { loadConfig } from '../../src/config.ts'
import { startService } from '../../src/service.ts'
import { enrolTotp as enrolTotpOn } from '../support/factors.ts'
import { openTestDatabase, startTestService, T0, type TestService } from '../support/harness.ts'
import { newestCode, signedInClient, walletClient } from '../support/wallet-client.ts'
import { ownerWithBalance } from '../support/withdrawals.ts'

const clock = createAdjustableClock(T0)
let service: TestService
before(async () => {
  service = await startTestService({}, { clock })
})
after(async () => {
  await service.close()
})

type Client = ReturnType<typeof walletClient>

const totpAt = (secret: string, at = clock.now()) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: at.getTime() })

async function mails(email: string): Promise<Array<{ subject: string; text: string; code: string | null }>> {
  await service.jobs.runDue()
  const response = await service.app.inject({ method: 'GET', url: `/sandbox/outbox?email=${encodeURIComponent(email)}` })
  return (response.json() as { mails: Array<{ subject: string; text: string; code: string | null }> }).mails
}

/** Enrols a TOTP app through the pages; answers its secret and the recovery codes shown. */
async function enrolTotp(wallet: Client): Promise<{ secret: string; codes: string[] }> {
  const page = await wallet.get('/wallet/factors/totp')
  assert.equal(page.status, 200, page.html)
  const secret = /id="totp-secret"[^>]*>([A-Z2-7 ]+)<\/textarea>/.exec(page.html)![1]!.replace(/ /g, '')
  const qr = await service.app.inject({ method: 'GET', url: '/wallet/factors/totp/qr.png', headers: { cookie: [...wallet.jar].map(([name, value]) => `${name}=${value}`).join('; ') } })
  assert.equal(qr.headers['content-type'], 'image/png')
  const enrolled = await wallet.post('/wallet/factors/totp', { name: 'Celular', code: totpAt(secret) })
  assert.equal(enrolled.location, '/wallet/recovery-codes', enrolled.html)
  const shown = await wallet.get('/wallet/recovery-codes')
  const codes = [...shown.html.matchAll(/<li><code>([2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{4})<\/code><\/li>/g)].map((match) => match[1]!)
  assert.equal(codes.length, 10)
  assert.equal((await wallet.get('/wallet/recovery-codes')).location, '/wallet/factors', 'the codes are shown once')
  return { secret, codes }
}

/** Signs in with the e-mail code: answers the client, waiting for its factor. */
async function halfSignedIn(email: string, address = '10.1.0.1'): Promise<{ client: Client; answer: Awaited<ReturnType<Client['post']>> }> {
  const client = walletClient(service, address)
  await client.get('/wallet')
  await client.post('/wallet/sign-in', { email })
  await client.get(`/wallet/code?email=${encodeURIComponent(email)}`)
  const answer = await client.post('/wallet/code', { email, code: await newestCode(service, email) })
  return { client, answer }
}

test('an owner without a factor is told plainly what one protects and invited to add a passkey; the e-mail codes stay as they were', async () => {
  const owner = await ownerWithBalance(service, 'plain@example.com', '20.00')
  const home = await owner.wallet.get('/wallet')
  assert.match(home.html, /data-factors="off"/)
  assert.match(home.html, /quem ler o seu e-mail consegue entrar/)
  assert.match(home.html, /href="\/wallet\/factors"/)
  const added = await owner.wallet.post('/wallet/destinations', { type: 'pix', value: owner.taxNumber, label: '' })
  assert.equal(added.status, 303, 'no step-up without a factor')
})

test('TOTP: enrolled from its secret, sign-in needs it after the e-mail code, a code counts once, every change is mailed', async () => {
  const owner = await ownerWithBalance(service, 'totp@example.com', '20.00')
  const { secret } = await enrolTotp(owner.wallet)
  const added = (await mails(owner.email)).find((mail) => /segundo fator foi adicionado: Celular/.test(mail.subject))
  assert.ok(added, 'the new factor is mailed at once')
  assert.match((await owner.wallet.get('/wallet')).html, /data-factors="on"/)

  // Sign-in: the e-mail code alone is half of it.
  const { client, answer } = await halfSignedIn(owner.email)
  assert.equal(answer.location, '/wallet/check')
  assert.match((await client.get('/wallet')).html, /action="\/wallet\/sign-in"/, 'not signed in before the factor')
  const check = await client.get('/wallet/check')
  assert.match(check.html, /name="code"/)
  // The code the app showed at enrolment (same 30-second step) was taken: refused.
  const reused = await client.post('/wallet/check/totp', { code: totpAt(secret), next: '/wallet' })
  assert.equal(reused.status, 400)
  assert.match(reused.html, /data-code="second_factor_invalid"/)
  assert.equal((await client.post('/wallet/check/totp', { code: '000000', next: '/wallet' })).status, 400)
  clock.advance(30)
  const code = totpAt(secret)
  const passed = await client.post('/wallet/check/totp', { code, next: '/wallet/destinations' })
  assert.equal(passed.location, '/wallet/destinations')
  assert.match((await client.get('/wallet')).html, new RegExp(owner.email))
  // The same code, again, in another session within its window: refused.
  const other = await halfSignedIn(owner.email, '10.1.0.2')
  await other.client.get('/wallet/check')
  assert.equal((await other.client.post('/wallet/check/totp', { code, next: '/wallet' })).status, 400)
})

test('a step-up: money actions need a factor checked within 5 minutes, and the check sends the owner back to the form', async () => {
  const owner = await ownerWithBalance(service, 'stepup@example.com', '50.00')
  const { secret } = await enrolTotp(owner.wallet)
  // Enrolling counted as a check: within 5 minutes the destination is added.
  await owner.wallet.get('/wallet/destinations')
  const added = await owner.wallet.post('/wallet/destinations', { type: 'pix', value: owner.taxNumber, label: '' })
  assert.equal(added.status, 303, added.html)
  const destination = /dst_[0-9a-f]+/.exec(added.location!)![0]

  // Six minutes later the confirmation form is not shown before a check, and its POST is refused.
  clock.advance(6 * 60)
  assert.equal((await owner.wallet.get(added.location!)).location, `/wallet/check?next=${encodeURIComponent(`/wallet/destinations/${destination}`)}`)
  const refused = await owner.wallet.post(`/wallet/destinations/${destination}/confirm`, { code: await newestCode(service, owner.email) })
  assert.equal(refused.status, 403)
  assert.match(refused.html, /data-code="step_up_required"/)
  assert.match(refused.html, new RegExp(`href="/wallet/check\\?next=%2Fwallet%2Fdestinations%2F${destination}"`))
  const token = await owner.wallet.post('/wallet/token', { confirm: 'yes', nonce: 'x' })
  assert.equal(token.status, 303, 'a stale nonce issues nothing, before any check')
  await owner.wallet.get('/wallet')
  const nonce = /name="nonce" value="([^"]+)"/.exec((await owner.wallet.get('/wallet')).html)![1]!
  assert.equal((await owner.wallet.post('/wallet/token', { confirm: 'yes', nonce })).status, 403, 'issuing a token needs the step-up')
  assert.equal((await owner.wallet.post('/wallet/destinations', { type: 'liquid', value: 'x', label: '' })).status, 403, 'adding a destination needs the step-up')

  // Checked: the code typed before still works (the refusal did not use it).
  await owner.wallet.get(`/wallet/check?next=/wallet/destinations/${destination}`)
  const checked = await owner.wallet.post('/wallet/check/totp', { code: totpAt(secret), next: `/wallet/destinations/${destination}` })
  assert.equal(checked.location, `/wallet/destinations/${destination}`)
  await owner.wallet.get(checked.location!)
  const confirmed = await owner.wallet.post(`/wallet/destinations/${destination}/confirm`, { code: await newestCode(service, owner.email) })
  assert.equal(confirmed.location, '/wallet/destinations?notice=confirmed', confirmed.html)

  // A withdrawal after the cool-down: asked, then confirmed only with a fresh check.
  clock.advance(25 * 3600)
  const { client } = await halfSignedIn(owner.email, '10.1.0.3')
  await client.get('/wallet/check')
  assert.equal((await client.post('/wallet/check/totp', { code: totpAt(secret), next: '/wallet/withdrawals' })).location, '/wallet/withdrawals')
  await client.get('/wallet/withdrawals')
  const asked = await client.post('/wallet/withdrawals', { destination_id: destination, currency: 'DEPIX', amount: '10,00' })
  assert.equal(asked.status, 303, asked.html)
  clock.advance(5 * 60 + 1)
  assert.match((await client.get(asked.location!)).location ?? '', /^\/wallet\/check\?next=/)
  const late = await client.post(`${asked.location}/confirm`, { code: await newestCode(service, owner.email) })
  assert.equal(late.status, 403)
  assert.match(late.html, /data-code="step_up_required"/)
  clock.advance(30)
  await client.get('/wallet/check')
  await client.post('/wallet/check/totp', { code: totpAt(secret), next: asked.location! })
  await client.get(asked.location!)
  const done = await client.post(`${asked.location}/confirm`, { code: await newestCode(service, owner.email) })
  assert.equal(done.location, asked.location, done.html)
  const withdrawal = await service.database.db.selectFrom('withdrawals').select('status').where('id', '=', asked.location!.split('/').pop()!).executeTakeFirstOrThrow()
  assert.notEqual(withdrawal.status, 'requested')

  // A token issued with a fresh check is mailed.
  const fresh = /name="nonce" value="([^"]+)"/.exec((await client.get('/wallet')).html)![1]!
  assert.equal((await client.post('/wallet/token', { confirm: 'yes', nonce: fresh })).location, '/wallet/token')
  assert.ok((await mails(owner.email)).some((mail) => /novo token de API foi emitido/.test(mail.subject)))
})

test('recovery codes: each one works once in place of the factor, and its use is mailed', async () => {
  const owner = await ownerWithBalance(service, 'recovery@example.com', '20.00')
  const { codes } = await enrolTotp(owner.wallet)
  const first = await halfSignedIn(owner.email, '10.2.0.1')
  await first.client.get('/wallet/check')
  const used = await first.client.post('/wallet/check/recovery', { recovery_code: codes[3]!.toLowerCase(), next: '/wallet' })
  assert.equal(used.location, '/wallet', used.html)
  assert.ok((await mails(owner.email)).some((mail) => /código de recuperação foi usado/.test(mail.subject)))
  const second = await halfSignedIn(owner.email, '10.2.0.2')
  await second.client.get('/wallet/check')
  const again = await second.client.post('/wallet/check/recovery', { recovery_code: codes[3]!, next: '/wallet' })
  assert.equal(again.status, 400)
  assert.match(again.html, /data-code="second_factor_invalid"/)
  assert.equal((await second.client.post('/wallet/check/recovery', { recovery_code: codes[4]!, next: '/wallet' })).location, '/wallet')
  const page = await second.client.get('/wallet/factors')
  assert.match(page.html, /Restam 8 códigos/)
})

test('removing the last factor waits 72 hours, with an e-mail; until then it is still asked for', async () => {
  const owner = await ownerWithBalance(service, 'removal@example.com', '20.00')
  await enrolTotp(owner.wallet)
  const factor = await service.database.db.selectFrom('second_factors').select('id').where('holder', '=', `account:${(await service.database.db.selectFrom('accounts').select('id').where('email', '=', owner.email).executeTakeFirstOrThrow()).id}`).executeTakeFirstOrThrow()
  await owner.wallet.get('/wallet/factors')
  const removed = await owner.wallet.post(`/wallet/factors/${factor.id}/remove`)
  assert.equal(removed.location, '/wallet/factors?notice=removal', removed.html)
  assert.ok((await mails(owner.email)).some((mail) => /último segundo fator será removido/.test(mail.subject)))
  assert.match((await owner.wallet.get('/wallet/factors')).html, /data-removal=/)

  clock.advance(71 * 3600)
  assert.equal((await halfSignedIn(owner.email, '10.3.0.1')).answer.location, '/wallet/check', 'still asked for before 72 h')
  clock.advance(3600 + 1)
  const after72 = await halfSignedIn(owner.email, '10.3.0.2')
  assert.equal(after72.answer.location, '/wallet', 'gone after 72 h: the e-mail code alone signs in again')
  assert.match((await after72.client.get('/wallet')).html, /data-factors="off"/)
})

test('adding a second factor to an owner who has one, or removing one, needs a fresh check; a later one goes at once', async () => {
  const owner = await ownerWithBalance(service, 'more@example.com', '20.00')
  const { secret } = await enrolTotp(owner.wallet)
  clock.advance(6 * 60)
  const page = await owner.wallet.get('/wallet/factors/totp')
  assert.match(page.html, /Confirme antes com o seu segundo fator/)
  const second = /id="totp-secret"[^>]*>([A-Z2-7 ]+)<\/textarea>/.exec(page.html)![1]!.replace(/ /g, '')
  assert.equal((await owner.wallet.post('/wallet/factors/totp', { name: 'Tablet', code: totpAt(second) })).status, 403)
  await owner.wallet.get('/wallet/check')
  await owner.wallet.post('/wallet/check/totp', { code: totpAt(secret), next: '/wallet/factors/totp' })
  await owner.wallet.get('/wallet/factors/totp')
  const enrolled = await owner.wallet.post('/wallet/factors/totp', { name: 'Tablet', code: totpAt(second) })
  assert.equal(enrolled.location, '/wallet/factors?notice=added', 'no new recovery codes for a second factor')
  const rows = await service.database.db.selectFrom('second_factors').select(['id', 'name', 'totp_secret_sealed']).where('name', 'in', ['Celular', 'Tablet']).orderBy('id', 'desc').limit(2).execute()
  for (const row of rows) assert.ok(!row.totp_secret_sealed!.includes(secret) && !row.totp_secret_sealed!.includes(second), 'the TOTP secret is sealed at rest')
  await owner.wallet.get('/wallet/factors')
  assert.equal((await owner.wallet.post(`/wallet/factors/${rows[0]!.id}/remove`)).location, '/wallet/factors?notice=removed')
  assert.ok((await mails(owner.email)).some((mail) => /segundo fator foi removido: Tablet/.test(mail.subject)))
})

test('an OPS_TOKEN rotation carries TOTP apps over: the restart with the previous token seals them under the new one', async () => {
  const database = await openTestDatabase()
  const shared = { ...database, close: async () => {} }
  const rotationClock = createAdjustableClock(T0)
  const start = (env: Record<string, string>) =>
    startService(loadConfig({ DATA_DIR: '/nonexistent', BASE_URL: 'http://pix.test', SANDBOX_PROVIDER_REQUIRE_NAME: 'off', ...env }), { database: shared, clock: rotationClock, logger: false })
  const [oldOps, newOps] = [randomBytes(24).toString('base64url'), randomBytes(24).toString('base64url')]
  try {
    const before_ = await start({ OPS_TOKEN: oldOps })
    await before_.app.inject({ method: 'POST', url: '/sandbox/accounts', payload: { email: 'rotate@example.com', tax_number: '52998224725', name: 'Dona Rotação' } })
    const { secret } = await enrolTotpOn(before_, await signedInClient(before_, 'rotate@example.com'), '/wallet')
    await before_.close()
    const sealedBefore = await database.db.selectFrom('second_factors').select('totp_secret_sealed').executeTakeFirstOrThrow()
    const during = await start({ OPS_TOKEN: newOps, OPS_TOKEN_PREVIOUS: oldOps })
    await during.app.ready()
    await during.close()
    const sealedAfter = await database.db.selectFrom('second_factors').select('totp_secret_sealed').executeTakeFirstOrThrow()
    assert.notEqual(sealedAfter.totp_secret_sealed, sealedBefore.totp_secret_sealed, 'sealed again at start')
    const after_ = await start({ OPS_TOKEN: newOps })
    try {
      rotationClock.advance(30)
      const client = walletClient(after_)
      await client.get('/wallet')
      await client.post('/wallet/sign-in', { email: 'rotate@example.com' })
      await client.get('/wallet/code?email=rotate%40example.com')
      assert.equal((await client.post('/wallet/code', { email: 'rotate@example.com', code: await newestCode(after_, 'rotate@example.com') })).location, '/wallet/check')
      await client.get('/wallet/check')
      const passed = await client.post('/wallet/check/totp', { code: TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: rotationClock.now().getTime() }), next: '/wallet' })
      assert.equal(passed.location, '/wallet', 'the app still works once the old token is gone')
    } finally {
      await after_.close()
    }
  } finally {
    await database.close()
  }
})
