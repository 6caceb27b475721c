// An owner asks to take balance out (docs/rules.md#withdrawal-requests): in the Wallet, to be
// confirmed with a fresh e-mail code bound to the amount and the destination; or through the API
// with the account's token, to a destination already confirmed in the Wallet, confirmed as it is
// made. Only a confirmed destination past its cool-down; only the available balance; the fee, the
// minimums and the limits of domain/withdrawal.ts.
import { randomBytes } from 'node:crypto'
import type { Currency } from '../domain/money.ts'
import { formatAmount } from '../domain/money.ts'
import { DomainError } from '../domain/errors.ts'
import { accountHolder } from '../domain/second-factor.ts'
import { brlCentsOf, limitDecision, priceWithdrawal, type WithdrawalLimits, type WithdrawalPrice } from '../domain/withdrawal.ts'
import { catalogues, fill, type Lang } from '../i18n/catalogue.ts'
import type { CreateWithdrawalBody, WithdrawalRecord } from '../contract/api.ts'
import { parseWebhookTarget } from '../domain/charge-request.ts'
import type { WebhookDestinations } from '../webhooks/destination.ts'
import { withdrawalRecord } from './list-withdrawals.ts'
import type { Account, Withdrawal, WithdrawalDestination } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { confirmingWithCode, issueActionCode, useActionCode } from './action-codes.ts'
import { moveLockedWithdrawal, moveWithdrawal, type WithdrawalDeps } from './move-money-out.ts'
import type { QuoteBook } from './quote-book.ts'
import { requestHash } from '../request-hash.ts'
import { mayWithdraw } from './withdrawal-blockers.ts'
import { withIdempotencyKey } from './idempotent-request.ts'
import { isLive } from '../domain/payout.ts'
import { destinationLabel, destinationState } from './withdrawal-records.ts'
import { requireStepUp, type StepUpProof } from './second-factors.ts'

export type RequestWithdrawalDeps = WithdrawalDeps & { quotes: QuoteBook; limits: WithdrawalLimits }

export type WithdrawalRequest = {
  accountId: number
  destinationId: string
  currency: Currency
  amount: number
  lang: Lang
  /** wallet: confirmed by the owner's e-mail code; api: confirmed as it is made. */
  via: 'wallet' | 'api'
  webhookUrl: string | null
  webhookSecret: string | null
  /** Who asked (the audit trail): the owner's session address, or the token. */
  actor: string
  address: string
}

const DAY_MS = 24 * 3_600_000

/** The code's subject: the withdrawal with its amount and destination, so a code confirms exactly this. */
const codeSubject = (withdrawal: Pick<Withdrawal, 'id' | 'currency' | 'amount' | 'destination_id'>) => `${withdrawal.id}:${withdrawal.currency}:${withdrawal.amount}:${withdrawal.destination_id}`

/** The withdrawal's price, destination and BRL worth, or the reason it cannot be asked for. */
async function checked(deps: RequestWithdrawalDeps, request: WithdrawalRequest, now: Date): Promise<{ account: Account; destination: WithdrawalDestination; price: WithdrawalPrice; brlCents: number }> {
  const account = await deps.store.accounts.findById(request.accountId)
  if (!account) throw new DomainError('withdrawal_not_allowed')
  const destination = await deps.store.withdrawals.findDestination(request.destinationId, request.accountId)
  if (!destination || destination.state === 'canceled') throw new DomainError('destination_not_found', { param: 'destination_id' })
  const state = destinationState(destination, now)
  if (state === 'unconfirmed') throw new DomainError('destination_not_confirmed', { param: 'destination_id' })
  if (state === 'cooling_down') throw new DomainError('destination_cooling_down', { param: 'destination_id' })
  if (destination.type === 'pix' && request.currency !== 'DEPIX') throw new DomainError('destination_currency_invalid', { param: 'currency' })
  const price = priceWithdrawal(destination.type, request.currency, request.amount)
  if ('refused' in price) throw new DomainError(price.refused, { param: 'amount' })
  const quote = request.currency === 'DEPIX' ? null : await deps.quotes.at(request.currency)
  if (request.currency !== 'DEPIX' && quote === null) throw new DomainError('quote_unavailable')
  const brlCents = brlCentsOf(request.currency, request.amount, quote?.micros ?? null)
  const limit = limitDecision(brlCents, { last24hCents: 0, last30dCents: 0 }, deps.limits)
  if ('refused' in limit) throw new DomainError(limit.refused, { param: 'amount' })
  if (!(await mayWithdraw(deps.store, account, now))) throw new DomainError('withdrawal_not_allowed')
  const available = await deps.store.ledger.balances(account.id, 'available')
  if (available[request.currency] < request.amount) throw new DomainError('insufficient_funds', { param: 'amount' })
  return { account, destination, price, brlCents }
}

