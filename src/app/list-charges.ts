// The merchant's charges, newest first, with filters and a cursor (docs/rules.md#charge-reads; GET
// /api/payments), and the Wallet's list of an account's charges: one page-walking rule for both.
import { chargeStatuses, isChargeId, type ChargeStatus } from '../domain/charge.ts'
import { DomainError } from '../domain/errors.ts'
import type { Charge } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import type { PaymentList } from '../contract/api.ts'
import { toChargeRecord } from './get-charge.ts'
import { dateFilter, keysetPage } from './page-cursor.ts'

export function parseStatusFilter(value: string | undefined): ChargeStatus | null {
  if (value === undefined || value === '') return null
  if (!(chargeStatuses as readonly string[]).includes(value)) throw new DomainError('invalid_request', { param: 'status', message: 'Unknown status.' })
  return value as ChargeStatus
}

/** One page of the scope's charges and the cursor of the next, if there is one. */
export async function chargePage(
  store: Store,
  scope: { merchantAccountId: number } | { accountId: number },
  filters: { status: ChargeStatus | null; cursor: string | undefined; createdFrom?: Date | null; createdTo?: Date | null; limit: number },
): Promise<{ charges: Charge[]; nextCursor: string | null }> {
  const page = await keysetPage({ cursor: filters.cursor, limit: filters.limit, isId: isChargeId }, (before, limit) => store.charges.list(scope, { ...filters, before, limit }))
  return { charges: page.rows, nextCursor: page.nextCursor }
}

export async function listMerchantCharges(
  deps: { store: Store },
  request: { merchantAccountId: number; status?: string; createdFrom?: string; createdTo?: string; limit?: number; cursor?: string },
): Promise<PaymentList> {
  const page = await chargePage(deps.store, { merchantAccountId: request.merchantAccountId }, {
    status: parseStatusFilter(request.status),
    cursor: request.cursor,
    createdFrom: dateFilter(request.createdFrom, 'created_from'),
    createdTo: dateFilter(request.createdTo, 'created_to'),
    limit: request.limit ?? 20,
  })
  return {
    payments: page.charges.map((charge) => ({ ...toChargeRecord(charge), createdAt: charge.created_at.toISOString(), expiresAt: charge.expires_at.toISOString(), swap_to: charge.currency })),
    next_cursor: page.nextCursor,
  }
}
