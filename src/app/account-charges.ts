// The charges an owner sees in the Wallet: those the account received, those it made as a
// merchant, and its identity purchases; a page of them, and one with its refunds and movements.
import { isChargeId, isCredited, type ChargeStatus } from '../domain/charge.ts'
import { DomainError } from '../domain/errors.ts'
import { refundableCents } from '../domain/merchant-refund.ts'
import { fixedFeeOf, type Currency } from '../domain/money.ts'
import { linesOf, type StatementLine } from '../domain/statement.ts'
import type { Charge, MerchantRefund } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { chargePage, parseStatusFilter } from './list-charges.ts'
import { refundsOfCharge } from './merchant-refunds.ts'

/** What the Wallet's money views show of a charge: gross, what was paid, the fee, what was credited. */
export type ChargeRow = {
  id: string
  status: ChargeStatus
  valueCents: number
  paidCents: number | null
  /** The fixed deposit fee, once credited. */
  feeCents: number | null
  currency: Currency
  creditedUnits: number | null
  takenBackCents: number
  createdAt: Date
  role: 'received' | 'asMerchant' | 'identityPurchase'
}

const PAGE_SIZE = 20

export async function listAccountCharges(
  deps: { store: Store },
  request: { accountId: number; status: string | undefined; before: string | undefined },
): Promise<{ rows: ChargeRow[]; status: ChargeStatus | null; nextCursor: string | null }> {
  const status = parseStatusFilter(request.status)
  const page = await chargePage(deps.store, { accountId: request.accountId }, { status, cursor: request.before, limit: PAGE_SIZE })
  return {
    status,
    nextCursor: page.nextCursor,
    rows: page.charges.map((charge) => chargeRow(charge, request.accountId)),
  }
}

export function chargeRow(charge: Charge, accountId: number): ChargeRow {
  const credited = charge.credited_units !== null
  return {
    id: charge.id,
    status: charge.status,
    valueCents: charge.value_cents,
    paidCents: charge.paid_cents,
    feeCents: credited ? fixedFeeOf(charge.paid_cents ?? charge.value_cents) : null,
    currency: charge.currency,
    creditedUnits: charge.credited_units,
    takenBackCents: charge.taken_back_cents,
    createdAt: charge.created_at,
    role: charge.merchant_id === null ? 'identityPurchase' : charge.account_id === accountId ? 'received' : 'asMerchant',
  }
}

export type AccountChargeView = {
  charge: Charge
  refunds: MerchantRefund[]
  /** What is left to refund of a charge this account received and was credited; null when no refund can be made now. */
  leftCents: number | null
  /** The statement's lines of the charge's postings on this account. */
  lines: StatementLine[]
}

/** A charge the account received or made, with its refunds and movements; anything else is not there. */
export async function accountChargeView(deps: { store: Store }, request: { accountId: number; chargeId: string }): Promise<AccountChargeView> {
  const charge = isChargeId(request.chargeId) ? await deps.store.charges.findById(request.chargeId) : undefined
  if (!charge || (charge.account_id !== request.accountId && charge.merchant_account_id !== request.accountId)) throw new DomainError('payment_not_found', { param: 'id' })
  // A charge this account received: "Devolver" while something is left (docs/rules.md#merchant-refunds).
  const left = charge.account_id === request.accountId && isCredited(charge.status) ? refundableCents({ paidCents: charge.paid_cents, refundedCents: charge.refunded_cents }) : 0
  const refunds = await refundsOfCharge(deps, charge.id)
  const lines = (await deps.store.statement.movementsOfCharge(request.accountId, charge.id)).flatMap(linesOf)
  return { charge, refunds, leftCents: left > 0 ? left : null, lines }
}
