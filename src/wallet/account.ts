// What the Wallet shows and does for a signed-in owner, through the service's own use cases:
// the identity purchase is a charge made by create-charge; the token comes from issue-token.
import { createCharge, type CreateChargeDeps } from '../app/create-charge.ts'
import type { ChargeCreated } from '../contract/api.ts'
import { isChargeId, type ChargeStatus } from '../domain/charge.ts'
import { chargePage, parseStatusFilter } from '../app/list-charges.ts'
import { DomainError } from '../domain/errors.ts'
import { fixedFeeOf } from '../domain/money.ts'
import type { Charge } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import type { ChargeRow, Overview } from './pages.ts'

export async function accountOverview(deps: { store: Store }, accountId: number): Promise<Overview> {
  const account = await deps.store.accounts.findById(accountId)
  if (!account) throw new DomainError('account_not_found')
  const token = await deps.store.tokens.liveOf(accountId)
  return {
    email: account.email,
    displayName: account.display_name,
    notifySales: account.notify_sales,
    ownerTaxNumber: account.owner_tax_number,
    kyc: account.kyc,
    euid: account.euid,
    available: await deps.store.ledger.balances(accountId, 'available'),
    held: await deps.store.ledger.balances(accountId, 'held'),
    token: token ? { last4: token.last4, createdAt: token.created_at, lastUsedAt: token.last_used_at } : null,
  }
}

/**
 * "Comprar DePix": a charge to the owner's own account, paid with the owner's own CPF/CNPJ, so
 * the provider learns the owner's EUID. No merchant's charge: no merchantId. Until the account has
 * its EUID the section 3 rules cap it at R$ 10,00; afterwards the owner's EUID opens the ladder.
 */
export async function buyDepix(deps: CreateChargeDeps, request: { accountId: number; value: string }): Promise<ChargeCreated> {
  const account = await deps.store.accounts.findById(request.accountId)
  if (!account || account.owner_tax_number === null) throw new DomainError('account_not_found')
  return createCharge(deps, {
    merchant: { accountId: account.id, merchantId: null },
    body: {
      value: request.value.replace(',', '.'),
      email: account.email,
      ...(account.euid !== null ? { euid: account.euid } : { tax_number: account.owner_tax_number }),
      ...(account.owner_name !== null ? { payer_name: account.owner_name } : {}),
    },
  })
}

/** One of the owner's identity purchases; anything else is not there. */
export async function ownPurchase(deps: { store: Store }, request: { accountId: number; chargeId: string }): Promise<Charge> {
  const charge = isChargeId(request.chargeId) ? await deps.store.charges.findById(request.chargeId) : undefined
  if (!charge || charge.account_id !== request.accountId || charge.merchant_id !== null) throw new DomainError('payment_not_found', { param: 'id' })
  return charge
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

/** What the Wallet's money views show of a charge: gross, what was paid, the fee, what was credited. */
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

/** A charge the account received or made; anything else is not there. */
export async function accountCharge(deps: { store: Store }, request: { accountId: number; chargeId: string }): Promise<Charge> {
  const charge = isChargeId(request.chargeId) ? await deps.store.charges.findById(request.chargeId) : undefined
  if (!charge || (charge.account_id !== request.accountId && charge.merchant_account_id !== request.accountId)) throw new DomainError('payment_not_found', { param: 'id' })
  return charge
}
