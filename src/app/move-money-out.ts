// The movers of money leaving (docs/treasury.md, "Payouts"): a withdrawal and the payout it owns
// (a refund owed owns payouts too), each moved in one way, in one transaction: lock, gather the
// event's facts under the locks, ask the record's state machine (domain/withdrawal.ts,
// domain/payout.ts; one decision shape, domain/decision.ts), write the new status, carry out the
// effects. A withdrawal opens and closes its payout; a payout's outcome is followed by its
// withdrawal in the same transaction (a refund stays owed until its payout completes, which
// settles it through the charge: complete-refund-payout.ts).
import { randomBytes } from 'node:crypto'
import type { Updateable } from 'kysely'
import type { Clock } from '../clock.ts'
import { networkFeePosting, withdrawalReleasePosting, withdrawalReservePosting, withdrawalReturnPosting, withdrawalSettlePosting, type WithdrawalAmounts } from '../domain/ledger.ts'
import { formatAmount, type Currency } from '../domain/money.ts'
import { decideWithdrawal, type WithdrawalEffect, type WithdrawalEvent, type WithdrawalRefusal, type WithdrawalStatus } from '../domain/withdrawal.ts'
import { catalogues, fill } from '../i18n/catalogue.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { Account, MerchantRefund, Payout, PayoutsTable, Refund, Withdrawal } from '../store/schema.ts'
import type { LockedWithdrawal, PayoutChange, WithdrawalChange } from '../store/withdrawals.ts'
import type { Store } from '../store/store.ts'
import { serializeWithdrawalWebhook } from '../webhooks/signature.ts'
import { sealedMail, type MailToQueue } from './queue-mail.ts'
import { destinationLabel } from './withdrawal-records.ts'
import { decidePayout, isLive, type PayoutEvent, type PayoutRefusal } from '../domain/payout.ts'
import type { PayoutOwner, PayoutStep } from '../store/payouts.ts'
import { merchantRefundReleasePosting, merchantRefundSettlePosting } from '../domain/ledger.ts'
import { refundFailureOf, refundStatusOf } from '../domain/merchant-refund.ts'
import { announceRefund } from './refund-notices.ts'

export type WithdrawalDeps = { store: Store; clock: Clock; mailSeal: MailSeal; baseUrl: string }

export type WithdrawalMoveResult =
  | { kind: 'not_found' }
  | { kind: 'unchanged'; withdrawal: Withdrawal }
  | { kind: 'moved'; withdrawal: Withdrawal; payout?: Payout }
  | { kind: 'refused'; withdrawal: Withdrawal; code: WithdrawalRefusal }

export type WithdrawalMove = {
  /** The event with the facts it needs, read under the locks; null: nothing to decide. */
  event: (store: Store, withdrawal: Withdrawal, now: Date) => Promise<WithdrawalEvent | null>
  /** Written in the same transaction once the move is applied (an operator's audit entry). */
  after?: (store: Store, before: Withdrawal, after: Withdrawal, now: Date) => Promise<void>
}

export async function moveWithdrawal(deps: WithdrawalDeps, id: string, move: WithdrawalMove): Promise<WithdrawalMoveResult> {
  return deps.store.transaction(async (store) => {
    const locked = await store.withdrawals.lockWithAccount(id)
    if (!locked) return { kind: 'not_found' }
    return moveLockedWithdrawal({ ...deps, store }, locked.withdrawal, move, locked)
  })
}

/**
 * Inside a transaction that holds the withdrawal's and its account's locks (a withdrawal confirmed
 * as it is made); `known` is the account's row and what the e-mail says of the destination, when
 * the caller has them. `payout`, the move of the payout it follows, locked, not yet written: a
 * move writes it in its own statement (answered with the result), else the caller writes it.
 */
