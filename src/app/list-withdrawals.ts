// An account's withdrawals and destinations as the API answers them (GET /api/withdrawals, with
// the filters and cursor of GET /api/payments; GET /api/withdrawals/{id}; GET
// /api/withdrawal-destinations), and as the Wallet lists them.
import { withdrawalIdPattern, type DestinationRecord, type WithdrawalList, type WithdrawalRecord } from '../contract/api.ts'
import { DomainError } from '../domain/errors.ts'
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
export async function withdrawalsWithDetails(store: Store, withdrawals: readonly Withdrawal[]): Promise<WithdrawalWithDetails[]> {
  const [destinations, payouts] = await Promise.all([
    store.withdrawals.destinationsByIds([...new Set(withdrawals.map((withdrawal) => withdrawal.destination_id))]),
    store.payouts.listForWithdrawals(withdrawals.map((withdrawal) => withdrawal.id)),
  ])
  const byId = new Map(destinations.map((destination) => [destination.id, destination]))
  const newest = newestPayouts(payouts)
  return withdrawals.map((withdrawal) => ({ withdrawal, destination: byId.get(withdrawal.destination_id)!, payout: newest.get(withdrawal.id) }))
}

export async function withdrawalRecords(store: Store, withdrawals: readonly Withdrawal[]): Promise<WithdrawalRecord[]> {
  return (await withdrawalsWithDetails(store, withdrawals)).map(({ withdrawal, destination, payout }) => toWithdrawalRecord(withdrawal, destination, payout))
}

export async function getWithdrawal(deps: { store: Store }, request: { accountId: number; withdrawalId: string }): Promise<WithdrawalRecord> {
  const withdrawal = isWithdrawalId(request.withdrawalId) ? await deps.store.withdrawals.findForAccount(request.withdrawalId, request.accountId) : undefined
  if (!withdrawal) throw new DomainError('withdrawal_not_found')
  return withdrawalRecord(deps.store, withdrawal)
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

export async function listDestinations(deps: { store: Store; clock: { now(): Date } }, accountId: number): Promise<{ destinations: DestinationRecord[] }> {
  const now = deps.clock.now()
  return { destinations: (await deps.store.withdrawals.listDestinations(accountId)).map((destination) => toDestinationRecord(destination, now)) }
}
