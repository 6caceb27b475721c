// What a charge's transitions do besides changing its status, shared by the use cases that move
// it (provider events, support review, hold release, MED). Each runs inside the caller's
// transaction, with the charge row already locked.
import { randomBytes } from 'node:crypto'
import { THIRD_PARTY_HOLD_SECONDS } from '../domain/charge.ts'
import { creditPosting, medDebitPosting, releasePosting } from '../domain/ledger.ts'
import type { Charge } from '../store/schema.ts'
import type { Quote } from './quote-book.ts'
import type { Store } from '../store/store.ts'
import { serializeWebhookBody } from '../webhooks/signature.ts'

export type WebhookEvent = 'payment.confirmed' | 'balance.released'

/**
 * Queues the merchant webhook for this event, if the charge has a webhook_url: the body is fixed
 * now, with a stable webhook-id, and delivered by a job written in this same transaction.
 */
export async function queueWebhook(store: Store, charge: Charge, event: WebhookEvent, now: Date): Promise<void> {
  if (charge.webhook_url === null) return
  const account = await store.accounts.findById(charge.account_id)
  const id = `msg_${randomBytes(16).toString('hex')}`
  const body = serializeWebhookBody({
    payment_id: charge.id,
    email: account?.email ?? '',
    value_in_cents: charge.value_cents,
    payer_euid: charge.payer_euid,
    event,
    status: charge.status,
  })
  await store.webhookEvents.insert({ id, charge_id: charge.id, event, body, state: 'pending', created_at: now })
  await store.jobs.enqueue('deliver_webhook', { eventId: id, destination: new URL(charge.webhook_url).host }, now, now)
}

/** Binds the payer's identities to the receiving account; an identity already bound keeps its account. */
export async function bindPayer(store: Store, charge: Charge, now: Date): Promise<void> {
  if (charge.payer_euid !== null) await store.identities.bind('euid', charge.payer_euid, charge.account_id, now)
  if (charge.payer_tax_number !== null && !charge.payer_tax_number.includes('*')) {
    await store.identities.bind('tax_number', charge.payer_tax_number, charge.account_id, now)
  }
}

/**
 * The account owner's own purchase, paid with their own tax number, is what gives the account
 * its EUID (and so the right to issue a token). Without an EUID from the provider the account is
 * left "unidentified" for support to release.
 */
async function recordOwnPurchase(store: Store, charge: Charge): Promise<void> {
  const account = await store.accounts.lockById(charge.account_id)
  if (!account || account.kyc === 'verified' || account.owner_tax_number === null) return
  if (charge.payer_tax_number !== account.owner_tax_number) return
  if (charge.payer_euid !== null) {
    const owner = await store.identities.boundAccount('euid', charge.payer_euid)
    if (owner === undefined || owner === account.id) {
      await store.accounts.update(account.id, { euid: charge.payer_euid, kyc: 'verified' })
      return
    }
  }
  await store.accounts.update(account.id, { kyc: 'unidentified' })
}

/**
 * Confirms a payment: converts at the current quote, posts the credit (available, or held for a
 * third-party payment with its release scheduled), binds identities when the payer matched, and
 * queues "payment confirmed".
 */
export async function creditCharge(store: Store, charge: Charge, to: 'depix_sent' | 'after7d', now: Date, quote: Quote | null): Promise<Charge> {
  if (charge.currency !== 'DEPIX' && quote === null) throw new Error(`a ${charge.currency} credit needs a quote`)
  const held = to === 'after7d'
  const { posting, credited } = creditPosting({
    id: charge.id,
    accountId: charge.account_id,
    // What arrived (decisions 13); the charge value when the provider never said.
    valueCents: charge.paid_cents ?? charge.value_cents,
    currency: charge.currency,
    quoteCents: charge.currency === 'DEPIX' ? null : quote!.cents,
    held,
  })
  await store.ledger.post(posting, charge.id, now)
  const releaseAt = held ? new Date(now.getTime() + THIRD_PARTY_HOLD_SECONDS * 1000) : null
  const updated = await store.charges.update(charge.id, {
    status: to,
    hold_reason: null,
    ...(charge.currency === 'DEPIX' || quote === null ? {} : { quote_cents: quote.cents, quote_source: quote.source, quote_at: quote.at }),
    credited_units: credited,
    confirmed_at: now,
    release_at: releaseAt,
    updated_at: now,
  })
  if (held) {
    await store.jobs.enqueue('release_hold', { chargeId: charge.id }, releaseAt!, now)
  } else {
    await bindPayer(store, updated, now)
    await recordOwnPurchase(store, updated)
  }
  await queueWebhook(store, updated, 'payment.confirmed', now)
  return updated
}

/** The end of a third-party hold: the held credit becomes available; "balance released". */
export async function releaseCredit(store: Store, charge: Charge, now: Date): Promise<Charge> {
  await store.ledger.post(
    releasePosting({ id: charge.id, accountId: charge.account_id, currency: charge.currency, credited: charge.credited_units ?? 0 }),
    charge.id,
    now,
  )
  const updated = await store.charges.update(charge.id, { status: 'depix_sent', updated_at: now })
  await queueWebhook(store, updated, 'balance.released', now)
  return updated
}

/** A MED after credit: takes back what this payment credited (the balance may go negative). */
export async function takeBackCredit(store: Store, charge: Charge, now: Date): Promise<Charge> {
  if (charge.credited_units !== null) {
    await store.ledger.post(
      medDebitPosting({
        id: charge.id,
        accountId: charge.account_id,
        currency: charge.currency,
        credited: charge.credited_units,
        held: charge.status === 'after7d',
      }),
      charge.id,
      now,
    )
  }
  return store.charges.update(charge.id, { status: 'refunded', updated_at: now })
}
