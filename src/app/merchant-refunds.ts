// A merchant gives a payer money back from its own balance (docs/rules.md#merchant-refunds):
// asked through the API (or the Wallet), priced and checked under the charge's lock, its amount
// reserved and its payout opened in one transaction; the payout (send-payout.ts) pays the payer's
// own CPF/CNPJ key, and the refund follows it (move-money-out.ts#followMerchantRefund).
import { randomBytes } from 'node:crypto'
import type { Clock } from '../clock.ts'
import type { CreateRefundBody, RefundList, RefundRecord } from '../contract/api.ts'
import { heldLeft, isChargeId } from '../domain/charge.ts'
import { DomainError } from '../domain/errors.ts'
import { merchantRefundReservePosting } from '../domain/ledger.ts'
import { priceRefund, refundRefusal, refundableCents, type RefundRefusal } from '../domain/merchant-refund.ts'
import { parseBrlToCents } from '../domain/money.ts'
import { isMaskedTaxNumber, parseTaxNumber } from '../domain/tax-number.ts'
import { limitDecision, type WithdrawalLimits } from '../domain/withdrawal.ts'
import type { Lang } from '../i18n/catalogue.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { PayoutStep } from '../store/payouts.ts'
import type { Charge, MerchantRefund, Payout } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { chargeView } from './apply-charge-decision.ts'
import { withIdempotencyKey } from './idempotent-request.ts'
import { moveCharge } from './move-charge.ts'
import { moveLockedPayout, openPayout, type PayoutMoveDeps } from './move-money-out.ts'
import type { QuoteBook } from './quote-book.ts'
import { requestHash } from './request-hash.ts'
import { announceRefund, refundRecord } from './refund-notices.ts'

export type MerchantRefundDeps = { store: Store; clock: Clock; mailSeal: MailSeal; baseUrl: string; quotes: QuoteBook; limits: WithdrawalLimits; log?: { warn: (details: object, message: string) => void } }

const DAY_MS = 24 * 3_600_000

export function newRefundId(): string {
  return `rf_${randomBytes(12).toString('hex')}`
}

/** The payer's own CPF/CNPJ, the one key a refund is paid to; null when the provider reported it masked and nothing unmasked it. */
export function payerKeyOf(charge: Pick<Charge, 'payer_tax_number'>): string | null {
  const reported = charge.payer_tax_number
  if (reported === null || isMaskedTaxNumber(reported)) return null
  return parseTaxNumber(reported)?.value ?? null
}

/** The account's charge, or payment_not_found (another account's charge is simply not there). */
async function chargeFor(store: Store, accountId: number, chargeId: string): Promise<Charge> {
  const charge = isChargeId(chargeId) ? await store.charges.findForMerchant(chargeId, accountId) : undefined
  if (!charge) throw new DomainError('payment_not_found', { param: 'payment_id' })
  return charge
}

const refusalParam: Partial<Record<RefundRefusal, string>> = { refund_exceeds_paid: 'amount', amount_below_minimum: 'amount', amount_above_maximum: 'amount' }

/**
 * Makes the refund under `id`: under the charge's and its account's locks, the rules
 * (domain/merchant-refund.ts), the price at `quote`, the limits, the balance; then the amount is
 * reserved and the payout opened (in review above the threshold or the rolling limits).
 */
async function makeRefund(deps: MerchantRefundDeps, request: { accountId: number; chargeId: string; amountCents: number | null; reason: string | null; actor: string; quoteMicros: number | null; lang: Lang }, id: string): Promise<MerchantRefund> {
  return deps.store.transaction(async (store) => {
    const locked = await store.charges.lockById(request.chargeId)
    if (!locked || locked.charge.merchant_account_id !== request.accountId) throw new DomainError('payment_not_found', { param: 'payment_id' })
    const { charge, account } = locked
    const now = deps.clock.now()
    const facts = { status: charge.status, paidCents: charge.paid_cents, paidAt: charge.confirmed_at, refundedCents: charge.refunded_cents, payerKey: payerKeyOf(charge), now }
    const amountCents = request.amountCents ?? refundableCents(facts)
    const refusal = refundRefusal(facts, amountCents)
    if (refusal !== null) throw new DomainError(refusal, refusalParam[refusal] ? { param: refusalParam[refusal] } : {})
    if (charge.currency !== 'DEPIX' && request.quoteMicros === null) throw new DomainError('quote_unavailable')
    const held = charge.status === 'after7d' ? heldLeft(chargeView(charge, undefined)) : 0
    const price = priceRefund(amountCents, charge.currency, charge.currency === 'DEPIX' ? null : request.quoteMicros, held)
    const brlCents = price.amountCents + price.feeCents
    const used = {
      last24hCents: await store.withdrawals.brlCentsSince(account.id, new Date(now.getTime() - DAY_MS)),
      last30dCents: await store.withdrawals.brlCentsSince(account.id, new Date(now.getTime() - 30 * DAY_MS)),
    }
    const limit = limitDecision(brlCents, used, deps.limits)
    if ('refused' in limit) throw new DomainError(limit.refused, { param: 'amount' })
    // Never queued: what the hold does not cover must be available now (held and negative balances never count).
    const available = (await store.ledger.balances(account.id, 'available'))[charge.currency]
    if (available < price.units - price.heldUnits) throw new DomainError('insufficient_funds', { param: 'amount' })
    const refund = await store.merchantRefunds.insert({
      id, charge_id: charge.id, account_id: account.id, currency: charge.currency, amount_cents: price.amountCents, fee_cents: price.feeCents, units: price.units,
      held_units: price.heldUnits, quote_micros: charge.currency === 'DEPIX' ? null : request.quoteMicros, brl_cents: brlCents, reason: request.reason, pix_key: facts.payerKey!,
      status: 'pending', lang: request.lang, created_by: request.actor, created_at: now, updated_at: now,
    })
    await store.charges.update(charge.id, { refunded_cents: charge.refunded_cents + price.amountCents, refunded_held_units: charge.refunded_held_units + price.heldUnits })
    await store.ledger.post(merchantRefundReservePosting({ id, accountId: account.id, currency: charge.currency, amountCents: price.amountCents, feeCents: price.feeCents, units: price.units, heldUnits: price.heldUnits }), charge.id, now)
    const payout = await openPayout(store, now, {
      owner: { merchantRefundId: id }, currency: 'DEPIX', amount: price.amountCents, createdBy: request.actor, note: request.reason ?? '',
      to: { rail: 'pix', pixKey: facts.payerKey!, taxNumber: facts.payerKey! },
    })
    if (limit.review !== null) {
      const review = limit.review
      await moveLockedPayout({ ...deps, store }, payout.id, { event: () => ({ kind: 'hold', reason: review }) })
    }
    await store.audit.record({ actor: request.actor, action: 'merchant_refund.create', subject: `merchant_refund:${id}`, details: { payment_id: charge.id, amount_cents: price.amountCents, fee_cents: price.feeCents, units: price.units }, at: now })
    const made = (await store.merchantRefunds.findById(id))!
    await announceRefund({ ...deps, store }, made, now, true)
    return made
  })
}

