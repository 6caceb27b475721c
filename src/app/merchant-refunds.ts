// A merchant gives a payer money back from its own balance (docs/rules.md#merchant-refunds):
// asked through the API (or the Wallet), priced and checked under the charge's lock, its amount
// reserved and its payout opened in one transaction; the payout (send-payout.ts) pays the payer's
// own CPF/CNPJ key, and the refund follows it (move-money-out.ts#followMerchantRefund).
import type { Clock } from '../clock.ts'
import type { CreateRefundBody, RefundList, RefundRecord } from '../contract/api.ts'
import { heldLeft, isChargeId } from '../domain/charge.ts'
import { DomainError } from '../domain/errors.ts'
import { merchantRefundReservePosting } from '../domain/ledger.ts'
import { priceRefund, refundRefusal, refundableCents, type RefundPrice, type RefundRefusal } from '../domain/merchant-refund.ts'
import { formatAmount, formatBrl, parseBrlToCents } from '../domain/money.ts'
import { accountHolder } from '../domain/second-factor.ts'
import { isMaskedTaxNumber, parseTaxNumber } from '../domain/tax-number.ts'
import { limitDecision, type WithdrawalLimits } from '../domain/withdrawal.ts'
import { catalogues, fill, type Lang } from '../i18n/catalogue.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { PayoutStep } from '../store/payouts.ts'
import type { Charge, MerchantRefund, Payout } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { chargeView } from './apply-charge-decision.ts'
import { withIdempotencyKey } from './idempotent-request.ts'
import { confirmingWithCode, issueActionCode, useActionCode } from './action-codes.ts'
import { hasFactor, requireStepUp, type StepUpProof } from './second-factors.ts'
import { moveCharge } from './move-charge.ts'
import { moveLockedPayout, openPayout, type PayoutMoveDeps } from './move-money-out.ts'
import type { QuoteBook } from './quote-book.ts'
import { randomHexSource } from '../random-hex.ts'
import { requestHash } from '../request-hash.ts'
import { announceRefund, refundRecord } from './refund-notices.ts'
import { mayWithdraw } from './withdrawal-blockers.ts'

export type MerchantRefundDeps = { store: Store; clock: Clock; mailSeal: MailSeal; baseUrl: string; quotes: QuoteBook; limits: WithdrawalLimits; log?: { warn: (details: object, message: string) => void } }

const DAY_MS = 24 * 3_600_000

const refundHex = randomHexSource(12)
export const newRefundId = (): string => `rf_${refundHex()}`

/** The payer's own CPF/CNPJ, the one key a refund is paid to; null when the provider reported it masked and nothing unmasked it. */
export function payerKeyOf(charge: Pick<Charge, 'payer_tax_number'>): string | null {
  const reported = charge.payer_tax_number
  if (reported === null || isMaskedTaxNumber(reported)) return null
  return parseTaxNumber(reported)?.value ?? null
}


const refusalParam: Partial<Record<RefundRefusal, string>> = { refund_exceeds_paid: 'amount', amount_below_minimum: 'amount', amount_above_maximum: 'amount' }

/** Who asks: the charge's merchant (its API token) or, in the Wallet, the owner of the account it credited. */
type Asker = { merchantAccountId: number } | { ownerAccountId: number }

const asks = (asker: Asker, charge: Pick<Charge, 'merchant_account_id' | 'account_id'>) =>
  'merchantAccountId' in asker ? charge.merchant_account_id === asker.merchantAccountId : charge.account_id === asker.ownerAccountId

/** The charge the asker may refund, or payment_not_found (another account's charge is simply not there). */
async function askedCharge(store: Store, asker: Asker, chargeId: string): Promise<Charge> {
  const charge = isChargeId(chargeId) ? await store.charges.findById(chargeId) : undefined
  if (!charge || !asks(asker, charge)) throw new DomainError('payment_not_found', { param: 'payment_id' })
  return charge
}

/** The accepted price of the moment for a charge credited as BTC or USDt, asked before any transaction (it may be an HTTP call). */
const quoteMicrosFor = async (deps: Pick<MerchantRefundDeps, 'quotes'>, charge: Charge): Promise<number | null> =>
  charge.currency === 'DEPIX' ? null : (await deps.quotes.at(charge.currency))?.micros ?? null

type Priced = { amountCents: number; price: RefundPrice; brlCents: number; payerKey: string }

/** The rules (domain/merchant-refund.ts) and the price of refunding `amountCents` (all that is left when null) now, at `quoteMicros`. */
function priced(charge: Charge, amountCents: number | null, quoteMicros: number | null, now: Date): Priced {
  const facts = { status: charge.status, paidCents: charge.paid_cents, paidAt: charge.confirmed_at, refundedCents: charge.refunded_cents, payerKey: payerKeyOf(charge), now }
  const amount = amountCents ?? refundableCents(facts)
  const refusal = refundRefusal(facts, amount)
  if (refusal !== null) throw new DomainError(refusal, refusalParam[refusal] ? { param: refusalParam[refusal] } : {})
  if (charge.currency !== 'DEPIX' && quoteMicros === null) throw new DomainError('quote_unavailable')
  const held = charge.status === 'after7d' ? heldLeft(chargeView(charge, undefined)) : 0
  const price = priceRefund(amount, charge.currency, charge.currency === 'DEPIX' ? null : quoteMicros, held)
  return { amountCents: amount, price, brlCents: price.amountCents + price.feeCents, payerKey: facts.payerKey! }
}

