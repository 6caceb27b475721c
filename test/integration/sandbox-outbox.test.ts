// The sandbox's outbox is read by black-box tests and demos right after they ask for a code: it
// must hold that code, although the service's own job runner (started here, as `npm start` does)
// may have claimed the mail before the read got to it.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { CODES_PER_EMAIL_PER_HOUR } from '../../src/app/owner-sign-in.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { walletClient } from '../support/wallet-client.ts'

let service: TestService
before(async () => {
  service = await startTestService()
  // The background lanes, woken by the database's job notifications as in a running service; the
  // poll is long so that only the notifications and the outbox read race for the mail.
  service.jobs.start(3_600_000)
})
after(() => service.close())

test('a code asked for is in the outbox when it is read at once, although a background lane claimed its mail: 100 tries', { timeout: 120_000 }, async () => {
  const tries = 100
  const owners = Math.ceil(tries / (CODES_PER_EMAIL_PER_HOUR - 1))
  const emails: string[] = []
  for (let i = 0; i < owners; i++) {
    const email = `outbox-${i}@example.com`
    const opened = await service.request({ method: 'POST', url: '/sandbox/accounts', body: { email, tax_number: generateCpf(), name: 'Dona Conta' } })
    assert.equal(opened.status, 200, JSON.stringify(opened.body))
    emails.push(email)
  }
  const missing: number[] = []
  for (let i = 0; i < tries; i++) {
    const email = emails[i % owners]!
    // A new address each time: the per-address hourly limit is not what this is about.
    const client = walletClient(service, `10.1.${Math.floor(i / 250)}.${(i % 250) + 1}`)
    await client.get('/wallet')
    const asked = await client.post('/wallet/sign-in', { email })
    assert.equal(asked.status, 303, asked.html)
    const outbox = await service.request({ method: 'GET', url: `/sandbox/outbox?email=${encodeURIComponent(email)}` })
    assert.equal(outbox.status, 200)
    const codes = (outbox.body.mails as Array<{ code: string | null }>).filter((mail) => mail.code !== null)
    if (codes.length !== Math.floor(i / owners) + 1) missing.push(i)
  }
  assert.deepEqual(missing, [], `the code was not in the outbox yet in ${missing.length} of ${tries} tries`)
})
