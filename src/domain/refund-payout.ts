// What a refund owed paid by a Pix-out from the treasury may cost (docs/treasury.md, "Refunds
// owed"): the payer's key receives all that is owed, and the provider's fee, which the service
// bears, comes on top. The payout itself is an ordinary payout (domain/payout.ts).
import { pixOutBoundsCents, pixPayoutFee } from './withdrawal.ts'

/**
 * The most DePix the provider may ask for a payout of `owedCents` to the payer: its fee (1 %, at
 * least R$ 1,00) is on what it receives, so on the fee too.
 */
export function refundPayoutMaxDeposit(owedCents: number): number {
  let deposit = owedCents + pixPayoutFee(owedCents)
  while (deposit + 1 - owedCents <= pixPayoutFee(deposit + 1)) deposit += 1
  return deposit
}

/** Whether a refund of `owedCents` can go by Pix-out: the provider takes R$ 2,00 to R$ 6.000,00, its fee on top of what is owed. */
export function refundPixOutRefusal(owedCents: number): 'amount_below_minimum' | 'amount_above_maximum' | null {
  if (owedCents + pixPayoutFee(owedCents) < pixOutBoundsCents.min) return 'amount_below_minimum'
  if (refundPayoutMaxDeposit(owedCents) > pixOutBoundsCents.max) return 'amount_above_maximum'
  return null
}

/**
 * Whether the provider's answer is one we pay: the payer receives at least what is owed, and the
 * provider asks for no more on top than its published fee on what it receives.
 */
export function refundPayoutFits(owedCents: number, payout: { depositAmountInCents: number | null; payoutAmountInCents: number | null }): boolean {
  if (payout.depositAmountInCents === null) return false
  const deposit = payout.depositAmountInCents
  return deposit >= owedCents && deposit <= refundPayoutMaxDeposit(owedCents) && (payout.payoutAmountInCents === null || payout.payoutAmountInCents >= owedCents)
}
