// An account's withdrawals and destinations as the API answers them (GET /api/withdrawals, with
// the filters and cursor of GET /api/payments; GET /api/withdrawals/{id}; GET
// /api/withdrawal-destinations), and as the Wallet lists them.
import { withdrawalIdPattern, type DestinationRecord, type WithdrawalList, type WithdrawalRecord } from '../contract/api.ts'
import { DomainError } from '../domain/errors.ts'
import type { Currency } from '../domain/money.ts'
import { withdrawalStatuses, type WithdrawalStatus } from '../domain/withdrawal.ts'
import type { Payout, Withdrawal, WithdrawalDestination } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { dateFilter, keysetPage } from './page-cursor.ts'
import { toDestinationRecord, toWithdrawalRecord } from './withdrawal-records.ts'

const withdrawalId = new RegExp(withdrawalIdPattern)
export const isWithdrawalId = (id: string) => withdrawalId.test(id)

export async function withdrawalRecord(store: Store, withdrawal: Withdrawal): Promise<WithdrawalRecord> {
  const destination = (await store.withdrawals.findDestination(withdrawal.destination_id, withdrawal.account_id))!
  return toWithdrawalRecord(withdrawal, destination, await store.payouts.latestOf({ withdrawalId: withdrawal.id }))
}

export type WithdrawalWithDetails = { withdrawal: Withdrawal; destination: WithdrawalDestination; payout: Payout | undefined }

/** Withdrawals, of any accounts, with their destinations and newest payouts: two reads whatever their number (a list shows one per row). */
export async function withdrawalsWithDetails(deps: { store: Store }, withdrawals: readonly Withdrawal[]): Promise<WithdrawalWithDetails[]> {
  const [destinations, payouts] = await Promise.all([
    deps.store.withdrawals.destinationsByIds([...new Set(withdrawals.map((withdrawal) => withdrawal.destination_id))]),
    deps.store.payouts.listForWithdrawals(withdrawals.map((withdrawal) => withdrawal.id)),
  ])
  const byId = new Map(destinations.map((destination) => [destination.id, destination]))
  const newest = newestPayouts(payouts)
  return withdrawals.map((withdrawal) => ({ withdrawal, destination: byId.get(withdrawal.destination_id)!, payout: newest.get(withdrawal.id) }))
}

export async function withdrawalRecords(store: Store, withdrawals: readonly Withdrawal[]): Promise<WithdrawalRecord[]> {
  return (await withdrawalsWithDetails({ store }, withdrawals)).map(({ withdrawal, destination, payout }) => toWithdrawalRecord(withdrawal, destination, payout))
}

/** One of the account's withdrawals; another account's is simply not there. */
export async function ownWithdrawal(deps: { store: Store }, request: { accountId: number; withdrawalId: string }): Promise<Withdrawal> {
  const withdrawal = isWithdrawalId(request.withdrawalId) ? await deps.store.withdrawals.findForAccount(request.withdrawalId, request.accountId) : undefined
  if (!withdrawal) throw new DomainError('withdrawal_not_found')
  return withdrawal
}

export async function getWithdrawal(deps: { store: Store }, request: { accountId: number; withdrawalId: string }): Promise<WithdrawalRecord> {
  return withdrawalRecord(deps.store, await ownWithdrawal(deps, request))
}

/** The newest payout of each withdrawal, from payouts listed newest first. */
export function newestPayouts(payouts: Payout[]): Map<string, Payout> {
  const newest = new Map<string, Payout>()
  for (const payout of payouts) if (payout.withdrawal_id !== null && !newest.has(payout.withdrawal_id)) newest.set(payout.withdrawal_id, payout)
  return newest
}

function statusFilter(value: string | undefined): WithdrawalStatus | null {
  if (value === undefined || value === '') return null
  if (!(withdrawalStatuses as readonly string[]).includes(value)) throw new DomainError('invalid_request', { param: 'status', message: 'Unknown status.' })
  return value as WithdrawalStatus
}

export async function listWithdrawals(
  deps: { store: Store },
  request: { accountId: number; status?: string; createdFrom?: string; createdTo?: string; limit?: number; cursor?: string },
): Promise<WithdrawalList> {
  const limit = request.limit ?? 20
  const filters = { status: statusFilter(request.status), createdFrom: dateFilter(request.createdFrom, 'created_from'), createdTo: dateFilter(request.createdTo, 'created_to') }
  const { rows: page, nextCursor } = await keysetPage({ cursor: request.cursor, limit, isId: isWithdrawalId }, (before, upTo) => deps.store.withdrawals.list(request.accountId, { ...filters, before, limit: upTo }))
  const destinations = new Map((await deps.store.withdrawals.listDestinationsWithCanceled(request.accountId)).map((destination) => [destination.id, destination]))
  const payouts = newestPayouts(await deps.store.payouts.listForWithdrawals(page.map((withdrawal) => withdrawal.id)))
  return {
    withdrawals: page.map((withdrawal) => toWithdrawalRecord(withdrawal, destinations.get(withdrawal.destination_id)!, payouts.get(withdrawal.id))),
    next_cursor: nextCursor,
  }
}

/** The account's destinations that are not canceled. */
export function ownDestinations(deps: { store: Store }, accountId: number): Promise<WithdrawalDestination[]> {
  return deps.store.withdrawals.listDestinations(accountId)
}

export async function listDestinations(deps: { store: Store; clock: { now(): Date } }, accountId: number): Promise<{ destinations: DestinationRecord[] }> {
  const now = deps.clock.now()
  return { destinations: (await ownDestinations(deps, accountId)).map((destination) => toDestinationRecord(destination, now)) }
}

/** The Wallet's withdrawals page: the newest 50 with their destinations and payouts, the destinations to withdraw to, and what is available. */
export async function withdrawalsOverview(deps: { store: Store }, accountId: number): Promise<{ withdrawals: WithdrawalWithDetails[]; destinations: WithdrawalDestination[]; available: Record<Currency, number> }> {
  const withdrawals = await deps.store.withdrawals.list(accountId, { status: null, before: null, limit: 50 })
  return {
    withdrawals: await withdrawalsWithDetails(deps, withdrawals),
    destinations: await ownDestinations(deps, accountId),
    available: await deps.store.ledger.balances(accountId, 'available'),
  }
}
