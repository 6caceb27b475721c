// An owner asks to take balance out (docs/rules.md#withdrawal-requests): in the Wallet, to be
// confirmed with a fresh e-mail code bound to the amount and the destination; or through the API
// with the account's token, to a destination already confirmed in the Wallet, confirmed as it is
// made (create-api-withdrawal.ts). Only a confirmed destination past its cool-down; only the
// available balance; the fee, the minimums and the limits of domain/withdrawal.ts.
import { randomBytes } from 'node:crypto'
import type { Currency } from '../domain/money.ts'
import { formatAmount } from '../domain/money.ts'
import { DomainError } from '../domain/errors.ts'
import { brlCentsOf, limitDecision, priceWithdrawal, type WithdrawalPrice } from '../domain/withdrawal.ts'
import { catalogues, fill, type Lang } from '../i18n/catalogue.ts'
import type { Account, Withdrawal, WithdrawalDestination } from '../store/schema.ts'
import { issueActionCode } from './action-codes.ts'
import { confirmEvent, withdrawalCodeSubject, withdrawalRefusal, type ConfirmWithdrawalDeps } from './confirm-withdrawal.ts'
import { moveLockedWithdrawal } from './move-money-out.ts'
import type { QuoteBook } from './quote-book.ts'
import { mayWithdraw } from './withdrawal-blockers.ts'
import { destinationLabel, destinationState } from './withdrawal-records.ts'

export type RequestWithdrawalDeps = ConfirmWithdrawalDeps & { quotes: QuoteBook }

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
      const confirmed = await moveLockedWithdrawal({ ...deps, store }, locked, { event: confirmEvent(deps) }, { account, destination })
      // Refused (the balance went, say): nothing of it is kept.
      return confirmed.kind === 'moved' ? confirmed.withdrawal : withdrawalRefusal(confirmed)
    }
    const texts = catalogues[request.lang].mail
    const values = {
      amount: formatAmount(request.currency, price.amount),
      destination: destinationLabel(destination),
      fee: formatAmount(request.currency, price.fee),
      receives: price.payoutCents === null ? formatAmount(request.currency, price.net) : formatAmount('DEPIX', price.payoutCents),
    }
    await issueActionCode({ store, mailSeal: deps.mailSeal }, {
      email: account.email, purpose: 'withdrawal', subject: withdrawalCodeSubject(inserted), now, address: request.address,
      mail: (code) => ({ subject: fill(texts.withdrawalCodeSubject, { ...values, code }), text: fill(texts.withdrawalCodeText, { ...values, code }) }),
    })
    return inserted
  })
}

export function newWithdrawalId(): string {
  return `wd_${randomBytes(12).toString('hex')}`
}