export async function moveLockedWithdrawal(deps: WithdrawalDeps, withdrawal: Withdrawal, move: WithdrawalMove, known?: Omit<LockedWithdrawal, 'withdrawal'>, payout?: { id: string; change: PayoutChange }): Promise<WithdrawalMoveResult> {
  const { store } = deps
  const now = deps.clock.now()
  const event = await move.event(store, withdrawal, now)
  if (event === null) return { kind: 'unchanged', withdrawal }
  const decision = decideWithdrawal(withdrawal, event)
  if (decision.outcome === 'unchanged') return { kind: 'unchanged', withdrawal }
  if (decision.outcome === 'refused') return { kind: 'refused', withdrawal, code: decision.code }
  for (const effect of decision.effects) await carryOut(deps, withdrawal, effect, now, known)
  const change: WithdrawalChange = {
    status: decision.status,
    review_reason: decision.reviewReason,
    failure_code: decision.failureCode,
    updated_at: now,
    ...timestampOf(decision.status, now),
  }
  let moved: Withdrawal
  let movedPayout: Payout | undefined
  // Nothing a move writes changes the account's row, which is locked, nor what the e-mail says of
  // the destination (fixed once confirmed): read before the write, they are current.
  const notify = decision.effects.some((effect) => effect.kind === 'notify_owner')
  const facts = known ?? (notify || withdrawal.webhook_url !== null ? await ownerFacts(store, withdrawal) : undefined)
  // The owner's e-mail, when the move is one they are told of (docs/rules.md#withdrawals): queued
  // by the statement that writes the move (and the payout's move it follows), from the row as it
  // will be (docs/performance.md, "Withdrawals").
  const mail = notify && facts ? sealedMail(deps, ownerMail(deps, { ...withdrawal, ...change }, facts, now)) : null
  if (payout) ({ withdrawal: moved, payout: movedPayout } = await store.withdrawals.updateWithPayout(withdrawal.id, change, payout, mail))
  else moved = mail ? await store.withdrawals.updateWithMail(withdrawal.id, change, mail) : await store.withdrawals.update(withdrawal.id, change)
  // Every change reaches a merchant's webhook receiver, if it asked for one.
  if (facts) await queueWebhook(deps, moved, facts.account, now)
  await move.after?.(store, withdrawal, moved, now)
  return { kind: 'moved', withdrawal: moved, ...(movedPayout ? { payout: movedPayout } : {}) }
}

function timestampOf(status: WithdrawalStatus, now: Date): Pick<WithdrawalChange, 'confirmed_at' | 'sent_at' | 'completed_at'> {
  if (status === 'confirmed') return { confirmed_at: now }
  if (status === 'sent') return { sent_at: now }
  if (status === 'completed') return { completed_at: now }
  return {}
}

const amountsOf = (withdrawal: Withdrawal): WithdrawalAmounts => ({
  id: withdrawal.id, accountId: withdrawal.account_id, currency: withdrawal.currency, amount: withdrawal.amount, fee: withdrawal.fee, net: withdrawal.net_amount,
})

async function carryOut(deps: WithdrawalDeps, withdrawal: Withdrawal, effect: WithdrawalEffect, now: Date, known: Omit<LockedWithdrawal, 'withdrawal'> | undefined): Promise<void> {
  const { store } = deps
  const post = (posting: ReturnType<typeof withdrawalReservePosting>) => store.ledger.post(posting, null, now, withdrawal.id)
  switch (effect.kind) {
    case 'reserve':
      await post(withdrawalReservePosting(amountsOf(withdrawal)))
      return
    case 'release':
      await post(withdrawalReleasePosting(amountsOf(withdrawal)))
      return
    case 'settle':
      await post(withdrawalSettlePosting(amountsOf(withdrawal)))
      return
    case 'unsettle':
      await post(withdrawalReturnPosting(amountsOf(withdrawal)))
      return
    case 'open_payout': {
      const account = known?.account ?? (await store.accounts.findById(withdrawal.account_id))
      const destination = known?.destination ?? (await store.withdrawals.findDestination(withdrawal.destination_id, withdrawal.account_id))
      if (!account || !destination) throw new Error(`withdrawal ${withdrawal.id} has no account or destination`)
      await openPayout(store, now, {
        owner: { withdrawalId: withdrawal.id }, currency: withdrawal.currency, amount: withdrawal.net_amount, createdBy: 'owner', note: '',
        to: destination.type === 'pix' ? { rail: 'pix', pixKey: destination.value, taxNumber: account.owner_tax_number! } : { rail: 'liquid', address: destination.value },
      })
      return
    }
    case 'close_payout': {
      const live = await store.payouts.latestOf({ withdrawalId: withdrawal.id })
      if (!live || !isLive(live.status)) return
      const closed = await moveLockedPayout({ ...deps, store }, live.id, { event: () => ({ kind: 'owner_withdrew' }), ownerMoved: true })
      // The amount was given back above: a payout that did not end with it (signed meanwhile) would send it too.
      if (closed.kind !== 'moved') throw new Error(`withdrawal ${withdrawal.id}: its payout ${live.id} did not end with the cancel`)
      return
    }
    case 'notify_owner':
      // With the row's write (below): the e-mail and the webhook carry the new status.
      return
  }
}

