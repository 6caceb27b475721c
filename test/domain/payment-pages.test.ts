// The payment page's and payment links' pure rules (docs/payment-pages.md).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { chosenAmountCents, linkClosedReason, parsePaymentLink } from '../../src/domain/payment-link.ts'
import { countdownText, maskPayerName, pagePhase, parseDisplayName, refreshSeconds } from '../../src/domain/payment-page.ts'
import { saleNoticeFor } from '../../src/domain/sale-notice.ts'

const now = new Date('2026-11-23T12:00:00Z')

test('a QR past its expiry is expired on the page before the expiry job moves it; only money on its way is followed', () => {
  assert.equal(pagePhase('waiting_payment', new Date(now.getTime() + 1), now), 'waiting')
  assert.equal(pagePhase('waiting_payment', now, now), 'expired')
  assert.equal(pagePhase('after7d', now, now), 'paid')
  assert.equal(pagePhase('security_hold', now, now), 'held')
  assert.equal(refreshSeconds('waiting'), 5)
  assert.equal(refreshSeconds('held'), 30)
  assert.equal(refreshSeconds('paid'), null)
  assert.equal(countdownText(600), '10:00')
  assert.equal(countdownText(59.9), '0:59')
  assert.equal(countdownText(-3), '0:00')
})

test('a receipt shows the first name and initials; a display name is trimmed, printable, at most 60 characters', () => {
  assert.equal(maskPayerName('  maria  clara souza '), 'maria C. S.')
  assert.equal(maskPayerName('Élodie'), 'Élodie')
  assert.equal(maskPayerName(''), null)
  assert.equal(maskPayerName(null), null)
  assert.equal(parseDisplayName('  Doces \t da   Ana '), 'Doces da Ana')
  assert.equal(parseDisplayName('   '), null)
  assert.throws(() => parseDisplayName('a\u0007b'), { code: 'display_name_invalid' })
  assert.throws(() => parseDisplayName('x'.repeat(61)), { code: 'display_name_invalid' })
})

test('what a payer types for an open amount: Brazilian or API notation, within the bounds', () => {
  const open = { amountCents: null, minCents: 1000, maxCents: 200_000 }
  assert.equal(chosenAmountCents(open, 'R$ 1.234,56'), 123_456)
  assert.equal(chosenAmountCents(open, '12,5'), 1250)
  assert.equal(chosenAmountCents(open, '12.50'), 1250)
  assert.throws(() => chosenAmountCents(open, '9,99'), { code: 'value_out_of_range' })
  assert.throws(() => chosenAmountCents(open, 'dez'), { code: 'value_invalid' })
  assert.throws(() => chosenAmountCents(open, undefined), { code: 'value_invalid' })
  // A fixed price ignores whatever was typed.
  assert.equal(chosenAmountCents({ amountCents: 1000, minCents: null, maxCents: null }, '5000,00'), 1000)
})

test('a link: bounds default to the charge bounds, and it closes when deactivated, expired or sold out', () => {
  assert.deepEqual(parsePaymentLink({ title: ' Bolo ', swap_to: 'BTC' }, now), { title: 'Bolo', description: null, amountCents: null, minCents: 2000, maxCents: 500_000, currency: 'BTC', expiresAt: null, maxUses: null, notifySales: true })
  assert.equal(parsePaymentLink({ title: 'Bolo', notify_sales: false }, now).notifySales, false)
  assert.equal(parsePaymentLink({ title: 'Bolo\nde  pote', amount: '10.00' }, now).title, 'Bolo de pote')
  assert.throws(() => parsePaymentLink({ title: 'Bolo\u0007', amount: '10.00' }, now), { code: 'payment_link_invalid' })
  const open = { active: true, expiresAt: new Date(now.getTime() + 1000), maxUses: 2 }
  assert.equal(linkClosedReason(open, 1, now), null)
  assert.equal(linkClosedReason(open, 2, now), 'sold_out')
  assert.equal(linkClosedReason({ ...open, active: false }, 0, now), 'inactive')
  assert.equal(linkClosedReason(open, 0, new Date(now.getTime() + 1000)), 'expired')
})

test('the owner hears of a payment, a hold and a release, each once, read from the move decided', () => {
  const moved = (status: 'depix_sent' | 'after7d' | 'security_hold' | 'expired', events: string[]) =>
    ({ outcome: 'moved', status, reviewReason: null, effects: events.map((event) => ({ kind: 'queue_webhook', event })) }) as never
  assert.equal(saleNoticeFor('waiting_payment', moved('depix_sent', ['payment.confirmed'])), 'paid')
  assert.equal(saleNoticeFor('pending', moved('after7d', ['payment.confirmed'])), 'paid')
  assert.equal(saleNoticeFor('security_hold', moved('depix_sent', ['payment.confirmed'])), 'released')
  assert.equal(saleNoticeFor('after7d', moved('depix_sent', ['balance.released'])), 'released')
  assert.equal(saleNoticeFor('waiting_payment', moved('security_hold', [])), 'held')
  assert.equal(saleNoticeFor('security_hold', moved('security_hold', [])), null)
  assert.equal(saleNoticeFor('waiting_payment', moved('expired', ['payment.expired'])), null)
})
