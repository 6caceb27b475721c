// The one executor of the charge state machine's decisions (domain/charge.ts#decideCharge): inside
// the caller's transaction, with the charge, its account and its payer's identities locked
// (app/move-charge.ts), it writes the new status and carries out the effects: ledger postings in
// the amounts the decision carries, the release job, claw-back reports, refund obligations,
// identity bindings and blocks, the merchant's webhook. It decides nothing.
import { randomBytes } from 'node:crypto'
import type { Updateable } from 'kysely'
import { THIRD_PARTY_HOLD_SECONDS, type ChargeDecision, type ChargeEffect, type ChargeView, type WebhookEventName } from '../domain/charge.ts'
import { clawbackLossPosting, clawbackPosting, creditPosting, refundOwedPosting, refundSettledPosting, releasePosting } from '../domain/ledger.ts'
import { decidePayerBinding } from '../domain/payer-binding.ts'
import { isMaskedTaxNumber } from '../domain/tax-number.ts'
import type { Account, Charge, ChargesTable, Refund } from '../store/schema.ts'
import type { ChargeTimelineEntry, LockedCharge } from '../store/charges.ts'
import type { Store } from '../store/store.ts'
import { serializeWebhookBody } from '../webhooks/signature.ts'
import type { RefundRecord } from '../contract/api.ts'
import { saleNoticeFor } from '../domain/sale-notice.ts'

/** The charge as the state machine sees it; `refund` is its refund obligation, if any. */
export function chargeView(charge: Charge, refund: Refund | undefined): ChargeView {
  return {
    status: charge.status,
    valueCents: charge.value_cents,
    currency: charge.currency,
    informedEuid: charge.informed_euid,
    informedTaxNumber: charge.informed_tax_number,
    payerEuid: charge.payer_euid,
    payerTaxNumber: charge.payer_tax_number,
    webhookEvents: charge.webhook_events,
    paidCents: charge.paid_cents,
    creditedUnits: charge.credited_units,
    quoteMicros: charge.quote_micros,
    takenBackCents: charge.taken_back_cents,
    takenBackUnits: charge.taken_back_units,
    takenBackAll: charge.taken_back_all,
    clawback: charge.clawback,
    providerReturning: charge.provider_returning,
    refund: refund ? { owedCents: refund.owed_cents, paidByUsCents: refund.paid_by_us_cents, lossCents: refund.loss_cents } : null,
    holdReason: charge.hold_reason,
    refundedHeldUnits: charge.refunded_held_units,
    merchantRefundedCents: charge.refunded_cents,
    refundDisputeLossCents: charge.refund_dispute_loss_cents,
  }
}

export type Dispute = { taxNumber: string | null; euid: string | null; reason: string; by: string }

/** What a move needs beyond its effects, which say everything they record of the provider's report. */
export type DecisionContext = {
  now: Date
  /** Who acted (an operator), for refund obligations and their settlement. */
  actor?: string
  /** The reference of a refund paid outside (a bank receipt). */
  refundReference?: string
}

/** Blocks the charge's e-mail and the payer's identities; each is recorded once. */
export async function blockIdentities(store: Store, locked: LockedCharge | null, dispute: Dispute, now: Date): Promise<void> {
  const identities = [
    ['email', locked?.account.email ?? null],
    ['tax_number', dispute.taxNumber !== null && !isMaskedTaxNumber(dispute.taxNumber) ? dispute.taxNumber : null],
    ['euid', dispute.euid],
  ] as const
  for (const [kind, value] of identities) {
    if (value === null) continue
    const already = await store.identities.blockedKinds({ [kind === 'tax_number' ? 'taxNumber' : kind]: value })
    if (already.includes(kind)) continue
    await store.identities.addBlock({ kind, value, reason: dispute.reason, charge_id: locked?.charge.id ?? null, created_by: dispute.by, created_at: now })
  }
}

/**
 * The merchant's webhook for this event, if the charge has a webhook_url: the body is fixed now,
 * with a stable webhook-id, and delivered by a job written in this same transaction.
 */
