// Issue 46, point 5: the e-mailed codes that guard money (a destination's, a withdrawal's). A wrong
// try counts although the request that made it is refused, the fifth burns the code (the right one
// no longer works), and every route that checks such a code is limited per session, per client
// address, per subject and per account. Through the Wallet's forms, as an owner (or a guesser
// holding an owner's session) would type them.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { newLiquidAddress } from '../../src/treasury/liquid-address.ts'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { newestCode, signedInClient, type WalletPage } from '../support/wallet-client.ts'
import { confirmedDestination, ownerWithBalance } from '../support/withdrawals.ts'

let service: TestService
before(async () => {
  service = await startTestService()
})
after(() => service.close())

const BLINDING_KEY = Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')
const liquidAddress = () => newLiquidAddress('elementsregtest', randomBytes(20), BLINDING_KEY)
/** A code that is not `code`. */
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0')
const errorCode = (page: WalletPage) => page.headers['x-error-code']

type Wallet = Awaited<ReturnType<typeof signedInClient>>

/** The wrong tries stored on the e-mail's codes for `purpose`, oldest code first. */
const storedTries = async (email: string, purpose: 'destination' | 'withdrawal') =>
  (await service.database.db.selectFrom('wallet_codes').select('attempts').where('email', '=', email).where('purpose', '=', purpose).orderBy('id').execute()).map((row) => row.attempts)

/** An account with an owner, signed in to the Wallet from `address`. */
async function owner(email: string, address: string): Promise<Wallet> {
  await service.merchant(email, generateCpf())
  return signedInClient(service, email, address)
}

/** Adds a Liquid destination (or asks again for one not yet confirmed): its id and the code just mailed. */
async function addDestination(wallet: Wallet, email: string, address = liquidAddress()): Promise<{ id: string; code: string; address: string }> {
  await wallet.get('/wallet/destinations')
  const added = await wallet.post('/wallet/destinations', { type: 'liquid', value: address, label: '' })
  assert.equal(added.status, 303, added.html)
  await wallet.get(added.location!)
  return { id: /dst_[0-9a-f]+/.exec(added.location!)![0], code: await newestCode(service, email), address }
}

const confirmDestination = (wallet: Wallet, id: string, code: string) => wallet.post(`/wallet/destinations/${id}/confirm`, { code })

/** `times` wrong codes for the destination, each refused as wrong (the fifth: burned). */
async function guessDestination(wallet: Wallet, destination: { id: string; code: string }, times: number): Promise<void> {
  for (let i = 1; i <= times; i++) {
    const refused = await confirmDestination(wallet, destination.id, wrong(destination.code))
    assert.equal(refused.status, 400, `try ${i}: ${refused.html}`)
    assert.equal(errorCode(refused), i < 5 ? 'action_code_invalid' : 'action_code_burned', `try ${i}`)
  }
}

function assertRateLimited(page: WalletPage, why: string): void {
  assert.equal(page.status, 429, `${why}: ${page.status} ${String(errorCode(page))}`)
  assert.equal(errorCode(page), 'rate_limited', why)
  assert.ok(Number(page.headers['retry-after']) > 0, `${why}: Retry-After ${String(page.headers['retry-after'])}`)
  // The page says it in the reader's language (pt-BR by default), with the wait in minutes.
  assert.match(page.html, /Códigos demais digitados daqui, para esta conta ou para este pedido\. Tente de novo em \d+ min\./, why)
}

test('a destination\'s code: each wrong try is counted although refused, the fifth burns it, the right code then fails; a new code works', async () => {
  const email = 'burn-destination@example.com'
  const wallet = await owner(email, '10.46.1.1')
  const destination = await addDestination(wallet, email)
  for (let i = 1; i <= 4; i++) {
    const refused = await confirmDestination(wallet, destination.id, wrong(destination.code))
    assert.equal(refused.status, 400)
    assert.equal(errorCode(refused), 'action_code_invalid')
    assert.deepEqual(await storedTries(email, 'destination'), [i], `wrong try ${i} is stored though its request was refused`)
  }
  const fifth = await confirmDestination(wallet, destination.id, wrong(destination.code))
  assert.equal(errorCode(fifth), 'action_code_burned')
  assert.match(fifth.html, /data-code="action_code_burned"/)
  const right = await confirmDestination(wallet, destination.id, destination.code)
  assert.equal(right.status, 400, 'the right code no longer works')
  assert.equal(errorCode(right), 'action_code_burned')
  assert.equal((await wallet.get(`/wallet/destinations/${destination.id}`)).status, 200, 'still waiting for a code')

  // Asking again mails a new code for the same destination; it works.
  const again = await addDestination(wallet, email, destination.address)
  assert.equal(again.id, destination.id)
  assert.equal((await confirmDestination(wallet, again.id, again.code)).location, '/wallet/destinations?notice=confirmed')
  assert.deepEqual(await storedTries(email, 'destination'), [5, 0])
})

