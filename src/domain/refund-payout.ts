// A refund owed paid by a Pix-out from the treasury (decisions 14): support orders it, the payout
// worker sends it, the provider's word completes it (and the refund is settled with it). The one function that moves it from status to
// status; no I/O. Money leaves at most once: once a transaction is signed and stored it may pay, so
// the payout can no longer fail or be abandoned, only be sent and followed.
import { pixOutBoundsCents, pixPayoutFee, type ReviewReason } from './withdrawal.ts'

export const refundPayoutStatuses = ['sending', 'in_review', 'sent', 'completed', 'failed'] as const
export type RefundPayoutStatus = (typeof refundPayoutStatuses)[number]

/** Why a refund payout ended without paying (the refund is still owed). */
export const refundPayoutFailures = ['provider_refused', 'payout_expired', 'abandoned_by_support', 'refund_settled', 'payout_returned'] as const
export type RefundPayoutFailure = (typeof refundPayoutFailures)[number]

export type RefundPayoutEvent =
  | { kind: 'hold'; reason: ReviewReason }
  | { kind: 'fail'; code: Exclude<RefundPayoutFailure, 'abandoned_by_support' | 'payout_returned'> }
  | { kind: 'sent' }
  | { kind: 'completed' }
  /**
   * Support sends it again after looking (the treasury was topped up, the lost reply was found);
   * `stillOwed`: the refund, re-read under its lock, still owes at least this payout's amount.
   */
  | { kind: 'retry'; stillOwed: boolean }
  /** Support asks the provider for a new payout (a new nonce) after one whose reply asked another amount. */
  | { kind: 'new_payout'; stillOwed: boolean }
  /** Support saw the DePix come back after the provider failed the Pix: the refund is owed again. */
  | { kind: 'returned' }
  /** Support gives up on it before anything left: the refund stays owed, to be paid another way. */
  | { kind: 'abandon' }

export type RefundPayoutDecision =
  | { outcome: 'moved'; status: RefundPayoutStatus; reviewReason: ReviewReason | null; failureCode: RefundPayoutFailure | null; queueSend: boolean; forgetProviderPayout: boolean }
  | { outcome: 'unchanged' }
  | { outcome: 'refused'; code: 'refund_payout_not_in_review' | 'refund_payout_signed' | 'refund_not_owed' | 'payout_mismatch_unpayable' }

const moved = (status: RefundPayoutStatus, more: Partial<Omit<Extract<RefundPayoutDecision, { outcome: 'moved' }>, 'outcome' | 'status'>> = {}): RefundPayoutDecision => ({
  outcome: 'moved', status, reviewReason: null, failureCode: null, queueSend: false, forgetProviderPayout: false, ...more,
})

export function decideRefundPayout(payout: { status: RefundPayoutStatus; signed: boolean; reviewReason?: ReviewReason | null }, event: RefundPayoutEvent): RefundPayoutDecision {
  const { status, signed } = payout
  const mismatched = payout.reviewReason === 'payout_mismatch'
  switch (event.kind) {
    case 'hold':
      return status === 'sending' ? moved('in_review', { reviewReason: event.reason }) : { outcome: 'unchanged' }
    case 'fail':
      return status === 'sending' && !signed ? moved('failed', { failureCode: event.code }) : { outcome: 'unchanged' }
    case 'sent':
      return status === 'sending' ? moved('sent') : { outcome: 'unchanged' }
    case 'completed':
      return status === 'sent' ? moved('completed') : { outcome: 'unchanged' }
    case 'retry':
      if (status !== 'in_review') return { outcome: 'refused', code: 'refund_payout_not_in_review' }
      // A reply asking for more is never paid, whoever retries: abandon it, or order a new payout.
      if (mismatched) return { outcome: 'refused', code: 'payout_mismatch_unpayable' }
      if (!event.stillOwed) return { outcome: 'refused', code: 'refund_not_owed' }
      return moved('sending', { queueSend: true })
    case 'new_payout':
      if (status !== 'in_review' || !mismatched) return { outcome: 'refused', code: 'refund_payout_not_in_review' }
      if (signed) return { outcome: 'refused', code: 'refund_payout_signed' }
      if (!event.stillOwed) return { outcome: 'refused', code: 'refund_not_owed' }
      return moved('sending', { queueSend: true, forgetProviderPayout: true })
    case 'returned':
      return status === 'sent' ? moved('failed', { failureCode: 'payout_returned' }) : { outcome: 'refused', code: 'refund_payout_not_in_review' }
    case 'abandon':
      if (status !== 'in_review') return { outcome: 'refused', code: 'refund_payout_not_in_review' }
      return signed ? { outcome: 'refused', code: 'refund_payout_signed' } : moved('failed', { failureCode: 'abandoned_by_support' })
  }
}

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