export async function queueChargeWebhook(store: Store, charge: Charge, account: Account, event: WebhookEventName, now: Date, refund?: RefundRecord): Promise<void> {
  if (charge.webhook_url === null) return
  const id = `msg_${randomBytes(16).toString('hex')}`
  const body = serializeWebhookBody({
    payment_id: charge.id,
    email: account.email,
    value_in_cents: charge.value_cents,
    paid_in_cents: charge.paid_cents,
    payer_euid: charge.payer_euid,
    event,
    status: charge.status,
    hold_reason: charge.status === 'security_hold' ? charge.hold_reason : null,
    metadata: charge.metadata ?? {},
    ...(refund ? { refund } : {}),
  })
  await store.webhookEvents.queue({ id, charge_id: charge.id, event, body, state: 'pending', created_at: now }, new URL(charge.webhook_url).host)
}

/** The payer's identities bind to the receiving account, and the account's own identity follows (domain/payer-binding.ts). */
async function bindPayer(store: Store, charge: Charge, account: Account, now: Date): Promise<void> {
  const binding = decidePayerBinding({
    accountId: account.id,
    account: { kyc: account.kyc, ownerTaxNumber: account.owner_tax_number },
    payer: { euid: charge.payer_euid, taxNumber: charge.payer_tax_number },
    euidBoundTo: charge.payer_euid === null ? undefined : await store.identities.boundAccount('euid', charge.payer_euid),
  })
  await store.identities.bind(binding.bind, account.id, now)
  if (binding.account) await store.accounts.update(account.id, binding.account)
}

/** What arrived, when the charge did not know it yet: support entered it for this decision. */
const paidFromSupport = (charge: Charge, arrivedCents: number): Updateable<ChargesTable> =>
  charge.paid_cents === null ? { paid_cents: arrivedCents, paid_source: 'support' } : {}

