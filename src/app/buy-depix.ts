// The Wallet's "Comprar DePix", the identity purchase: a charge made by create-charge to the
// owner's own account, paid with the owner's own CPF/CNPJ, and its page while it waits.
import { createCharge, type CreateChargeDeps } from './create-charge.ts'
import type { ChargeCreated } from '../contract/api.ts'
import { isChargeId } from '../domain/charge.ts'
import { DomainError } from '../domain/errors.ts'
import type { Charge } from '../store/schema.ts'
import type { Store } from '../store/store.ts'

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
