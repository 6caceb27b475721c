// The one executor of the charge state machine's decisions (domain/charge.ts#decideCharge): inside
// the caller's transaction, with the charge and its account locked, it writes the new status and
// carries out the effects: ledger postings, the release job, identity bindings and blocks, the
// merchant's webhook. It decides nothing.
import { randomBytes } from 'node:crypto'
import type { Updateable } from 'kysely'
import { THIRD_PARTY_HOLD_SECONDS, type ChargeDecision, type ChargeView, type WebhookEventName } from '../domain/charge.ts'
import { creditPosting, medDebitPosting, releasePosting } from '../domain/ledger.ts'
import { isMaskedTaxNumber } from '../domain/tax-number.ts'
import type { Charge, ChargesTable } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { serializeWebhookBody } from '../webhooks/signature.ts'
import type { Quote } from './quote-book.ts'

export function chargeView(charge: Charge): ChargeView {
  return { status: charge.status, valueCents: charge.value_cents, informedEuid: charge.informed_euid, informedTaxNumber: charge.informed_tax_number, webhookEvents: charge.webhook_events }
}

export type DecisionContext = {
  now: Date
  /** The quote asked for before the transaction, for a conversion. */
  quote: Quote | null
  /** The provider status that caused the move, kept on the charge. */
  providerStatus?: string
  /** Who a MED names, and why, for the blocks. */
  dispute?: { taxNumber: string | null; euid: string | null; reason: string; by: string }
}

/** Blocks the charge's e-mail and the payer's identities; each is recorded once. */
export async function blockIdentities(
  store: Store,
  charge: Charge | null,
  dispute: { taxNumber: string | null; euid: string | null; reason: string; by: string },
  now: Date,
): Promise<void> {
  const account = charge ? await store.accounts.findById(charge.account_id) : undefined
  const identities = [
    ['email', account?.email ?? null],
    ['tax_number', dispute.taxNumber !== null && !isMaskedTaxNumber(dispute.taxNumber) ? dispute.taxNumber : null],
    ['euid', dispute.euid],
  ] as const
  for (const [kind, value] of identities) {
    if (value === null) continue
    const already = await store.identities.blockedKinds({ [kind === 'tax_number' ? 'taxNumber' : kind]: value })
    if (already.includes(kind)) continue
    await store.identities.addBlock({ kind, value, reason: dispute.reason, charge_id: charge?.id ?? null, created_by: dispute.by, created_at: now })
  }
}

/**
 * The merchant's webhook for this event, if the charge has a webhook_url: the body is fixed now,
 * with a stable webhook-id, and delivered by a job written in this same transaction.
 */
async function queueWebhook(store: Store, charge: Charge, event: WebhookEventName, now: Date): Promise<void> {
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

/**
 * The payer's identities bind to the receiving account (an identity already bound keeps its
 * account). The owner's own purchase, paid with the owner's tax number, gives the account its
 * EUID and so the right to issue a token; without an EUID from the provider the account is left
 * "unidentified" for support.
 */
async function bindPayer(store: Store, charge: Charge, now: Date): Promise<void> {
  if (charge.payer_euid !== null) await store.identities.bind('euid', charge.payer_euid, charge.account_id, now)
  if (charge.payer_tax_number !== null && !isMaskedTaxNumber(charge.payer_tax_number)) {
    await store.identities.bind('tax_number', charge.payer_tax_number, charge.account_id, now)
  }
  const account = await store.accounts.findById(charge.account_id)
  if (!account || account.kyc === 'verified' || account.owner_tax_number === null || charge.payer_tax_number !== account.owner_tax_number) return
  if (charge.payer_euid !== null) {
    const owner = await store.identities.boundAccount('euid', charge.payer_euid)
    if (owner === undefined || owner === account.id) {
      await store.accounts.update(account.id, { euid: charge.payer_euid, kyc: 'verified' })
      return
    }
  }
  await store.accounts.update(account.id, { kyc: 'unidentified' })
}

export async function applyChargeDecision(store: Store, charge: Charge, decision: Extract<ChargeDecision, { kind: 'move' }>, context: DecisionContext): Promise<Charge> {
  const { now } = context
  const values: Updateable<ChargesTable> = {
    status: decision.to,
    updated_at: now,
    ...(decision.holdReason === undefined ? {} : { hold_reason: decision.holdReason }),
    ...(context.providerStatus === undefined ? {} : { provider_status: context.providerStatus }),
  }
  for (const effect of decision.effects) {
    switch (effect.kind) {
      case 'credit': {
        if (charge.currency !== 'DEPIX' && context.quote === null) throw new Error(`a ${charge.currency} credit needs a quote`)
        const quoteCents = charge.currency === 'DEPIX' ? null : context.quote!.cents
        const { posting, credited } = creditPosting({
          id: charge.id,
          accountId: charge.account_id,
          // What arrived (decisions 13); the charge value when the provider never said.
          valueCents: charge.paid_cents ?? charge.value_cents,
          currency: charge.currency,
          quoteCents,
          held: effect.held,
        })
        await store.ledger.post(posting, charge.id, now)
        const releaseAt = effect.held ? new Date(now.getTime() + THIRD_PARTY_HOLD_SECONDS * 1000) : null
        Object.assign(values, { credited_units: credited, confirmed_at: now, release_at: releaseAt })
        if (quoteCents !== null) Object.assign(values, { quote_cents: quoteCents, quote_source: context.quote!.source, quote_at: context.quote!.at })
        if (releaseAt) await store.jobs.enqueue('release_hold', { chargeId: charge.id }, releaseAt, now)
        break
      }
      case 'release_credit':
        await store.ledger.post(releasePosting({ id: charge.id, accountId: charge.account_id, currency: charge.currency, credited: charge.credited_units ?? 0 }), charge.id, now)
        break
      case 'take_back_credit':
        if (charge.credited_units !== null) {
          await store.ledger.post(
            medDebitPosting({ id: charge.id, accountId: charge.account_id, currency: charge.currency, credited: charge.credited_units, held: effect.held }),
            charge.id,
            now,
          )
        }
        break
      case 'block_identities':
        await blockIdentities(store, charge, context.dispute ?? { taxNumber: charge.payer_tax_number, euid: charge.payer_euid, reason: `MED on payment ${charge.id}`, by: 'provider' }, now)
        break
      case 'bind_payer':
      case 'queue_webhook':
        break
    }
  }
  const updated = await store.charges.update(charge.id, values)
  // These read the charge as it now is: its status is in the webhook body, its payer is bound.
  for (const effect of decision.effects) {
    if (effect.kind === 'bind_payer') await bindPayer(store, updated, now)
    if (effect.kind === 'queue_webhook') await queueWebhook(store, updated, effect.event, now)
  }
  return updated
}
