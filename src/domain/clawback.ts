// Money the provider takes back (docs/rules.md#clawbacks): a MED for part or all of a
// payment, or the provider's "refunded". Amounts are cumulative per charge, so any
// sequence of partial claw-backs debits the account exactly what the payment credited once
// the whole value is taken back, and never more; what the account cannot give back (the
// fixed fee) is the service's MED loss.
import { convertNet, fixedFeeOf, type Currency } from './money.ts'

/** What the provider reported taking (or about to take) back. */
export type ClawbackKind = 'med' | 'refunded' | 'will_refund'

/** A credited payment, as a claw-back needs it. */
export type CreditedPayment = {
  currency: Currency
  /** What arrived (centavos): the most the provider can take back. */
  arrivedCents: number
  /** What the credit put on the account (minor units of `currency`). */
  creditedUnits: number
  /** The price the credit converted at (micro-reais); null for DEPIX. */
  quoteMicros: number | null
  /** Taken back so far: DEPIX centavos, and what that took from the account. */
  takenBackCents: number
  takenBackUnits: number
}

/** One claw-back step: how the DEPIX the provider took is split between the account and the service. */
export type TakeBack = {
  /** DEPIX centavos the provider took this time. */
  principalCents: number
  /** Debited from the account, in its currency. */
  units: number
  /** DEPIX the conversion book gives back for those units (equal to `units` for DEPIX). */
  conversionCents: number
  /** What the service loses: the part of the principal no account pays back (the fixed fee). */
  lossCents: number
  /** Cumulative totals after this step. */
  takenBackCents: number
  takenBackUnits: number
  /** The whole value is taken back: the charge is refunded. */
  whole: boolean
}

/** The cumulative account debit for `takenCents` taken back: that part converted at the credit's price, never beyond the credit. */
function debitFor(payment: CreditedPayment, takenCents: number): number {
  const net = payment.arrivedCents - fixedFeeOf(payment.arrivedCents)
  return Math.min(payment.creditedUnits, convertNet(Math.min(takenCents, net), payment.currency, payment.quoteMicros))
}

/**
 * The provider takes `principalCents` back (null: it did not say how much, so all of it). Null when
 * nothing is left to take.
 */
export function takeBack(payment: CreditedPayment, principalCents: number | null): TakeBack | null {
  const remaining = payment.arrivedCents - payment.takenBackCents
  if (remaining <= 0) return null
  const principal = principalCents === null || principalCents <= 0 ? remaining : Math.min(principalCents, remaining)
  const total = payment.takenBackCents + principal
  const net = payment.arrivedCents - fixedFeeOf(payment.arrivedCents)
  const units = debitFor(payment, total) - payment.takenBackUnits
  const conversionCents = payment.currency === 'DEPIX' ? units : Math.min(total, net) - Math.min(payment.takenBackCents, net)
  return {
    principalCents: principal,
    units,
    conversionCents,
    lossCents: principal - conversionCents,
    takenBackCents: total,
    takenBackUnits: payment.takenBackUnits + units,
    whole: total >= payment.arrivedCents,
  }
}