test('a withdrawal\'s code: each wrong try is counted although refused, the fifth burns it, nothing is reserved; a burst of tries meets 429', async () => {
  const email = 'burn-withdrawal@example.com'
  const rich = await ownerWithBalance(service, email, '300.00')
  const destination = await confirmedDestination(service, rich, 'pix', rich.taxNumber)
  await service.advance(24 * 3600 + 1)
  const wallet = await signedInClient(service, email, '10.46.2.1')
  await wallet.get('/wallet/withdrawals')
  const asked = await wallet.post('/wallet/withdrawals', { destination_id: destination, currency: 'DEPIX', amount: '100,00' })
  assert.equal(asked.status, 303, asked.html)
  await wallet.get(asked.location!)
  const id = /wd_[0-9a-f]{24}/.exec(asked.location!)![0]
  const code = await newestCode(service, email)
  const confirm = (typed: string) => wallet.post(`/wallet/withdrawals/${id}/confirm`, { code: typed })

  for (let i = 1; i <= 4; i++) {
    assert.equal(errorCode(await confirm(wrong(code))), 'action_code_invalid')
    assert.deepEqual(await storedTries(email, 'withdrawal'), [i], `wrong try ${i} is stored though its request was refused`)
  }
  assert.equal(errorCode(await confirm(wrong(code))), 'action_code_burned')
  assert.equal(errorCode(await confirm(code)), 'action_code_burned', 'the right code no longer works')
  assert.equal((await service.store.withdrawals.findById(id))!.status, 'requested')
  const balance = ok(await service.api.get('/api/get-balance', { token: rich.token }))
  assert.equal(balance.balances.DEPIX.available_cents, 29_900, 'nothing reserved')

  // Six tries so far from this session on this withdrawal: four more are answered, the next is 429.
  for (let i = 7; i <= 10; i++) assert.equal(errorCode(await confirm(code)), 'action_code_burned', `try ${i}`)
  assertRateLimited(await confirm(code), 'the eleventh try')

  await wallet.get(`/wallet/withdrawals/${id}`)
  assert.equal((await wallet.post(`/wallet/withdrawals/${id}/cancel`)).status, 303, 'the owner cancels it and may ask for a new one')
  assert.equal((await service.store.withdrawals.findById(id))!.status, 'canceled')
})

test('tries at codes are limited per session: the eleventh in a burst is 429, whatever it names; another session goes on', async () => {
  const email = 'per-session@example.com'
  const wallet = await owner(email, '10.46.3.1')
  const first = await addDestination(wallet, email)
  const second = await addDestination(wallet, email)
  const third = await addDestination(wallet, email)
  await guessDestination(wallet, first, 5)
  await guessDestination(wallet, second, 5)
  assertRateLimited(await confirmDestination(wallet, third.id, third.code), 'an eleventh try from the session, at a third destination')

  // The same owner at the same address, in another session: neither the address, the account nor the destination is spent.
  const other = await signedInClient(service, email, '10.46.3.1')
  await other.get(`/wallet/destinations/${third.id}`)
  assert.equal((await confirmDestination(other, third.id, third.code)).location, '/wallet/destinations?notice=confirmed')
})

test('tries at codes are limited per subject: the eleventh at one destination is 429, from any session; another destination goes on', async () => {
  const email = 'per-subject@example.com'
  const one = await owner(email, '10.46.5.1')
  const guarded = await addDestination(one, email)
  const spare = await addDestination(one, email)
  await guessDestination(one, guarded, 5)
  const two = await signedInClient(service, email, '10.46.5.2')
  const renewed = await addDestination(two, email, guarded.address)
  await guessDestination(two, renewed, 5)

  const three = await signedInClient(service, email, '10.46.5.3')
  const last = await addDestination(three, email, guarded.address)
  assertRateLimited(await confirmDestination(three, last.id, last.code), 'an eleventh try at the destination, from a fresh session and address')
  await three.get(`/wallet/destinations/${spare.id}`)
  assert.equal((await confirmDestination(three, spare.id, spare.code)).location, '/wallet/destinations?notice=confirmed')
})

test('tries at codes are limited per account: the twenty-first, spread over sessions, addresses and destinations, is 429', async () => {
  const email = 'per-account@example.com'
  const sessions = [await owner(email, '10.46.6.1'), await signedInClient(service, email, '10.46.6.2')]
  for (const wallet of sessions) {
    await guessDestination(wallet, await addDestination(wallet, email), 5)
    await guessDestination(wallet, await addDestination(wallet, email), 5)
  }
  const third = await signedInClient(service, email, '10.46.6.3')
  const fresh = await addDestination(third, email)
  assertRateLimited(await confirmDestination(third, fresh.id, fresh.code), 'a twenty-first try for the account')

  // Another account from that address is not touched.
  const neighbour = await owner('per-account-neighbour@example.com', '10.46.6.3')
  const theirs = await addDestination(neighbour, 'per-account-neighbour@example.com')
  assert.equal((await confirmDestination(neighbour, theirs.id, theirs.code)).location, '/wallet/destinations?notice=confirmed')
})

test('tries at codes are limited per client address across sessions and accounts: the thirty-first is 429; elsewhere the owner goes on', async () => {
  const address = '10.46.4.1'
  for (const name of ['a', 'b', 'c']) {
    const email = `per-address-${name}@example.com`
    const wallet = await owner(email, address)
    await guessDestination(wallet, await addDestination(wallet, email), 5)
    await guessDestination(wallet, await addDestination(wallet, email), 5)
  }
  const email = 'per-address-d@example.com'
  const crowded = await owner(email, address)
  const destination = await addDestination(crowded, email)
  assertRateLimited(await confirmDestination(crowded, destination.id, destination.code), 'a thirty-first try from the address, in a fresh session of a fresh account')

  const elsewhere = await signedInClient(service, email, '10.46.4.2')
  await elsewhere.get(`/wallet/destinations/${destination.id}`)
  assert.equal((await confirmDestination(elsewhere, destination.id, destination.code)).location, '/wallet/destinations?notice=confirmed')
})