/**
 * The confirm event with its facts, read under the account's lock: what is available now, whether
 * the account may withdraw, and whether the rolling limits or the review threshold send it to support.
 */
function confirmWith(deps: RequestWithdrawalDeps) {
  return async (store: Store, withdrawal: Withdrawal, now: Date) => {
    const account = (await store.accounts.findById(withdrawal.account_id))!
    const used = {
      last24hCents: await store.withdrawals.brlCentsSince(account.id, new Date(now.getTime() - DAY_MS)),
      last30dCents: await store.withdrawals.brlCentsSince(account.id, new Date(now.getTime() - 30 * DAY_MS)),
    }
    const limit = limitDecision(withdrawal.brl_cents, used, deps.limits)
    const available = (await store.ledger.balances(account.id, 'available'))[withdrawal.currency]
    return { kind: 'confirm' as const, available, allowed: await mayWithdraw(store, account, now), review: 'review' in limit ? limit.review : 'over_threshold' as const }
  }
}

const refusal = (result: Awaited<ReturnType<typeof moveWithdrawal>>): never => {
  if (result.kind === 'refused') throw new DomainError(result.code)
  throw new DomainError('withdrawal_not_found')
}

export async function requestWithdrawal(deps: RequestWithdrawalDeps, request: WithdrawalRequest, id = newWithdrawalId()): Promise<Withdrawal> {
  const now = deps.clock.now()
  const { account, destination, price, brlCents } = await checked(deps, request, now)
  return deps.store.transaction(async (store) => {
    // The account first: inserting the row takes a key-share lock on the account (its foreign
    // key), and two requests each holding that while waiting for the account's row lock deadlock.
    await store.accounts.lockById(account.id)
    const inserted = await store.withdrawals.insert({
      id, account_id: account.id, destination_id: destination.id, destination_type: destination.type, currency: request.currency, amount: price.amount, fee: price.fee,
      net_amount: price.net, payout_cents: price.payoutCents, brl_cents: brlCents, status: 'requested', via: request.via, lang: request.lang,
      webhook_url: request.webhookUrl, webhook_secret: request.webhookSecret, created_at: now, updated_at: now,
    })
    await store.audit.record({ actor: request.actor, action: 'withdrawal.request', subject: id, details: { currency: request.currency, amount: price.amount, destination: destination.id, via: request.via }, at: now })
    if (request.via === 'api') {
      const locked = (await store.withdrawals.lockById(inserted.id))!
      // The account and the destination as checked: the e-mail's address and label never change.
      const confirmed = await moveLockedWithdrawal({ ...deps, store }, locked, { event: confirmWith(deps) }, { account, destination })
      // Refused (the balance went, say): nothing of it is kept.
      return confirmed.kind === 'moved' ? confirmed.withdrawal : refusal(confirmed)
    }
    const texts = catalogues[request.lang].mail
    const values = {
      amount: formatAmount(request.currency, price.amount),
      destination: destinationLabel(destination),
      fee: formatAmount(request.currency, price.fee),
      receives: price.payoutCents === null ? formatAmount(request.currency, price.net) : formatAmount('DEPIX', price.payoutCents),
    }
    await issueActionCode({ store, mailSeal: deps.mailSeal }, {
      email: account.email, purpose: 'withdrawal', subject: codeSubject(inserted), now, address: request.address,
      mail: (code) => ({ subject: fill(texts.withdrawalCodeSubject, { ...values, code }), text: fill(texts.withdrawalCodeText, { ...values, code }) }),
    })
    return inserted
  })
}

export function newWithdrawalId(): string {
  return `wd_${randomBytes(12).toString('hex')}`
}