/** The account and destination a withdrawal's e-mail names, when the caller did not read them with its locks. */
async function ownerFacts(store: Store, withdrawal: Withdrawal): Promise<Omit<LockedWithdrawal, 'withdrawal'> | undefined> {
  const account = await store.accounts.findById(withdrawal.account_id)
  const destination = await store.withdrawals.findDestination(withdrawal.destination_id, withdrawal.account_id)
  return account && destination ? { account, destination } : undefined
}

/** The owner's e-mail about the withdrawal's new status. */
function ownerMail(deps: WithdrawalDeps, withdrawal: Withdrawal, { account, destination }: Omit<LockedWithdrawal, 'withdrawal'>, now: Date): MailToQueue {
  const texts = catalogues[withdrawal.lang]
  const reason = withdrawal.failure_code ?? withdrawal.review_reason
  const values = {
    id: withdrawal.id,
    amount: formatAmount(withdrawal.currency, withdrawal.amount),
    destination: destinationLabel(destination),
    status: texts.withdrawalStatuses[withdrawal.status],
    detail: reason === null ? '' : ` ${texts.withdrawalReasons[reason]}`,
    url: `${deps.baseUrl}/wallet/withdrawals/${withdrawal.id}`,
  }
  return {
    to: account.email, subject: fill(texts.mail.withdrawalStatusSubject, values), text: fill(texts.mail.withdrawalStatusText, values),
    codeId: null, now, sendBefore: new Date(now.getTime() + 24 * 3_600_000),
  }
}

/** A withdrawal made with a webhook_url: every change reaches the merchant's receiver too. */
async function queueWebhook(deps: WithdrawalDeps, withdrawal: Withdrawal, account: Pick<Account, 'email'>, now: Date): Promise<void> {
  if (withdrawal.webhook_url === null) return
  const { store } = deps
  const payout = await store.payouts.latestOf({ withdrawalId: withdrawal.id })
  const event = `withdrawal.${withdrawal.status}`
  const id = `msg_${randomBytes(16).toString('hex')}`
  const body = serializeWithdrawalWebhook({
    withdrawal_id: withdrawal.id, email: account.email, currency: withdrawal.currency, amount: withdrawal.amount, fee: withdrawal.fee,
    net_amount: withdrawal.net_amount, txid: payout?.txid ?? null, event, status: withdrawal.status, failure_code: withdrawal.failure_code,
  })
  await store.webhookEvents.queue({ id, charge_id: null, withdrawal_id: withdrawal.id, event, body, state: 'pending', created_at: now }, new URL(withdrawal.webhook_url).host)
}

export type PayoutMoveDeps = WithdrawalDeps

/** The payout's owner, as locked before it. */
export type LockedOwner =
  | { kind: 'withdrawal'; locked: LockedWithdrawal; payout?: Payout }
  | { kind: 'refund'; refund: Refund | undefined }
  | { kind: 'merchant_refund'; refund: MerchantRefund | undefined }

