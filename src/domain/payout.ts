// A payout (docs/treasury.md, "Payouts"): every movement of money out of the treasury, whatever
// asked for it (an owner's withdrawal, a refund owed to a payer), is one record with this one
// state machine. Its owner follows its outcome (app/payout-owners.ts). No I/O: the worker and
// support's use cases bring the facts, and one mover (app/move-payout.ts) carries out the effects.
import type { Decision } from './decision.ts'

/** Why a payout, or a withdrawal before its payout (its limits), waits for support. */
export const reviewReasons = [
  'over_threshold', 'daily_limit', 'monthly_limit', 'treasury_insufficient', 'payout_reply_lost', 'payout_mismatch', 'broadcast_rejected', 'payout_failed', 'account_not_allowed', 'treasury_refused',
] as const
export type ReviewReason = (typeof reviewReasons)[number]

export const payoutStatuses = ['queued', 'sending', 'sent', 'completed', 'in_review', 'failed', 'returned'] as const
export type PayoutStatus = (typeof payoutStatuses)[number]

export const payoutRails = ['pix', 'liquid'] as const
export type PayoutRail = (typeof payoutRails)[number]

/** Why a payout ended with nothing sent (or, `payout_returned`, with what was sent back in the treasury). */
export const payoutFailures = [
  'provider_refused', 'payout_expired', 'rejected_by_support', 'abandoned_by_support', 'replaced', 'owner_withdrew', 'destination_canceled', 'payout_returned',
] as const
export type PayoutFailure = (typeof payoutFailures)[number]

export type PayoutRefusal = 'payout_not_in_review' | 'payout_signed' | 'payout_mismatch_unpayable' | 'owner_no_longer_wants' | 'account_not_allowed'

/**
 * What the worker reads again, in the transaction that starts every send (the first, and each
 * after support's retry): the owner still wants it, the destination still takes it, the account
 * may still withdraw, the treasury covers it.
 */
export type StartFacts = { ownerWants: boolean; destinationActive: boolean; accountAllowed: boolean; covered: boolean }

export type PayoutEvent =
  | { kind: 'start'; facts: StartFacts }
  /** A run of a send before its transaction is signed: the owner's facts read again. */
  | { kind: 'recheck'; facts: Omit<StartFacts, 'covered'> }
  /** Something support must look at before (more) money may leave. */
  | { kind: 'hold'; reason: ReviewReason }
  /** Nothing left and nothing will. */
  | { kind: 'fail'; code: Extract<PayoutFailure, 'provider_refused' | 'payout_expired'> }
  /** The transaction is broadcast: the money left. */
  | { kind: 'sent' }
  | { kind: 'completed' }
  /**
   * Support sends it again, knowing what the owner's confirm knows: `ownerWants` and
   * `accountAllowed` read under the owner's lock (and read again at the start).
   */
  | { kind: 'retry'; ownerWants: boolean; accountAllowed: boolean }
  /**
   * Support ends it while nothing left (a signed transaction may still pay, unless the node says
   * its coins are spent elsewhere: `transactionDead`); `abandoned` keeps the owner's claim (a refund
   * stays owed), otherwise the owner is given back its amount.
   */
  | { kind: 'reject'; abandoned: boolean; transactionDead?: boolean }
  /** Support orders a new provider payout (a new nonce) for one whose reply asked another amount. */
  | { kind: 'new_payout'; ownerWants: boolean }
  /** Support saw what was sent come back to the treasury. */
  | { kind: 'returned'; ownerTakesBack: boolean }
  /** The owner stopped it (a withdrawal canceled, a refund settled otherwise) before anything left. */
  | { kind: 'owner_withdrew' }

export type PayoutEffect =
  /** The worker runs it (now). */
  | { kind: 'queue_send' }
  /** A new payout of the same owner, to be sent (support's new_payout). */
  | { kind: 'open_replacement' }
  /** The L-BTC network fee of its transaction is posted (it left). */
  | { kind: 'post_network_fee' }

export type PayoutDecision = Decision<PayoutStatus, ReviewReason, PayoutFailure, PayoutEffect, PayoutRefusal>

