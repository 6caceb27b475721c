// Typed amounts are bounded: what support enters for a held payment whose arrival the provider never
// stated is taken as typed only within 5 % of the charge's value; beyond it nothing is credited or
// owed until a second operator, an admin other than the one who typed it, enters the same amount
// for the same decision. Over /ops (the token, X-Operator naming the operator) and in the console.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'
import { signedInOperator } from '../support/factors.ts'

let service: TestService
let token: string
before(async () => {
  service = await startTestService({ OPERATORS: 'ana@example.com:admin, joao@example.com:support, bia@example.com:admin', AUTH_FAILURES_PER_MINUTE: '0' })
  token = (await service.merchant('typed-shop@example.com', '52998224725')).token
})
after(() => service.close())

/** A R$ 10,00 charge paid by its informed payer, held (amount_mismatch) because the provider never said what arrived. */
async function unpricedHold(email: string): Promise<string> {
  const payer = generateCpf()
  const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email, tax_number: payer }, { token }))
  assert.equal((await service.pay(created.id, payer, undefined, { paid_cents: null })).body.status, 'security_hold')
  const charge = (await service.store.charges.findById(created.id))!
  assert.deepEqual([charge.hold_reason, charge.paid_cents], ['amount_mismatch', null])
  return created.id
}
const available = async (email: string) => (await service.store.ledger.balances((await service.store.accounts.findByEmail(email))!.id, 'available')).DEPIX
/** A review over /ops as the operator X-Operator names (none: "token"). */
const review = (id: string, body: Record<string, unknown>, operator?: string) =>
  service.request({
    method: 'POST', url: `/ops/payments/${id}/review`, body: { note: 'bank statement checked', ...body },
    headers: { authorization: `Bearer ${service.opsToken}`, ...(operator === undefined ? {} : { 'x-operator': operator }) },
  })
const auditOf = async (id: string) =>
  ((await service.ops('GET', '/ops/audit')).body.entries as Array<{ actor: string; action: string; subject: string; details: Record<string, unknown> }>).filter((entry) => entry.subject === `payment:${id}`).reverse()

test('over /ops: within 5 % of the value a typed amount is credited at once; R$ 4.999,00 on R$ 10,00 waits for an admin other than its author', async () => {
  const near = await unpricedHold('typed-near@example.com')
  const credited = await review(near, { decision: 'release', paid_cents: 1_050 }, 'joao@example.com')
  assert.deepEqual([credited.status, credited.body.status], [200, 'depix_sent'])
  assert.equal(await available('typed-near@example.com'), 950)

  const far = await unpricedHold('typed-far@example.com')
  const proposed = await review(far, { decision: 'release', paid_cents: 499_900 }, 'joao@example.com')
  assert.equal(proposed.status, 202, JSON.stringify(proposed.body))
  assert.deepEqual(proposed.body, { payment_id: far, status: 'security_hold', awaiting: 'second_operator', decision: 'release', paid_cents: 499_900, proposed_by: 'joao@example.com' })
  assert.equal(await available('typed-far@example.com'), 0, 'nothing credited on one operator\'s word')
  const listed = ((await service.ops('GET', '/ops/holds')).body.holds as Array<Record<string, any>>).find((entry) => entry.payment_id === far)!
  assert.deepEqual([listed.paid_amount_awaiting_confirmation.paid_cents, listed.paid_amount_awaiting_confirmation.proposed_by], [499_900, 'joao@example.com'])

  // Its author again, the token unnamed, a support operator, or an admin who typed another amount: still nothing.
  const again = await review(far, { decision: 'release', paid_cents: 499_900 }, 'JOAO@example.com')
  assert.deepEqual([again.status, again.body.code], [409, 'second_operator_required'])
  const unnamed = await review(far, { decision: 'release', paid_cents: 499_900 })
  assert.deepEqual([unnamed.status, unnamed.body.code], [403, 'operator_forbidden'])
  const stranger = await review(far, { decision: 'release', paid_cents: 499_900 }, 'somebody@example.com')
  assert.deepEqual([stranger.status, stranger.body.code], [403, 'operator_forbidden'])
  assert.equal(await available('typed-far@example.com'), 0)

  // The admin who typed a different amount made it her proposal; the other admin confirms hers.
  const other = await review(far, { decision: 'release', paid_cents: 49_990 }, 'bia@example.com')
  assert.deepEqual([other.status, other.body.proposed_by, other.body.paid_cents], [202, 'bia@example.com', 49_990])
  assert.equal((await review(far, { decision: 'release', paid_cents: 49_990 }, 'bia@example.com')).body.code, 'second_operator_required')
  const confirmed = await review(far, { decision: 'release', paid_cents: 49_990 }, 'ana@example.com')
  assert.deepEqual([confirmed.status, confirmed.body.status], [200, 'depix_sent'])
  assert.equal(await available('typed-far@example.com'), 49_890)
  const charge = (await service.store.charges.findById(far))!
  assert.deepEqual([charge.paid_cents, charge.paid_source], [49_990, 'support'])

  // Audited: who typed what, and who confirmed it.
  const audit = await auditOf(far)
  assert.deepEqual(audit.map((entry) => [entry.actor, entry.action]), [
    ['joao@example.com', 'review.paid_amount_proposed'],
    ['bia@example.com', 'review.paid_amount_proposed'],
    ['ana@example.com', 'review.release'],
  ])
  assert.deepEqual([audit[0]!.details.paid_cents, audit[0]!.details.value_cents], [499_900, 1_000])
  assert.deepEqual([audit[2]!.details.paid_cents, audit[2]!.details.paid_cents_proposed_by, audit[2]!.details.paid_cents_confirmed_by], [49_990, 'bia@example.com', 'ana@example.com'])
  assert.equal(((await service.ops('GET', '/ops/holds')).body.holds as Array<{ payment_id: string }>).some((entry) => entry.payment_id === far), false)
  assert.equal((await service.ops('GET', '/ops/ledger-check')).body.ok, true)
})