/** `lang`: the Wallet's page language; null for an API refund, whose mail follows the owner's own (docs/payment-pages.md). */
export type RefundRequest = { asker: Asker; chargeId: string; amountCents: number | null; reason: string | null; actor: string; quoteMicros: number | null; lang: Lang | null }

/**
 * Inside the caller's transaction, makes the refund under `id`: under the charge's and its
 * account's locks, the rules, the price at the quote, the limits, the balance; then the amount is
 * reserved and the payout opened (in review above the threshold or the rolling limits).
 */
async function makeRefundIn(deps: MerchantRefundDeps, store: Store, request: RefundRequest, id: string): Promise<MerchantRefund> {
  const locked = await store.charges.lockById(request.chargeId)
  if (!locked || !asks(request.asker, locked.charge)) throw new DomainError('payment_not_found', { param: 'payment_id' })
  const { charge, account } = locked
  const now = deps.clock.now()
  const { price, brlCents, payerKey } = priced(charge, request.amountCents, request.quoteMicros, now)
  const used = {
    last24hCents: await store.withdrawals.brlCentsSince(account.id, new Date(now.getTime() - DAY_MS)),
    last30dCents: await store.withdrawals.brlCentsSince(account.id, new Date(now.getTime() - 30 * DAY_MS)),
  }
  const limit = limitDecision(brlCents, used, deps.limits)
  if ('refused' in limit) throw new DomainError(limit.refused, { param: 'amount' })
  // A refund is a payout: an account a withdrawal would be refused for (an open MED or claw-back, a currency below zero) sends nothing either (docs/rules.md#merchant-refund-limits).
  if (!(await mayWithdraw(store, account, now))) throw new DomainError('withdrawal_not_allowed')
  // Never queued: what the hold does not cover must be available now (held and negative balances never count).
  const available = (await store.ledger.balances(account.id, 'available'))[charge.currency]
  if (available < price.units - price.heldUnits) throw new DomainError('insufficient_funds', { param: 'amount' })
  await store.merchantRefunds.insert({
    id, charge_id: charge.id, account_id: account.id, currency: charge.currency, amount_cents: price.amountCents, fee_cents: price.feeCents, units: price.units,
    held_units: price.heldUnits, quote_micros: charge.currency === 'DEPIX' ? null : request.quoteMicros, brl_cents: brlCents, reason: request.reason, pix_key: payerKey,
    status: 'pending', lang: request.lang ?? account.language, created_by: request.actor, created_at: now, updated_at: now,
  })
  await store.charges.update(charge.id, { refunded_cents: charge.refunded_cents + price.amountCents, refunded_held_units: charge.refunded_held_units + price.heldUnits })
  await store.ledger.post(merchantRefundReservePosting({ id, accountId: account.id, currency: charge.currency, amountCents: price.amountCents, feeCents: price.feeCents, units: price.units, heldUnits: price.heldUnits }), charge.id, now)
  const payout = await openPayout(store, now, {
    owner: { merchantRefundId: id }, currency: 'DEPIX', amount: price.amountCents, createdBy: request.actor, note: request.reason ?? '',
    to: { rail: 'pix', pixKey: payerKey, taxNumber: payerKey },
  })
  if (limit.review !== null) {
    const review = limit.review
    await moveLockedPayout({ ...deps, store }, payout.id, { event: () => ({ kind: 'hold', reason: review }) })
  }
  await store.audit.record({ actor: request.actor, action: 'merchant_refund.create', subject: `merchant_refund:${id}`, details: { payment_id: charge.id, amount_cents: price.amountCents, fee_cents: price.feeCents, units: price.units }, at: now })
  const made = (await store.merchantRefunds.findById(id))!
  await announceRefund({ ...deps, store }, made, now, true)
  return made
}

/** The idempotency fingerprint of a refund: the endpoint, the payment and the body. */
export const refundRequestHash = (chargeId: string, body: unknown) => requestHash({ endpoint: 'refunds', chargeId, body })