const moved = (status: PayoutStatus, effects: PayoutEffect[] = [], more: { reviewReason?: ReviewReason; failureCode?: PayoutFailure } = {}): PayoutDecision => ({
  outcome: 'moved', status, reviewReason: more.reviewReason ?? null, failureCode: more.failureCode ?? null, effects,
})
const unchanged: PayoutDecision = { outcome: 'unchanged' }
const refused = (code: PayoutRefusal): PayoutDecision => ({ outcome: 'refused', code })

/** Until money may have left, a payout can end with nothing sent. */
export function isLive(status: PayoutStatus): boolean {
  return status !== 'failed' && status !== 'returned'
}

/**
 * Every event a payout can meet. Money leaves at most once: once a transaction is signed and stored
 * it may pay, so the payout can no longer fail or be rejected, only be sent, followed, or (support
 * seeing the money back) returned. A reply from the provider that asks another amount is never
 * paid: it can only be rejected or replaced by a new payout.
 */
export function decidePayout(payout: { status: PayoutStatus; signed: boolean; reviewReason: ReviewReason | null }, event: PayoutEvent): PayoutDecision {
  const { status, signed } = payout
  const mismatched = payout.reviewReason === 'payout_mismatch'
  switch (event.kind) {
    case 'start': {
      if (status !== 'queued') return unchanged
      const { facts } = event
      // A signed transaction may already be in the network (a broadcast the node once rejected can
      // still be mined): it goes on to its broadcast whatever the owner says now (no cancel reaches
      // a signed payout; support ends one only once the node says it can never pay).
      if (signed) return moved('sending')
      if (!facts.ownerWants) return moved('failed', [], { failureCode: 'owner_withdrew' })
      if (!facts.destinationActive) return moved('failed', [], { failureCode: 'destination_canceled' })
      if (!facts.accountAllowed) return moved('in_review', [], { reviewReason: 'account_not_allowed' })
      if (!facts.covered) return moved('in_review', [], { reviewReason: 'treasury_insufficient' })
      return moved('sending')
    }
    case 'recheck': {
      // Every run of a send, until its transaction is signed, reads the owner's facts again: a
      // run the provider turned away ("not now") comes back later, and things change meanwhile.
      if (status !== 'sending' || signed) return unchanged
      const { facts } = event
      if (!facts.ownerWants) return moved('failed', [], { failureCode: 'owner_withdrew' })
      if (!facts.destinationActive) return moved('failed', [], { failureCode: 'destination_canceled' })
      if (!facts.accountAllowed) return moved('in_review', [], { reviewReason: 'account_not_allowed' })
      return unchanged
    }
    case 'hold':
      return status === 'sending' || status === 'queued' ? moved('in_review', [], { reviewReason: event.reason }) : unchanged
    case 'fail':
      return status === 'sending' && !signed ? moved('failed', [], { failureCode: event.code }) : unchanged
    case 'sent':
      return status === 'sending' ? moved('sent', [{ kind: 'post_network_fee' }]) : unchanged
    case 'completed':
      return status === 'sent' ? moved('completed') : unchanged
    case 'retry':
      if (status !== 'in_review') return refused('payout_not_in_review')
      if (mismatched) return refused('payout_mismatch_unpayable')
      if (!event.ownerWants) return refused('owner_no_longer_wants')
      if (!event.accountAllowed) return refused('account_not_allowed')
      return moved('queued', [{ kind: 'queue_send' }])
    case 'reject':
      if (status !== 'in_review') return refused('payout_not_in_review')
      if (signed && event.transactionDead !== true) return refused('payout_signed')
      return moved('failed', [], { failureCode: event.abandoned ? 'abandoned_by_support' : 'rejected_by_support' })
    case 'new_payout':
      if (status !== 'in_review' || !mismatched) return refused('payout_not_in_review')
      if (signed) return refused('payout_signed')
      if (!event.ownerWants) return refused('owner_no_longer_wants')
      return moved('failed', [{ kind: 'open_replacement' }], { failureCode: 'replaced' })
    case 'returned':
      if ((status !== 'sent' && status !== 'completed') || !event.ownerTakesBack) return refused('payout_not_in_review')
      return moved('returned', [], { failureCode: 'payout_returned' })
    case 'owner_withdrew':
      return (status === 'queued' || status === 'in_review') && !signed ? moved('failed', [], { failureCode: 'owner_withdrew' }) : unchanged
  }
}