/** Carries out one effect that writes money or records; returns what it changes on the charge row. */
async function carryOut(store: Store, { charge, account }: LockedCharge, effect: ChargeEffect, context: DecisionContext): Promise<Updateable<ChargesTable>> {
  const { now } = context
  switch (effect.kind) {
    case 'credit': {
      await store.ledger.post(creditPosting({ id: charge.id, accountId: charge.account_id, currency: charge.currency, arrivedCents: effect.arrivedCents, units: effect.units, held: effect.held }), charge.id, now)
      const releaseAt = effect.held ? new Date(now.getTime() + THIRD_PARTY_HOLD_SECONDS * 1000) : null
      if (releaseAt) await store.jobs.enqueue('release_hold', { chargeId: charge.id }, releaseAt, now)
      return {
        ...paidFromSupport(charge, effect.arrivedCents),
        credited_units: effect.units,
        confirmed_at: now,
        release_at: releaseAt,
        ...(effect.quote ? { quote_micros: effect.quote.micros, quote_source: effect.quote.source, quote_at: effect.quote.at } : {}),
      }
    }
    case 'release_credit':
      await store.ledger.post(releasePosting({ id: charge.id, accountId: charge.account_id, currency: charge.currency, units: effect.units }), charge.id, now)
      return {}
    case 'take_back':
      await store.ledger.post(clawbackPosting({ id: charge.id, accountId: charge.account_id, currency: charge.currency, from: effect.from, step: effect.step }), charge.id, now)
      return { taken_back_cents: effect.step.takenBackCents, taken_back_units: effect.step.takenBackUnits }
    case 'record_clawback': {
      await store.clawbacks.record({
        charge_id: charge.id,
        report_key: effect.key,
        kind: effect.clawback,
        principal_cents: effect.principalCents,
        taken_back_cents: effect.takenBackCents,
        charge_status: charge.status,
        report: effect.body,
        reported_at: now,
      })
      return {
        clawback: effect.clawback,
        taken_back_cents: effect.takenBackCents,
        taken_back_all: charge.taken_back_all || effect.all,
        provider_returning: charge.provider_returning || effect.clawback !== 'med',
      }
    }
    case 'clawback_loss': {
      const refund = await store.refunds.findByCharge(charge.id)
      if (!refund) throw new Error(`charge ${charge.id} has no refund for a claw-back to cost`)
      await store.ledger.post(clawbackLossPosting({ id: charge.id, amountCents: effect.amountCents, lossAfter: effect.lossAfter }), charge.id, now)
      await store.refunds.update(refund.id, { loss_cents: effect.lossAfter })
      return {}
    }
    case 'refund_dispute_loss':
      await store.ledger.post(clawbackLossPosting({ id: charge.id, amountCents: effect.amountCents, lossAfter: effect.lossAfter }), charge.id, now)
      return { refund_dispute_loss_cents: effect.lossAfter }
    case 'owe_refund':
      await store.ledger.post(refundOwedPosting({ id: charge.id, amountCents: effect.amountCents }), charge.id, now)
      await store.refunds.open({
        id: `ref_${randomBytes(12).toString('hex')}`,
        charge_id: charge.id,
        amount_cents: effect.amountCents,
        owed_cents: effect.amountCents,
        payer_name: charge.payer_name,
        payer_tax_number: charge.payer_tax_number,
        status: 'owed',
        created_by: context.actor ?? 'operator',
        created_at: now,
      })
      return paidFromSupport(charge, effect.arrivedCents)
    case 'settle_refund': {
      const refund = await store.refunds.findByCharge(charge.id)
      if (!refund) throw new Error(`charge ${charge.id} owes no refund to settle`)
      await store.ledger.post(refundSettledPosting({ id: charge.id, amountCents: effect.amountCents, by: effect.by, owedAfter: effect.owedAfter }), charge.id, now)
      await store.refunds.update(refund.id, {
        owed_cents: effect.owedAfter,
        paid_by_us_cents: refund.paid_by_us_cents + (effect.by === 'us' ? effect.amountCents : 0),
        ...(effect.owedAfter === 0
          ? { status: effect.by === 'us' ? 'paid' : 'taken_back', settled_at: now, settled_by: effect.by === 'us' ? (context.actor ?? 'operator') : 'provider', reference: context.refundReference ?? null }
          : {}),
      })
      return {}
    }
    case 'block_identities':
      await blockIdentities(store, { charge, account }, { taxNumber: effect.taxNumber, euid: effect.euid, reason: effect.reason, by: 'provider' }, now)
      return {}
    case 'keep_provider_status':
      return { provider_status: effect.statusText }
    case 'bind_payer':
    case 'queue_webhook':
      return {}
  }
}

/**
 * `pending`: what the caller has for the charge's row and its timeline, not yet written (what it
 * learnt before the decision, the status entry); written by the statement that writes the move.
 */
export async function applyChargeDecision(
  store: Store, { charge, account }: LockedCharge, decision: Extract<ChargeDecision, { outcome: 'moved' }>, context: DecisionContext,
  pending: { values: Updateable<ChargesTable>; timeline: readonly ChargeTimelineEntry[] },
): Promise<Charge> {
  const values: Updateable<ChargesTable> = {
    ...pending.values,
    status: decision.status,
    updated_at: context.now,
    hold_reason: decision.reviewReason,
  }
  for (const effect of decision.effects) Object.assign(values, await carryOut(store, { charge, account }, effect, context))
  const updated = await store.charges.update(charge.id, values, pending.timeline)
  // These read the charge as it now is: its status is in the webhook body, its payer is bound.
  // The receiving account is as read under its lock: no effect above changes it.
  for (const effect of decision.effects) {
    if (effect.kind === 'bind_payer') await bindPayer(store, updated, account, context.now)
    if (effect.kind === 'queue_webhook') await queueChargeWebhook(store, updated, account, effect.event, context.now)
  }
  // The owner hears about the sale by e-mail (docs/payment-pages.md): a charge from a link asks
  // its link, any other its seller's setting. The job, queued with the move, writes the mail.
  const notice = saleNoticeFor(charge.status, decision)
  if (notice !== null && (charge.payment_link_id !== null || await store.accounts.notifiesSales(charge.merchant_account_id))) {
    await store.jobs.enqueue('notify_sale', { chargeId: charge.id, notice }, context.now, context.now)
  }
  return updated
}
