// The account's statement: its ledger postings read as lines a person follows (docs/statements.md).
// A line's amount is what it changed in the account's balance in its currency: everything the
// account holds there (available, held 7 days, and on its way out in a withdrawal); `available`
// says what it changed in the part that can be withdrawn. So the lines of a currency sum to its
// balance, and a hold release or a withdrawal set aside is a line of amount 0 that moves
// `available`. A credit in DEPIX is two lines, what arrived and the fixed fee; a withdrawal that
// left is two lines, what was sent and our fee.
import type { Currency } from './money.ts'

export const statementLineTypes = [
  'credit', 'fee', 'hold_release', 'med', 'withdrawal_reserved', 'withdrawal', 'withdrawal_fee', 'withdrawal_canceled', 'reversal', 'refund_reserved', 'refund', 'refund_canceled',
  'network_fee', 'adjustment',
] as const
export type StatementLineType = (typeof statementLineTypes)[number]

/** One posting's movement on one account in one currency, as the store sums it. */
export type PostingMovement = {
  postingId: number
  kind: string
  chargeId: string | null
  withdrawalId: string | null
  createdAt: Date
  currency: Currency
  /** The sum of the account's entries of the posting in this currency (every customer book). */
  total: number
  /** The part of it in `available`. */
  available: number
  /** What the service's `fees` book took in this posting, in this currency. */
  fee: number
  /** The price the charge converted at, in micro-reais, when it was credited as BTC or USDt. */
  quoteMicros: number | null
}

export type StatementLine = {
  postingId: number
  /** Lines of one posting, in the order they happened. */
  part: number
  type: StatementLineType
  currency: Currency
  amount: number
  available: number
  chargeId: string | null
  withdrawalId: string | null
  quoteMicros: number | null
  createdAt: Date
}

export type PricedLine = StatementLine & { balanceAfter: number; availableAfter: number }

const typeOfKind: Record<string, StatementLineType> = {
  credit: 'credit', release: 'hold_release', clawback: 'med', withdrawal_reserve: 'withdrawal_reserved', withdrawal_settle: 'withdrawal',
  withdrawal_release: 'withdrawal_canceled', withdrawal_return: 'reversal', network_fee: 'network_fee',
  // A merchant's refund (docs/rules.md#merchant-refund-amounts): set aside, paid, or given back if it failed, as a withdrawal's.
  merchant_refund_reserve: 'refund_reserved', merchant_refund_settle: 'refund', merchant_refund_release: 'refund_canceled',
}

/** The lines one posting makes on the account, in the order they happened. */
export function linesOf(movement: PostingMovement): StatementLine[] {
  const type = typeOfKind[movement.kind] ?? 'adjustment'
  const converted = movement.currency !== 'DEPIX' && (type === 'credit' || type === 'med') ? movement.quoteMicros : null
  const base = { postingId: movement.postingId, currency: movement.currency, chargeId: movement.chargeId, withdrawalId: movement.withdrawalId, createdAt: movement.createdAt, quoteMicros: converted }
  // The fee of a credit or a sent withdrawal is its own line when it was taken in the account's currency.
  const feeType: StatementLineType | null = type === 'credit' ? 'fee' : type === 'withdrawal' ? 'withdrawal_fee' : null
  if (feeType === null || movement.fee <= 0) return [{ ...base, part: 0, type, amount: movement.total, available: movement.available }]
  const feeFromAvailable = movement.available === movement.total
  return [
    { ...base, part: 0, type, amount: movement.total + movement.fee, available: feeFromAvailable ? movement.available + movement.fee : movement.available },
    { ...base, part: 1, type: feeType, amount: -movement.fee, available: feeFromAvailable ? -movement.fee : 0 },
  ]
}

export type Balances = Map<Currency, { balance: number; available: number }>

/**
 * Balances after each line, walking newest first from the balances after the newest line
 * (`through`): each line's balance after is known, then taken off for the line before it.
 * `through` is moved along, so the next batch goes on from it.
 */
export function priceNewestFirst(lines: readonly StatementLine[], through: Balances): PricedLine[] {
  return lines.map((line) => {
    const sums = through.get(line.currency) ?? { balance: 0, available: 0 }
    const priced = { ...line, balanceAfter: sums.balance, availableAfter: sums.available }
    through.set(line.currency, { balance: sums.balance - line.amount, available: sums.available - line.available })
    return priced
  })
}

/** Balances after each line, walking oldest first from the balances before the oldest line (`before`, moved along). */
export function priceOldestFirst(lines: readonly StatementLine[], before: Balances): PricedLine[] {
  return lines.map((line) => {
    const sums = before.get(line.currency) ?? { balance: 0, available: 0 }
    const after = { balance: sums.balance + line.amount, available: sums.available + line.available }
    before.set(line.currency, after)
    return { ...line, balanceAfter: after.balance, availableAfter: after.available }
  })
}
