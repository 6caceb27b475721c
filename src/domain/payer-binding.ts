// Who a confirmed payer becomes (docs/rules.md#payer-identity): each identity binds to the first
// account it paid for, and the owner's own purchase, paid with the owner's tax number, gives the
// account its EUID (the merchantId of its tokens). Without an EUID from the provider, or with an
// EUID already another account's, the account is left "unidentified" for support.
import { isMaskedTaxNumber } from './tax-number.ts'

export type AccountKyc = 'none' | 'unidentified' | 'verified'

export type PayerBinding = {
  /** The identities to bind to the receiving account (one already bound keeps its account). */
  bind: Array<{ kind: 'euid' | 'tax_number'; value: string }>
  /** What the account's identity becomes; null leaves it as it is. */
  account: { kyc: 'verified'; euid: string } | { kyc: 'unidentified' } | null
}

export function decidePayerBinding(input: {
  accountId: number
  account: { kyc: AccountKyc; ownerTaxNumber: string | null }
  payer: { euid: string | null; taxNumber: string | null }
  /** The account the payer's EUID is already bound to, if any. */
  euidBoundTo: number | undefined
}): PayerBinding {
  const { payer, account } = input
  const bind = payerIdentities(payer)
  const ownPurchase = account.kyc !== 'verified' && account.ownerTaxNumber !== null && payer.taxNumber === account.ownerTaxNumber
  if (!ownPurchase) return { bind, account: null }
  const euidIsOurs = payer.euid !== null && (input.euidBoundTo === undefined || input.euidBoundTo === input.accountId)
  return { bind, account: euidIsOurs ? { kyc: 'verified', euid: payer.euid! } : { kyc: 'unidentified' } }
}

/** The identities of a payer that checks and bindings serialize on (a masked tax number is none). */
export function payerIdentities(payer: { euid: string | null; taxNumber: string | null }): Array<{ kind: 'euid' | 'tax_number'; value: string }> {
  const identities: Array<{ kind: 'euid' | 'tax_number'; value: string }> = []
  if (payer.euid !== null) identities.push({ kind: 'euid', value: payer.euid })
  if (payer.taxNumber !== null && !isMaskedTaxNumber(payer.taxNumber)) identities.push({ kind: 'tax_number', value: payer.taxNumber })
  return identities
}