/** The owner's code for this withdrawal, with its amount and destination: the amount is reserved and the withdrawal queued (or sent for review). */
export async function confirmWithdrawal(deps: RequestWithdrawalDeps, request: { accountId: number; withdrawalId: string; code: string; stepUp?: StepUpProof }): Promise<Withdrawal> {
  const result = await confirmingWithCode(deps.store, async (store) => {
    const locked = await store.withdrawals.lockById(request.withdrawalId)
    if (!locked || locked.account_id !== request.accountId) return { kind: 'not_found' as const }
    if (locked.status !== 'requested') return { kind: 'unchanged' as const, withdrawal: locked }
    // Canceled since it was asked for (the link in its e-mail): the code no longer sends money there.
    if ((await store.withdrawals.lockDestination(locked.destination_id))?.state !== 'confirmed') throw new DomainError('destination_canceled', { param: 'destination_id' })
    const account = (await store.accounts.findById(locked.account_id))!
    // An owner with a second factor checked it within 5 minutes (docs/design.md, "Second factors").
    await requireStepUp(store, { holder: accountHolder(account.id), checkedAt: request.stepUp?.checkedAt, now: deps.clock.now() })
    await useActionCode(store, { email: account.email, purpose: 'withdrawal', subject: codeSubject(locked), code: request.code, now: deps.clock.now() })
    return moveLockedWithdrawal({ ...deps, store }, locked, { event: confirmWith(deps) })
  })
  if (result.kind === 'moved' || result.kind === 'unchanged') return result.withdrawal
  return refusal(result)
}

/** The owner (or support) stops it, until money may have left: a reserved amount goes back to available. */
export async function cancelWithdrawal(deps: WithdrawalDeps, request: { accountId: number; withdrawalId: string; actor: string }): Promise<Withdrawal> {
  const result = await moveWithdrawal(deps, request.withdrawalId, {
    event: async (store, withdrawal) => {
      if (withdrawal.account_id !== request.accountId) return null
      // A signed transaction is stored for it: it may still be broadcast and pay. Read under the
      // payout's lock, after the withdrawal's (the order every move takes them in).
      const newest = await store.payouts.latestOf({ withdrawalId: withdrawal.id })
      const payout = newest ? await store.payouts.lockById(newest.id) : undefined
      return { kind: 'cancel', signed: payout !== undefined && isLive(payout.status) && payout.tx_hex !== null }
    },
    after: (store, before, after, now) => store.audit.record({ actor: request.actor, action: 'withdrawal.cancel', subject: after.id, details: { from: before.status }, at: now }),
  })
  if (result.kind === 'moved') return result.withdrawal
  if (result.kind === 'refused') throw new DomainError(result.code)
  throw new DomainError('withdrawal_not_found')
}

/** The idempotency fingerprint of an API withdrawal: the endpoint and its body. */
export const withdrawalRequestHash = (body: unknown) => requestHash({ endpoint: 'withdrawals', body })

/**
 * POST /api/withdrawals: a withdrawal to a destination confirmed in the Wallet, confirmed as it is
 * made. An Idempotency-Key fixes the withdrawal's id before anything is written, so a retry after
 * a lost answer finds the same withdrawal and never makes a second.
 */
export async function createApiWithdrawal(
  deps: RequestWithdrawalDeps & { publicWebhooksOnly: boolean; webhookDestinations: WebhookDestinations; log?: { warn: (details: object, message: string) => void } },
  request: { accountId: number; tokenId: string; body: CreateWithdrawalBody; idempotencyKey: string | undefined; address: string },
): Promise<WithdrawalRecord> {
  const { webhookUrl, webhookSecret } = parseWebhookTarget(request.body, deps.publicWebhooksOnly)
  if (webhookUrl !== null) await deps.webhookDestinations.check(new URL(webhookUrl))
  const make = async (id: string) =>
    withdrawalRecord(deps.store, await requestWithdrawal(deps, {
      accountId: request.accountId, destinationId: request.body.destination_id, currency: request.body.currency, amount: request.body.amount,
      lang: 'pt-BR', via: 'api', webhookUrl, webhookSecret, actor: `token:${request.tokenId}`, address: request.address,
    }, id))
  return withIdempotencyKey(deps, {
    accountId: request.accountId, key: request.idempotencyKey, requestHash: withdrawalRequestHash(request.body), newId: newWithdrawalId,
    // A process that died holding the key may have made the withdrawal (one transaction): then it is the answer.
    findMade: async (id) => {
      const made = await deps.store.withdrawals.findForAccount(id, request.accountId)
      return made ? withdrawalRecord(deps.store, made) : undefined
    },
    make: async (id) => ({ answer: await make(id) }),
  })
}