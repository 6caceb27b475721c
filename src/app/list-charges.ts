// The merchant's charges, newest first, with filters and a cursor (decisions 12; GET
// /api/payments), and the Wallet's list of an account's charges: one page-walking rule for both.
import { chargeStatuses, isChargeId, type ChargeStatus } from '../domain/charge.ts'
import { DomainError } from '../domain/errors.ts'
import type { Charge } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import type { PaymentList } from '../contract/api.ts'
import { toChargeRecord } from './get-charge.ts'

export function parseStatusFilter(value: string | undefined): ChargeStatus | null {
  if (value === undefined || value === '') return null
  if (!(chargeStatuses as readonly string[]).includes(value)) throw new DomainError('invalid_request', { param: 'status', message: 'Unknown status.' })
  return value as ChargeStatus
}

/** The cursor is opaque to clients: the last charge's creation time and id, base64url. */
function encodeCursor(charge: Charge): string {
  return Buffer.from(`${charge.created_at.getTime()}_${charge.id}`).toString('base64url')
}

function parseCursor(value: string | undefined): { createdAt: Date; id: string } | null {
  if (value === undefined || value === '') return null
  const match = /^(\d{1,15})_(\w+)$/.exec(Buffer.from(value, 'base64url').toString('latin1'))
  if (!match || !isChargeId(match[2]!)) throw new DomainError('invalid_request', { param: 'cursor', message: 'This cursor was not given by us.' })
  return { createdAt: new Date(Number(match[1])), id: match[2]! }
}

/** One page of the scope's charges and the cursor of the next, if there is one. */
export async function chargePage(
  store: Store,
  scope: { merchantAccountId: number } | { accountId: number },
  filters: { status: ChargeStatus | null; cursor: string | undefined; createdFrom?: Date | null; createdTo?: Date | null; limit: number },
): Promise<{ charges: Charge[]; nextCursor: string | null }> {
  const found = await store.charges.list(scope, { ...filters, before: parseCursor(filters.cursor), limit: filters.limit + 1 })
  const charges = found.slice(0, filters.limit)
  return { charges, nextCursor: found.length > filters.limit ? encodeCursor(charges.at(-1)!) : null }
}

function dateFilter(value: string | undefined, param: string): Date | null {
  if (value === undefined || value === '') return null
  const date = new Date(value)
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(value) || Number.isNaN(date.getTime())) {
    throw new DomainError('invalid_request', { param, message: `${param} must be an ISO 8601 date or time.` })
  }
  return date
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
