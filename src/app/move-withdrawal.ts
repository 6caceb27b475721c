// The one way a withdrawal moves: in one transaction, lock it and its account, gather the event's
// facts under the lock, ask the state machine (domain/withdrawal.ts#decideWithdrawal), and carry
// out what it decided: the postings, the sending job, the owner's e-mail and the merchant's
// webhook, all written with the new status.
import { randomBytes } from 'node:crypto'
import type { Updateable } from 'kysely'
import type { Clock } from '../clock.ts'
import { networkFeePosting, withdrawalReleasePosting, withdrawalReservePosting, withdrawalReturnPosting, withdrawalSettlePosting, type WithdrawalAmounts } from '../domain/ledger.ts'
import { formatAmount } from '../domain/money.ts'
import { decideWithdrawal, type WithdrawalEffect, type WithdrawalEvent, type WithdrawalRefusal, type WithdrawalStatus } from '../domain/withdrawal.ts'
import { catalogues, fill } from '../i18n/catalogue.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { Withdrawal, WithdrawalsTable } from '../store/schema.ts'
import type { LockedWithdrawal } from '../store/withdrawals.ts'
import type { Store } from '../store/store.ts'
import { serializeWithdrawalWebhook } from '../webhooks/signature.ts'
import { queueMail } from './queue-mail.ts'
import { destinationLabel } from './withdrawal-records.ts'

export type WithdrawalDeps = { store: Store; clock: Clock; mailSeal: MailSeal; baseUrl: string }

export type WithdrawalMoveResult =
  | { kind: 'not_found' }
  | { kind: 'unchanged'; withdrawal: Withdrawal }
  | { kind: 'moved'; withdrawal: Withdrawal }
  | { kind: 'refused'; withdrawal: Withdrawal; code: WithdrawalRefusal }

export type WithdrawalMove = {
  /** The event with the facts it needs, read under the locks; null: nothing to decide. */
  event: (store: Store, withdrawal: Withdrawal, now: Date) => Promise<WithdrawalEvent | null>
  /** What the caller learnt, written with the move (a stored transaction, the provider's reply). */
  record?: Updateable<WithdrawalsTable>
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
 * the caller has them.
 */
export async function moveLockedWithdrawal(deps: WithdrawalDeps, withdrawal: Withdrawal, move: WithdrawalMove, known?: Omit<LockedWithdrawal, 'withdrawal'>): Promise<WithdrawalMoveResult> {
  const { store } = deps
  const now = deps.clock.now()
  const event = await move.event(store, withdrawal, now)
  if (event === null) return { kind: 'unchanged', withdrawal }
  const decision = decideWithdrawal({ ...withdrawal, signed: withdrawal.tx_hex !== null, reviewReason: withdrawal.review_reason }, event)
  if (decision.outcome === 'unchanged') return { kind: 'unchanged', withdrawal }
  if (decision.outcome === 'refused') return { kind: 'refused', withdrawal, code: decision.code }
  for (const effect of decision.effects) await carryOut(deps, withdrawal, effect, now)
  const forget = decision.effects.some((effect) => effect.kind === 'forget_provider_payout')
  const moved = await store.withdrawals.update(withdrawal.id, {
    ...move.record,
    ...(forget ? forgottenProviderPayout : {}),
    status: decision.status,
    review_reason: decision.reviewReason,
    failure_code: decision.failureCode,
    updated_at: now,
    ...timestampOf(decision.status, now),
  })
  await notify(deps, moved, now, known)
  await move.after?.(store, withdrawal, moved, now)
  return { kind: 'moved', withdrawal: moved }
}

/** The provider payout's steps, cleared so the next send asks for a new one; the old one's id stays in the audit trail. */
const forgottenProviderPayout = {
  provider_nonce: null, provider_withdrawal_id: null, provider_deposit_address: null, provider_deposit_cents: null, provider_expires_at: null, provider_status: null, provider_receipt_url: null,
} satisfies Updateable<WithdrawalsTable>

function timestampOf(status: WithdrawalStatus, now: Date): Updateable<WithdrawalsTable> {
  if (status === 'confirmed') return { confirmed_at: now }
  if (status === 'sent') return { sent_at: now }
  if (status === 'completed') return { completed_at: now }
  return {}
}

const amountsOf = (withdrawal: Withdrawal): WithdrawalAmounts => ({
  id: withdrawal.id, accountId: withdrawal.account_id, currency: withdrawal.currency, amount: withdrawal.amount, fee: withdrawal.fee, net: withdrawal.net_amount,
})

async function carryOut(deps: WithdrawalDeps, withdrawal: Withdrawal, effect: WithdrawalEffect, now: Date): Promise<void> {
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
      // The transaction that left paid the network its fee, stored when it was signed.
      if (withdrawal.network_fee_sats !== null && withdrawal.network_fee_sats > 0) await post(networkFeePosting({ id: withdrawal.id, feeSats: withdrawal.network_fee_sats }))
      return
    case 'unsettle':
      await post(withdrawalReturnPosting(amountsOf(withdrawal)))
      return
    case 'queue_send':
      await store.jobs.enqueue('send_withdrawal', { withdrawalId: withdrawal.id }, now, now)
      return
    case 'forget_provider_payout':
    case 'notify_owner':
      // After the row is written (below), so the e-mail and the webhook carry the new status.
      return
  }
}

/** Every change reaches the owner by e-mail and, for a withdrawal made with a webhook_url, the merchant's receiver. */
async function notify(deps: WithdrawalDeps, withdrawal: Withdrawal, now: Date, known: Omit<LockedWithdrawal, 'withdrawal'> | undefined): Promise<void> {
  const { store } = deps
  // Nothing a move writes changes the account's row, which is locked: as read with the lock, it is current.
  const account = known?.account ?? (await store.accounts.findById(withdrawal.account_id))
  const destination = known?.destination ?? (await store.withdrawals.findDestination(withdrawal.destination_id, withdrawal.account_id))
  if (!account || !destination) return
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
  await queueMail(deps, {
    to: account.email, subject: fill(texts.mail.withdrawalStatusSubject, values), text: fill(texts.mail.withdrawalStatusText, values),
    codeId: null, now, sendBefore: new Date(now.getTime() + 24 * 3_600_000),
  })
  if (withdrawal.webhook_url === null) return
  const event = `withdrawal.${withdrawal.status}`
  const id = `msg_${randomBytes(16).toString('hex')}`
  const body = serializeWithdrawalWebhook({
    withdrawal_id: withdrawal.id, email: account.email, currency: withdrawal.currency, amount: withdrawal.amount, fee: withdrawal.fee,
    net_amount: withdrawal.net_amount, txid: withdrawal.txid, event, status: withdrawal.status, failure_code: withdrawal.failure_code,
  })
  await store.webhookEvents.queue({ id, charge_id: null, withdrawal_id: withdrawal.id, event, body, state: 'pending', created_at: now }, new URL(withdrawal.webhook_url).host)
}