/** The idempotency fingerprint of a refund: the endpoint, the payment and the body. */
export const refundRequestHash = (chargeId: string, body: unknown) => requestHash({ endpoint: 'refunds', chargeId, body })

/** POST /api/payments/{id}/refunds: one Idempotency-Key claim (app/idempotent-request.ts) fixes the refund's id before anything is written. */
export async function createMerchantRefund(deps: MerchantRefundDeps, request: { accountId: number; chargeId: string; body: CreateRefundBody; idempotencyKey: string | undefined; actor: string }): Promise<RefundRecord> {
  const amountCents = request.body.amount === undefined ? null : parseBrlToCents(request.body.amount)
  if (amountCents === 0 || (request.body.amount !== undefined && amountCents === null)) throw new DomainError('amount_invalid', { param: 'amount' })
  if (amountCents === Infinity) throw new DomainError('amount_above_maximum', { param: 'amount' })
  const charge = await chargeFor(deps.store, request.accountId, request.chargeId)
  // The accepted price of the moment, asked before the transaction (it may be an HTTP call).
  const quote = charge.currency === 'DEPIX' ? null : await deps.quotes.at(charge.currency)
  return withIdempotencyKey(deps, {
    accountId: request.accountId, key: request.idempotencyKey, requestHash: refundRequestHash(request.chargeId, request.body), newId: newRefundId,
    findMade: async (id) => {
      const made = await deps.store.merchantRefunds.findForAccount(id, request.accountId)
      return made ? refundRecord(made) : undefined
    },
    make: async (id) => ({
      answer: refundRecord(await makeRefund(deps, { accountId: request.accountId, chargeId: charge.id, amountCents, reason: request.body.reason?.trim() ?? null, actor: request.actor, quoteMicros: quote?.micros ?? null, lang: 'pt-BR' }, id)),
    }),
  })
}

export async function listMerchantRefunds(deps: { store: Store }, request: { accountId: number; chargeId: string }): Promise<RefundList> {
  const charge = await chargeFor(deps.store, request.accountId, request.chargeId)
  return { refunds: (await deps.store.merchantRefunds.listForCharges([charge.id])).map(refundRecord) }
}

export async function getMerchantRefund(deps: { store: Store }, request: { accountId: number; refundId: string }): Promise<RefundRecord> {
  const refund = await deps.store.merchantRefunds.findForAccount(request.refundId, request.accountId)
  if (!refund) throw new DomainError('refund_not_found', { param: 'refund_id' })
  return refundRecord(refund)
}

/**
 * The provider says the payer was paid: in one transaction, the charge's lock first (as every
 * charge move takes it), the payout completes, the refund follows, and the charge becomes
 * `refunded` once its completed refunds gave back all that arrived.
 */
export async function completeMerchantRefundPayout(deps: PayoutMoveDeps, payout: Payout, record: PayoutStep): Promise<void> {
  const refund = await deps.store.merchantRefunds.findById(payout.merchant_refund_id!)
  if (!refund) throw new Error(`payout ${payout.id} has no merchant refund`)
  await moveCharge(deps, { id: refund.charge_id }, {
    event: async (store) => {
      const completed = await moveLockedPayout({ ...deps, store }, payout.id, { event: ({ payout: current }) => (current.status === 'sent' ? { kind: 'completed' } : null), record })
      if (completed.kind !== 'moved') return null
      return { kind: 'merchant_refund_completed', completedCents: await store.merchantRefunds.completedCents(refund.charge_id) }
    },
    context: { actor: payout.created_by },
  })
}
