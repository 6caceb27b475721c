// The owner types the destination's e-mail code: it is confirmed, and can receive once its
// cool-down has passed. Or the owner follows the e-mail's link and cancels it, signed in or not.
import { DomainError } from '../domain/errors.ts'
import { accountHolder } from '../domain/second-factor.ts'
import type { WithdrawalDestination } from '../store/schema.ts'
import { confirmingWithCode, useActionCode } from './action-codes.ts'
import { hashCancelToken, type DestinationDeps } from './add-destination.ts'
import { requireStepUp, type StepUpProof } from './second-factors.ts'

export async function confirmDestination(deps: DestinationDeps, request: { accountId: number; destinationId: string; code: string; stepUp?: StepUpProof }): Promise<WithdrawalDestination> {
  return confirmingWithCode(deps.store, async (store) => {
    const account = await store.accounts.lockById(request.accountId)
    const destination = await store.withdrawals.findDestination(request.destinationId, request.accountId)
    if (!account || !destination || destination.state === 'canceled') throw new DomainError('destination_not_found')
    if (destination.state === 'confirmed') return destination
    const now = deps.clock.now()
    // An owner with a second factor checked it within 5 minutes (docs/design.md, "Second factors").
    await requireStepUp(store, { holder: accountHolder(account.id), checkedAt: request.stepUp?.checkedAt, now })
    await useActionCode(store, { email: account.email, purpose: 'destination', subject: destination.id, code: request.code, now })
    const confirmed = await store.withdrawals.updateDestination(destination.id, 'unconfirmed', { state: 'confirmed', confirmed_at: now, usable_at: new Date(now.getTime() + deps.cooldownMs) })
    await store.audit.record({ actor: `owner:${account.email}`, action: 'destination.confirm', subject: destination.id, details: {}, at: now })
    return confirmed ?? destination
  })
}

/** One of the account's destinations, unless canceled: what the Wallet's confirm page shows and its forms act on. */
export async function ownDestination(deps: Pick<DestinationDeps, 'store'>, request: { accountId: number; destinationId: string }): Promise<WithdrawalDestination> {
  const destination = await deps.store.withdrawals.findDestination(request.destinationId, request.accountId)
  if (!destination || destination.state === 'canceled') throw new DomainError('destination_not_found')
  return destination
}

/** The destination the link names, if it can still be canceled (the page that asks "cancel it?"). */
export async function destinationForCancelLink(deps: Pick<DestinationDeps, 'store'>, token: string): Promise<WithdrawalDestination | null> {
  const destination = await deps.store.withdrawals.findDestinationByCancelToken(hashCancelToken(token))
  return destination && destination.state !== 'canceled' ? destination : null
}

/**
 * Cancels the destination, from the e-mail's link or from the Wallet: no new withdrawal can use it,
 * one still unconfirmed cannot be confirmed, and one whose payout has not signed its transaction
 * yet ends with its amount back when the payout starts (docs/treasury.md, "Payouts"); one already
 * signed may be in the network, and goes on.
 */
export async function cancelDestination(deps: DestinationDeps, target: { token: string } | { accountId: number; destinationId: string }): Promise<void> {
  const destination = 'token' in target
    ? await deps.store.withdrawals.findDestinationByCancelToken(hashCancelToken(target.token))
    : await deps.store.withdrawals.findDestination(target.destinationId, target.accountId)
  if (!destination || destination.state === 'canceled') throw new DomainError('destination_not_found')
  const now = deps.clock.now()
  await deps.store.transaction(async (store) => {
    const canceled = await store.withdrawals.updateDestination(destination.id, destination.state, { state: 'canceled', canceled_at: now })
    if (canceled) await store.audit.record({ actor: 'token' in target ? 'owner:e-mail-link' : `account:${destination.account_id}`, action: 'destination.cancel', subject: destination.id, details: {}, at: now })
  })
}