export type PayoutMove = {
  /** The event with the facts it needs, read under the locks; null: nothing to decide. */
  event: (context: { store: Store; payout: Payout; owner: LockedOwner | null; now: Date }) => Promise<PayoutEvent | null> | PayoutEvent | null
  /** What the caller learnt, written with the move (a stored step, the provider's reply). */
  record?: PayoutStep
  /** Written in the same transaction once the move is applied (an operator's audit entry). */
  after?: (store: Store, before: Payout, after: Payout, now: Date) => Promise<void>
  /** The owner is the one moving (a withdrawal canceled closes its payout): it does not follow back. */
  ownerMoved?: boolean
}

export type PayoutMoveResult =
  | { kind: 'not_found' }
  | { kind: 'unchanged'; payout: Payout }
  | { kind: 'moved'; payout: Payout }
  | { kind: 'refused'; payout: Payout; code: PayoutRefusal }

/**
 * Moves a payout under its owner's locks, then its own. `known`, the payout as the caller read it,
 * spares the read that names its owner (a payout's owner never changes; the move reads the row
 * again under its lock): the payout worker's three moves a payout each made it (docs/performance.md, "Withdrawals").
 */
export async function movePayout(deps: PayoutMoveDeps, id: string, move: PayoutMove, known?: Payout): Promise<PayoutMoveResult> {
  return deps.store.transaction(async (store) => {
    const found = known?.id === id ? known : await store.payouts.findById(id)
    if (!found) return { kind: 'not_found' as const }
    const owner = await lockOwner(store, found)
    return moveLockedPayout({ ...deps, store }, id, move, owner)
  })
}

/** The owner's locks, in the order every move of that owner takes them. */
export async function lockOwner(store: Store, payout: Payout): Promise<LockedOwner | null> {
  if (payout.withdrawal_id !== null) {
    // The payout is locked by the same statement, after its owner's rows.
    const locked = await store.withdrawals.lockWithAccount(payout.withdrawal_id, payout.id)
    if (!locked) return null
    const { payout: lockedPayout, ...owner } = locked
    return { kind: 'withdrawal', locked: owner, ...(lockedPayout ? { payout: lockedPayout } : {}) }
  }
  if (payout.merchant_refund_id !== null) {
    // The charge first, as the refund was made and as its completion moves the charge.
    const refund = await store.merchantRefunds.findById(payout.merchant_refund_id)
    if (refund) await store.charges.lockById(refund.charge_id)
    return { kind: 'merchant_refund', refund: await store.merchantRefunds.lockById(payout.merchant_refund_id) }
  }
  const refund = await store.refunds.findById(payout.refund_id!)
  if (refund) await store.charges.lockById(refund.charge_id)
  return { kind: 'refund', refund: await store.refunds.lockById(payout.refund_id!) }
}

