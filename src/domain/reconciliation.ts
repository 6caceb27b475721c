// When the service asks the provider about its charges when webhooks go quiet
// (docs/rules.md#reconciliation): every charge that is not final until it is, credited ones at a
// low rate for 90 days, unpaid ones only until their QR and the provider's grace are over; and
// which windows of the provider's deposit list the sweep reads, per status. Both fit the provider's
// published limits (/deposit-status 60/min, /deposits 12/min) at 10,000 charges a day:
// test/domain/reconciliation.test.ts.
import type { ChargeStatus } from './charge.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** Unpaid: once our QR expired (10 min), once the provider's (about 20 min) and a grace are over. */
const UNPAID_ASKS = [12 * MINUTE, 40 * MINUTE]
/** Paid, not final (delayed, under review, being refunded): soon, after the usual 24 h delay, then daily. */
const OPEN_ASKS = [2 * HOUR, 8 * HOUR, 26 * HOUR]
/** Credited or held: a lost MED or "refunded" is found within 90 days of the payment. */
const SETTLED_ASKS = [7 * DAY, 30 * DAY, 90 * DAY]

export type ReconcileStage = 'unpaid' | 'open' | 'settled' | 'final'

export function reconcileStage(status: ChargeStatus): ReconcileStage {
  switch (status) {
    case 'waiting_payment':
    case 'expired':
    case 'canceled':
    case 'error':
      return 'unpaid'
    case 'pending':
    case 'under_review':
    case 'will_refund':
      return 'open'
    case 'depix_sent':
    case 'after7d':
    case 'security_hold':
      return 'settled'
    case 'refunded':
      return 'final'
  }
}

/**
 * When to ask about a charge next, strictly after `now`; null: never again (the sweep still sees
 * a late payment). `settledAt` is when it was credited or held (its creation when unknown).
 */
export function nextReconcileAt(charge: { status: ChargeStatus; createdAt: Date; settledAt: Date | null }, now: Date): Date | null {
  const stage = reconcileStage(charge.status)
  if (stage === 'final') return null
  const base = (stage === 'settled' ? (charge.settledAt ?? charge.createdAt) : charge.createdAt).getTime()
  const asks = stage === 'unpaid' ? UNPAID_ASKS : stage === 'open' ? OPEN_ASKS : SETTLED_ASKS
  for (const after of asks) if (base + after > now.getTime()) return new Date(base + after)
  if (stage !== 'open') return null
  // Not final after the listed asks: daily until it is.
  const last = base + OPEN_ASKS.at(-1)!
  return new Date(last + Math.ceil((now.getTime() + 1 - last) / DAY) * DAY)
}

/** The provider statuses the sweep lists, and how far back each looks (by deposit creation). */
export type SweepPlan = { status: 'depix_sent' | 'refunded' | 'will_refund'; lookbackMs: number; callsPerRun: number }

/**
 * Deliveries are looked for over the provider's delay plus two hours (a lost depix_sent); refunds
 * and announced refunds over the 90 days a MED can take. Six calls a run, once a minute: half the
 * provider's 12/min, the rest left to creations that lost their reply.
 */
export function sweepPlans(providerDelayHours: number): SweepPlan[] {
  return [
    { status: 'depix_sent', lookbackMs: (providerDelayHours + 2) * HOUR, callsPerRun: 4 },
    { status: 'refunded', lookbackMs: 90 * DAY, callsPerRun: 1 },
    { status: 'will_refund', lookbackMs: 90 * DAY, callsPerRun: 1 },
  ]
}

/** The provider answers at most this many deposits a call: a full answer means "read a narrower window". */
export const DEPOSITS_PAGE = 200

/** Where a status's sweep stands: it reads backwards from `cursor`, `spanMs` at a time. */
export type SweepCursor = { cursor: Date | null; spanMs: number }

/** The window the next call reads: `spanMs` back from the cursor (now, when a pass starts), never beyond the lookback. */
export function sweepWindow(state: SweepCursor, now: Date, lookbackMs: number): { start: Date; end: Date } {
  const end = state.cursor ?? now
  const oldest = now.getTime() - lookbackMs
  return { start: new Date(Math.max(oldest, end.getTime() - state.spanMs)), end }
}

/**
 * After a call: a full page means the window was too wide, so it is read again at half the width;
 * otherwise the cursor moves past it, and the next window is sized to fill three quarters of a
 * page at the density just seen (at most twice as wide). A pass that reached the oldest deposit of
 * interest starts again from now.
 */
export function advanceSweep(state: SweepCursor, window: { start: Date; end: Date }, found: number, now: Date, lookbackMs: number): SweepCursor {
  const width = Math.max(window.end.getTime() - window.start.getTime(), MINUTE)
  if (found >= DEPOSITS_PAGE && width > MINUTE) return { cursor: window.end, spanMs: Math.max(MINUTE, Math.floor(width / 2)) }
  const done = window.start.getTime() <= now.getTime() - lookbackMs
  const fitted = found === 0 ? width * 2 : Math.min(width * 2, Math.floor((width * DEPOSITS_PAGE * 3) / (4 * found)))
  return { cursor: done ? null : window.start, spanMs: Math.min(lookbackMs, Math.max(MINUTE, fitted)) }
}
