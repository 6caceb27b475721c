// The provider's words stop at its adapter: every deposit status, payout status and MED body Eulen
// sends is read once into the domain's event, which is all a use case sees (docs/design.md, walk 2).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { requestHash } from '../../src/request-hash.ts'
import { DomainError } from '../../src/domain/errors.ts'
import { providerStatuses, type DepositEvent, type ProviderPayoutState } from '../../src/domain/provider-report.ts'
import { parseProviderDeposit, parseProviderMed, parseProviderPayout } from '../../src/provider/eulen-replies.ts'

test('each deposit status is the event it is for its charge: depix_sent delivers the money; an unknown status is no event', () => {
  const expected: Record<string, DepositEvent | null> = {
    pending: { kind: 'provider_status', status: 'pending' },
    delayed: { kind: 'provider_status', status: 'delayed' },
    approved: { kind: 'provider_status', status: 'approved' },
    under_review: { kind: 'provider_status', status: 'under_review' },
    depix_sent: { kind: 'money_arrived' },
    will_refund: { kind: 'provider_status', status: 'will_refund' },
    refunded: { kind: 'provider_status', status: 'refunded' },
    canceled: { kind: 'provider_status', status: 'canceled' },
    expired: { kind: 'provider_status', status: 'expired' },
    error: { kind: 'provider_status', status: 'error' },
    paid_somehow: null,
    DEPIX_SENT: null,
  }
  assert.deepEqual(providerStatuses.filter((status) => !(status in expected)), [], 'every status the domain knows is mapped here')
  for (const [status, event] of Object.entries(expected)) {
    const body = { qrId: 'q1', status, valueInCents: 1000 }
    const report = parseProviderDeposit({ response: 'ignored', ...body })
    assert.deepEqual(report.event, event, status)
    // What its moves record: the status as written, and a key under which a claw-back counts once.
    assert.equal(report.statusText, status)
    assert.equal(report.report.key, `status:${status}`)
    assert.equal(report.report.blockReason, `${status} reported by the provider`)
    assert.deepEqual(report.report.body, { response: 'ignored', ...body })
  }
  // The payer and what arrived, in either spelling Eulen's versions use.
  const delivered = parseProviderDeposit({ id: 'q2', status: 'depix_sent', valueInCents: '995', payerEUID: 'EU000000000000001', payerTaxNumber: '***.444.777-**', blockchainTxID: 'tx' })
  assert.deepEqual([delivered.qrId, delivered.valueInCents, delivered.payerEuid, delivered.payerTaxNumber, delivered.blockchainTxId], ['q2', 995, 'EU000000000000001', '***.444.777-**', 'tx'])
})

test('each payout status is where the Pix-out stands: sent is paid; error, canceled and refunded failed; the rest is on its way', () => {
  const expected: Record<string, ProviderPayoutState> = {
    unsent: 'on_its_way', sending: 'on_its_way', sent: 'paid', error: 'failed', canceled: 'failed', refunded: 'failed', something_new: 'on_its_way',
  }
  for (const [status, state] of Object.entries(expected)) {
    const payout = parseProviderPayout({ withdrawalId: 'w1', status })
    assert.equal(payout.state, state, status)
    assert.equal(payout.statusText, status)
  }
  assert.equal(parseProviderPayout({ id: 'w1' }).state, 'on_its_way', 'no status yet')
})

test('a MED webhook is the domain\'s MED: its payer, what it took back, and a key that is the same only for the same report', () => {
  const body = { qrId: 'q1', euid: 'EU000000000000009', taxNumber: '12345678909', principalValueInCents: 300, createdAt: '2026-11-20' }
  const med = parseProviderMed(body)
  assert.deepEqual({ ...med, report: { ...med.report, key: undefined } }, {
    qrId: 'q1', euid: 'EU000000000000009', taxNumber: '12345678909', principalCents: 300,
    report: { key: undefined, blockReason: 'MED on deposit q1', body },
  })
  // Delivered again, in any key order: the same report. Anything said differently: another.
  const reordered = Object.fromEntries(Object.entries(body).reverse())
  assert.equal(parseProviderMed(reordered).report.key, med.report.key)
  assert.notEqual(parseProviderMed({ ...body, createdAt: '2026-11-21' }).report.key, med.report.key)
  // The key claw-backs were always stored under: a MED recorded before this release is still the same report.
  assert.equal(med.report.key, `med:${requestHash(body)}`)
  // Unstated: all of it; unnamed payer: the charge's own.
  assert.deepEqual([parseProviderMed({ qrId: 'q1' }).principalCents, parseProviderMed({ qrId: 'q1', principalValueInCents: '250' }).principalCents], [null, 250])
  assert.deepEqual([parseProviderMed({ qrId: 'q1', euid: '' }).euid, parseProviderMed({ qrId: 'q1' }).taxNumber], [null, null])
  for (const [bad, param] of [[{}, 'qrId'], [{ qrId: 'q1', principalValueInCents: 0 }, 'principalValueInCents'], [{ qrId: 'q1', principalValueInCents: '1.5' }, 'principalValueInCents']] as const) {
    assert.throws(() => parseProviderMed(bad), (error: unknown) => error instanceof DomainError && error.code === 'invalid_request' && error.param === param, JSON.stringify(bad))
  }
})