/** Inside a transaction that holds the owner's locks (or, `owner` undefined, where the caller took them). */
export async function moveLockedPayout(deps: PayoutMoveDeps, id: string, move: PayoutMove, owner: LockedOwner | null = null): Promise<PayoutMoveResult> {
  const { store } = deps
  const payout = owner?.kind === 'withdrawal' && owner.payout?.id === id ? owner.payout : await store.payouts.lockById(id)
  if (!payout) return { kind: 'not_found' }
  const now = deps.clock.now()
  const event = await move.event({ store, payout, owner, now })
  if (event === null) return { kind: 'unchanged', payout }
  const decision = decidePayout({ status: payout.status, signed: payout.tx_hex !== null, reviewReason: payout.review_reason }, event)
  if (decision.outcome === 'unchanged') return { kind: 'unchanged', payout }
  if (decision.outcome === 'refused') return { kind: 'refused', payout, code: decision.code }
  const change = {
    ...move.record,
    status: decision.status,
    review_reason: decision.reviewReason,
    failure_code: decision.failureCode,
    updated_at: now,
    ...payoutTimestampOf(decision.status, now),
  }
  // A withdrawal's payout that opens no replacement, with nothing but its confirmations learnt:
  // the withdrawal follows it in the statement that writes both (docs/performance.md,
  // "Withdrawals"). Its effects (a job, a posting) need nothing of the row but what it will be.
  const follows = move.ownerMoved || owner?.kind !== 'withdrawal' || owner.locked.withdrawal.id !== payout.withdrawal_id ? null : owner.locked
  if (follows && !decision.effects.some((effect) => effect.kind === 'open_replacement') && Object.keys(move.record ?? {}).every((column) => column === 'confirmations')) {
    const next = { ...payout, ...change }
    for (const effect of decision.effects) {
      if (effect.kind === 'queue_send') await store.jobs.enqueue('send_payout', { payoutId: id }, now, now)
      if (effect.kind === 'post_network_fee') await postNetworkFee(store, next, now)
    }
    const { withdrawal, ...known } = follows
    const followed = await moveLockedWithdrawal(deps, withdrawal, { event: async () => ({ kind: 'payout', outcome: { status: next.status, reason: next.review_reason, code: next.failure_code } }) }, known, { id, change })
    const moved = followed.kind === 'moved' && followed.payout ? followed.payout : await store.payouts.update(id, change)
    await move.after?.(store, payout, moved, now)
    return { kind: 'moved', payout: moved }
  }
  const moved = await store.payouts.update(id, change)
  // The payout the owner follows: a replacement, when one was opened in its place.
  let followed = moved
  for (const effect of decision.effects) {
    if (effect.kind === 'queue_send') await store.jobs.enqueue('send_payout', { payoutId: id }, now, now)
    if (effect.kind === 'post_network_fee') await postNetworkFee(store, moved, now)
    if (effect.kind === 'open_replacement') {
      followed = await openPayout(store, now, {
        owner: ownerOf(moved),
        currency: moved.currency, amount: moved.amount, createdBy: moved.created_by, note: moved.note,
        to: moved.rail === 'pix' ? { rail: 'pix', pixKey: moved.pix_key!, taxNumber: moved.tax_number! } : { rail: 'liquid', address: moved.address! },
      })
    }
  }
  if (!move.ownerMoved && moved.withdrawal_id !== null) {
    const locked = owner?.kind === 'withdrawal' ? owner.locked : await store.withdrawals.lockWithAccount(moved.withdrawal_id)
    if (locked) {
      const { withdrawal, ...known } = locked
      await moveLockedWithdrawal(deps, withdrawal, { event: async () => ({ kind: 'payout', outcome: { status: followed.status, reason: followed.review_reason, code: followed.failure_code } }) }, known)
    }
  }
  if (!move.ownerMoved && moved.merchant_refund_id !== null) await followMerchantRefund(deps, followed, now)
  await move.after?.(store, payout, moved, now)
  return { kind: 'moved', payout: moved }
}

/** The owner a payout pays for, as openPayout and latestOf name it. */
export function ownerOf(payout: Payout): PayoutOwner {
  if (payout.withdrawal_id !== null) return { withdrawalId: payout.withdrawal_id }
  if (payout.refund_id !== null) return { refundId: payout.refund_id }
  return { merchantRefundId: payout.merchant_refund_id! }
}

/**
 * A merchant's refund follows its payout (docs/rules.md#merchant-refund-statuses), under the
 * locks its payout's move took: sent, its amount leaves the account's books for good; failed
 * before, it goes back. Completion also moves the charge: app/merchant-refunds.ts does it, with
 * the charge's lock taken first.
 */
