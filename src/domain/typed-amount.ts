// An amount support types for a held payment whose arrival the provider never stated (docs/design.md,
// "Typed amounts"). Within the tolerance around the charge's value that the provider's own reports
// get, it is taken as typed. Beyond it, one operator's word is not enough: it is kept as a
// proposal, and only an admin other than the one who typed it, typing the same amount for the same
// decision, makes it count. No I/O: the use case brings the proposal and the operator.
import { paidAmountFits } from './charge.ts'

/** The decisions that credit or owe what arrived (close moves no money of ours). */
export type AmountDecision = 'release' | 'refund'

/** An amount typed beyond the tolerance, waiting for a second operator. */
export type PaidAmountProposal = { decision: AmountDecision; paidCents: number; proposedBy: string }

/** Who is typing now: the name the audit log knows them by, and whether they are an admin. */
export type TypingOperator = { name: string; admin: boolean }

export type TypedAmountStep =
  /** Within the tolerance: the decision goes on with the amount as typed. */
  | { kind: 'accept' }
  /** A second admin typed what the first proposed: the decision goes on, the proposal is used up. */
  | { kind: 'confirm'; proposal: PaidAmountProposal }
  /** Beyond the tolerance and not (yet) confirmed: kept as this operator's proposal; nothing moves. */
  | { kind: 'propose' }
  /** The proposal's own author, or someone who may not confirm, typed it again: nothing moves. */
  | { kind: 'refuse'; code: 'second_operator_required' | 'operator_forbidden' }

export function typedAmountStep(
  valueCents: number,
  typed: { decision: AmountDecision; paidCents: number },
  pending: PaidAmountProposal | null,
  operator: TypingOperator,
): TypedAmountStep {
  if (paidAmountFits(valueCents, typed.paidCents)) return { kind: 'accept' }
  const same = pending !== null && pending.decision === typed.decision && pending.paidCents === typed.paidCents
  if (!same) return { kind: 'propose' }
  if (pending.proposedBy.toLowerCase() === operator.name.toLowerCase()) return { kind: 'refuse', code: 'second_operator_required' }
  if (!operator.admin) return { kind: 'refuse', code: 'operator_forbidden' }
  return { kind: 'confirm', proposal: pending }
}
