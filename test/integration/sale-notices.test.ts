// The owner hears about sales (docs/payment-pages.md): an e-mail through the queued mail when a
// charge is paid, held or released; on by default for charges from payment links, a Wallet
// setting for the rest.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { signedInClient } from '../support/wallet-client.ts'

let service: TestService
let seller: Awaited<ReturnType<TestService['merchant']>>
before(async () => {
  service = await startTestService()
  seller = await service.merchant('vendas@example.com', generateCpf())
})
after(() => service.close())

type Mail = { subject: string; text: string; code: string | null }
async function saleMails(): Promise<Mail[]> {
  await service.jobs.runDue()
  const response = await service.request({ method: 'GET', url: `/sandbox/outbox?email=${encodeURIComponent(seller.email)}` })
  return (response.body.mails as Mail[]).filter((mail) => mail.code === null)
}

test('a sale through a link is mailed to its owner; other charges only once the Wallet asks; held and released are mailed too', async () => {
  const link = ok(await service.api.post('/api/payment-links', { title: 'Cocada', amount: '10.00' }, { token: seller.token }))
  const payer = generateCpf()
  const bought = await service.app.inject({
    method: 'POST', url: new URL(link.url).pathname, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ name: 'Joana Dias', tax_number: payer }).toString(),
  })
  assert.equal(bought.statusCode, 303, bought.body)
  const chargeId = String(bought.headers.location).slice('/pay/'.length)
  assert.deepEqual(await saleMails(), [], 'nothing is mailed before the payment')
  assert.equal((await service.pay(chargeId, payer)).body.status, 'depix_sent')
  const [paid, ...others] = await saleMails()
  assert.equal(others.length, 0)
  assert.equal(paid!.subject, 'Pagamento recebido: R$ 10,00')
  assert.match(paid!.text, new RegExp(`Cobrança: ${chargeId}`))
  assert.match(paid!.text, /Link: Cocada/)
  assert.match(paid!.text, /Pagador: Payer P\. · \*\*\*\.\d{3}\.\d{3}-\*\*/)
  assert.ok(!paid!.text.includes(payer), 'the whole tax number is not mailed')
  assert.match(paid!.text, new RegExp(`/wallet/links/${link.id}`))

  // An API charge: the owner did not ask, so nothing is mailed.
  const create = async (payer: { tax_number: string } | { euid: string }, value = '10.00') =>
    ok(await service.api.post('/api/create-payment', { value, email: seller.email, ...payer }, { token: seller.token })).id
  const quiet = await create({ tax_number: generateCpf() })
  await service.pay(quiet, generateCpf())
  assert.equal((await saleMails()).length, 1)

  // The Wallet's setting: every charge paid, held or released is mailed.
  const wallet = await signedInClient(service, seller.email)
  await wallet.get('/wallet')
  assert.equal((await wallet.post('/wallet/settings', { display_name: 'Cocadas da Joana', notify_sales: 'yes' })).status, 303)
  assert.match((await wallet.get('/wallet')).html, /name="notify_sales" value="yes" checked/)

  const held = await create({ tax_number: generateCpf() })
  assert.equal((await service.pay(held, generateCpf())).body.status, 'security_hold')
  assert.equal((await saleMails())[0]!.subject, 'Pagamento retido para revisão: R$ 10,00')

  // A third party pays a charge made for a known payer: credited, held 7 days, then released.
  const payerEuid = ok(await service.api.get(`/api/get-payment/${chargeId}`, { token: seller.token })).payerEuid
  assert.ok(payerEuid)
  const later = await create({ euid: payerEuid }, '20.00')
  assert.equal((await service.pay(later, generateCpf())).body.status, 'after7d')
  assert.equal((await saleMails())[0]!.subject, 'Pagamento recebido: R$ 20,00')
  await service.advance(7 * 24 * 3600)
  const [released] = await saleMails()
  assert.equal(released!.subject, 'Pagamento liberado: R$ 20,00')
  assert.match(released!.text, /foi liberado e conta no seu saldo disponível/)
  assert.equal((await saleMails()).length, 4)

  // Unchecked, the setting is off again.
  await wallet.get('/wallet')
  await wallet.post('/wallet/settings', { display_name: 'Cocadas da Joana' })
  const off = await create({ tax_number: generateCpf() })
  await service.pay(off, generateCpf())
  assert.equal((await saleMails()).length, 4)
})

test('each link has its own switch for the owner\'s e-mail, set at creation and in the Wallet; mail follows the language the owner reads the Wallet in', async () => {
  const quiet = ok(await service.api.post('/api/payment-links', { title: 'Pé de moleque', amount: '10.00', notify_sales: false }, { token: seller.token }))
  assert.equal(quiet.notify_sales, false)
  const buy = async (link: { url: string }) => {
    const payer = generateCpf()
    const bought = await service.app.inject({
      method: 'POST', url: new URL(link.url).pathname, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ name: 'Rita Lopes', tax_number: payer }).toString(),
    })
    assert.equal(bought.statusCode, 303, bought.body)
    assert.equal((await service.pay(String(bought.headers.location).slice('/pay/'.length), payer)).body.status, 'depix_sent')
  }
  // The outbox lists every mail, newest first: what a step added is the head beyond the count before it.
  let seen = (await saleMails()).length
  const newMails = async () => {
    const all = await saleMails()
    const added = all.slice(0, all.length - seen)
    seen = all.length
    return added
  }
  await buy(quiet)
  assert.deepEqual(await newMails(), [], 'a link whose owner turned its notices off mails nothing')

  const wallet = await signedInClient(service, seller.email)
  assert.match((await wallet.get(`/wallet/links/${quiet.id}`)).html, /name="notify_sales" value="yes" >/)
  assert.equal((await wallet.post(`/wallet/links/${quiet.id}/notices`, { notify_sales: 'yes' })).status, 303)
  assert.equal(ok(await service.api.get(`/api/payment-links/${quiet.id}`, { token: seller.token })).notify_sales, true)
  await buy(quiet)
  assert.deepEqual((await newMails()).map((mail) => mail.subject), ['Pagamento recebido: R$ 10,00'])

  // The owner reads the Wallet in English: mail sent while they are away is in English too.
  assert.equal((await wallet.get('/wallet/lang/en')).status, 303)
  await buy(quiet)
  const [english, ...more] = await newMails()
  assert.equal(more.length, 0)
  assert.equal(english!.subject, 'Payment received: R$ 10,00')
  assert.match(english!.text, /Link: Pé de moleque/)
  await wallet.get('/wallet/lang/pt-BR')
  await buy(quiet)
  assert.deepEqual((await newMails()).map((mail) => mail.subject), ['Pagamento recebido: R$ 10,00'])
})