export async function followMerchantRefund(deps: PayoutMoveDeps, payout: Payout, now: Date): Promise<MerchantRefund | undefined> {
  const { store } = deps
  const refund = await store.merchantRefunds.lockById(payout.merchant_refund_id!)
  if (!refund || refund.status === 'failed' || refund.status === 'completed') return refund
  const status = refundStatusOf(payout.status)
  const amounts = { id: refund.id, accountId: refund.account_id, currency: refund.currency, amountCents: refund.amount_cents, feeCents: refund.fee_cents, units: refund.units, heldUnits: refund.held_units }
  if ((status === 'sent' || status === 'completed') && refund.status === 'pending') {
    const deposit = payout.provider_deposit_cents ?? refund.amount_cents + refund.fee_cents
    await store.ledger.post(merchantRefundSettlePosting({ ...amounts, depositCents: deposit }), refund.charge_id, now)
    await store.merchantRefunds.update(refund.id, { deposit_cents: deposit })
  }
  if (status === 'failed') {
    // The charge is locked: whether its credit is still held is current.
    const charge = (await store.charges.findById(refund.charge_id))!
    const toHeld = charge.status === 'after7d'
    await store.ledger.post(merchantRefundReleasePosting({ ...amounts, toHeld }), refund.charge_id, now)
    await store.charges.update(charge.id, {
      refunded_cents: charge.refunded_cents - refund.amount_cents,
      refunded_held_units: charge.refunded_held_units - refund.held_units,
    })
  }
  const reviewReason = status === 'pending' && payout.status === 'in_review' ? payout.review_reason : null
  if (status === refund.status && reviewReason === refund.review_reason) return refund
  const moved = await store.merchantRefunds.update(refund.id, {
    status, review_reason: reviewReason, failure_code: status === 'failed' ? refundFailureOf(payout.failure_code) : null, updated_at: now,
  })
  if (moved.status !== refund.status) await announceRefund(deps, moved, now)
  return moved
}

/** A new payout for its owner, queued with its sending job; the unique index keeps one live per owner. */
export async function openPayout(store: Store, now: Date, order: {
  owner: PayoutOwner
  currency: Currency
  amount: number
  to: { rail: 'pix'; pixKey: string; taxNumber: string } | { rail: 'liquid'; address: string }
  createdBy: string
  note: string
}): Promise<Payout> {
  const payout = await store.payouts.insert({
    id: `po_${randomBytes(12).toString('hex')}`,
    withdrawal_id: 'withdrawalId' in order.owner ? order.owner.withdrawalId : null,
    refund_id: 'refundId' in order.owner ? order.owner.refundId : null,
    merchant_refund_id: 'merchantRefundId' in order.owner ? order.owner.merchantRefundId : null,
    rail: order.to.rail,
    currency: order.currency,
    amount: order.amount,
    pix_key: order.to.rail === 'pix' ? order.to.pixKey : null,
    tax_number: order.to.rail === 'pix' ? order.to.taxNumber : null,
    address: order.to.rail === 'liquid' ? order.to.address : null,
    status: 'queued',
    created_by: order.createdBy,
    note: order.note,
    created_at: now,
    updated_at: now,
  })
  if (!payout) throw new PayoutInProgressError()
  await store.jobs.enqueue('send_payout', { payoutId: payout.id }, now, now)
  return payout
}

/** The owner already has a live payout: a second one could pay twice. */
export class PayoutInProgressError extends Error {
  override name = 'PayoutInProgressError'
}

/**
 * The transaction left: the L-BTC network fee it paid, stored when it was signed, is posted as the
 * service's cost, on the withdrawal or on the refund's charge (a refund counts what its payouts
 * cost the network, as it counts the provider's fees).
 */
async function postNetworkFee(store: Store, payout: Payout, now: Date): Promise<void> {
  const fee = payout.network_fee_sats ?? 0
  if (fee <= 0) return
  const posting = networkFeePosting({ id: payout.id, feeSats: fee })
  if (payout.withdrawal_id !== null) {
    await store.ledger.post(posting, null, now, payout.withdrawal_id)
    return
  }
  if (payout.merchant_refund_id !== null) {
    const refund = await store.merchantRefunds.lockById(payout.merchant_refund_id)
    if (refund && (await store.ledger.post(posting, refund.charge_id, now))) await store.merchantRefunds.update(refund.id, { network_fee_sats: refund.network_fee_sats + fee })
    return
  }
  const refund = await store.refunds.lockById(payout.refund_id!)
  if (refund && (await store.ledger.post(posting, refund.charge_id, now))) await store.refunds.update(refund.id, { network_fee_sats: refund.network_fee_sats + fee })
}

function payoutTimestampOf(status: Payout['status'], now: Date): Updateable<PayoutsTable> {
  if (status === 'sent') return { sent_at: now }
  if (status === 'completed') return { completed_at: now }
  return {}
}