test('over /ops: a refund of a typed amount beyond 5 % is owed only once a second admin confirms it', async () => {
  const id = await unpricedHold('typed-refund@example.com')
  assert.equal((await review(id, { decision: 'refund', paid_cents: 300_000 }, 'ana@example.com')).status, 202)
  assert.equal(await service.store.refunds.findByCharge(id), undefined)
  // The same amount for another decision is another proposal, not a confirmation.
  assert.equal((await review(id, { decision: 'release', paid_cents: 300_000 }, 'bia@example.com')).status, 202)
  assert.equal(await available('typed-refund@example.com'), 0)
  assert.equal((await review(id, { decision: 'refund', paid_cents: 300_000 }, 'bia@example.com')).status, 202)
  const owed = await review(id, { decision: 'refund', paid_cents: 300_000 }, 'ana@example.com')
  assert.deepEqual([owed.status, owed.body.status], [200, 'will_refund'])
  assert.equal((await service.store.refunds.findByCharge(id))!.owed_cents, 300_000)
})

/** Operators sign in with the e-mail code and their second factor (enrolled the first time). */
const signedIn = (email: string) => signedInOperator(service, email)

test('in the console: support types R$ 4.999,00 on R$ 10,00, the page says it waits; the author cannot confirm it, another admin can', async () => {
  const id = await unpricedHold('typed-console@example.com')
  const joao = await signedIn('joao@example.com')
  await joao.get(`/console/charges/${id}`)
  const typed = await joao.post(`/console/charges/${id}/review`, { decision: 'release', paid: '4999,00', note: 'bank statement says so' })
  assert.equal(typed.status, 303, typed.html.slice(0, 300))
  assert.equal(typed.location, `/console/charges/${id}?done=proposed`)
  const page = await joao.get(typed.location!)
  assert.match(page.html, /role="status">Guardado, nada se moveu/)
  assert.match(page.html, /data-pending-amount="499900">R\$ 4\.999,00 para Liberar para a conta, digitado por joao@example\.com/)
  assert.equal(await available('typed-console@example.com'), 0)
  const twice = await joao.post(`/console/charges/${id}/review`, { decision: 'release', paid: '4999,00', note: 'again' })
  assert.equal(twice.headers['x-error-code'], 'second_operator_required')

  const ana = await signedIn('ana@example.com')
  await ana.get(`/console/charges/${id}`)
  const confirmed = await ana.post(`/console/charges/${id}/review`, { decision: 'release', paid: '4999,00', note: 'statement checked too' })
  assert.equal(confirmed.location, `/console/charges/${id}?done=1`)
  assert.equal(await available('typed-console@example.com'), 499_800)
  const audit = await auditOf(id)
  assert.deepEqual(audit.map((entry) => [entry.actor, entry.action]), [['joao@example.com', 'review.paid_amount_proposed'], ['ana@example.com', 'review.release']])
  assert.equal(audit[1]!.details.paid_cents_proposed_by, 'joao@example.com')
})