/** POST /api/payments/{id}/refunds: one Idempotency-Key claim (app/idempotent-request.ts) fixes the refund's id before anything is written. */
export async function createMerchantRefund(deps: MerchantRefundDeps, request: { accountId: number; chargeId: string; body: CreateRefundBody; idempotencyKey: string | undefined; actor: string }): Promise<RefundRecord> {
  const amountCents = request.body.amount === undefined ? null : parseBrlToCents(request.body.amount)
  if (amountCents === 0 || (request.body.amount !== undefined && amountCents === null)) throw new DomainError('amount_invalid', { param: 'amount' })
  if (amountCents === Infinity) throw new DomainError('amount_above_maximum', { param: 'amount' })
  const charge = await askedCharge(deps.store, { merchantAccountId: request.accountId }, request.chargeId)
  const quoteMicros = await quoteMicrosFor(deps, charge)
  return withIdempotencyKey(deps, {
    accountId: request.accountId, key: request.idempotencyKey, requestHash: refundRequestHash(request.chargeId, request.body), newId: newRefundId,
    findMade: async (id) => {
      const made = await deps.store.merchantRefunds.findForAccount(id, request.accountId)
      return made ? refundRecord(made) : undefined
    },
    make: async (id) => ({
      answer: refundRecord(await deps.store.transaction((store) => makeRefundIn(deps, store, {
        asker: { merchantAccountId: request.accountId }, chargeId: charge.id, amountCents, reason: request.body.reason?.trim() ?? null, actor: request.actor, quoteMicros, lang: null,
      }, id))),
    }),
  })
}

export async function listMerchantRefunds(deps: { store: Store }, request: { accountId: number; chargeId: string }): Promise<RefundList> {
  const charge = await askedCharge(deps.store, { merchantAccountId: request.accountId }, request.chargeId)
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

/** What the Wallet shows before the owner confirms: the price of refunding `amountCents` of a charge the owner received, now. */
export type RefundPreview = { chargeId: string; currency: Charge['currency']; leftCents: number; amountCents: number; feeCents: number; units: number; heldUnits: number; quoteMicros: number | null }

/** What a Wallet refund's e-mail code (and its tries) is bound to: the charge and the amount. */
export const walletCodeSubject = (chargeId: string, amountCents: number) => `${chargeId}:${amountCents}`

export async function previewWalletRefund(deps: MerchantRefundDeps, request: { accountId: number; chargeId: string; amountCents: number }): Promise<RefundPreview> {
  const charge = await askedCharge(deps.store, { ownerAccountId: request.accountId }, request.chargeId)
  const quoteMicros = await quoteMicrosFor(deps, charge)
  const { price } = priced(charge, request.amountCents, quoteMicros, deps.clock.now())
  return {
    chargeId: charge.id, currency: charge.currency, leftCents: refundableCents({ paidCents: charge.paid_cents, refundedCents: charge.refunded_cents }),
    amountCents: price.amountCents, feeCents: price.feeCents, units: price.units, heldUnits: price.heldUnits, quoteMicros,
  }
}

/** An owner without a second factor confirms a refund with an e-mail code bound to the charge and the amount. */
export async function sendWalletRefundCode(deps: MerchantRefundDeps, request: { accountId: number; chargeId: string; amountCents: number; lang: Lang; address: string }): Promise<void> {
  const preview = await previewWalletRefund(deps, request)
  const account = (await deps.store.accounts.findById(request.accountId))!
  const texts = catalogues[request.lang].mail
  const values = { amount: formatBrl(preview.amountCents), fee: formatBrl(preview.feeCents), debit: formatAmount(preview.currency, preview.units), payment: preview.chargeId }
  await deps.store.transaction((store) => issueActionCode({ store, mailSeal: deps.mailSeal }, {
    email: account.email, purpose: 'refund', subject: walletCodeSubject(preview.chargeId, preview.amountCents), now: deps.clock.now(), address: request.address,
    mail: (code) => ({ subject: fill(texts.refundCodeSubject, { ...values, code }), text: fill(texts.refundCodeText, { ...values, code }) }),
  }))
}

/**
 * The owner confirms a refund in the Wallet: with a second factor checked within 5 minutes when
 * the owner has one, else with the e-mail code for this charge and amount; the refund is made in
 * the same transaction, so a wrong code makes nothing.
 */
export async function confirmWalletRefund(deps: MerchantRefundDeps, request: { accountId: number; chargeId: string; amountCents: number; code: string; stepUp: StepUpProof; lang: Lang }): Promise<MerchantRefund> {
  const charge = await askedCharge(deps.store, { ownerAccountId: request.accountId }, request.chargeId)
  const quoteMicros = await quoteMicrosFor(deps, charge)
  const account = (await deps.store.accounts.findById(request.accountId))!
  const holder = accountHolder(account.id)
  const factor = await hasFactor(deps, holder)
  return confirmingWithCode(deps.store, async (store) => {
    if (factor) await requireStepUp(store, { holder, checkedAt: request.stepUp.checkedAt, now: deps.clock.now() })
    else await useActionCode(store, { email: account.email, purpose: 'refund', subject: walletCodeSubject(charge.id, request.amountCents), code: request.code, now: deps.clock.now() })
    return makeRefundIn(deps, store, {
      asker: { ownerAccountId: request.accountId }, chargeId: charge.id, amountCents: request.amountCents, reason: null, actor: `owner:${request.accountId}`, quoteMicros, lang: request.lang,
    }, newRefundId())
  })
}

/** The refunds of a charge the owner received, oldest first. */
export function refundsOfCharge(deps: { store: Store }, chargeId: string): Promise<MerchantRefund[]> {
  return deps.store.merchantRefunds.listForCharges([chargeId])
}
