// The one way a charge moves: in one transaction, lock the charge and its receiving account,
// keep what the caller learnt (a provider report), lock the payer's identities (so checks and
// bindings of one identity are serialized across charges and accounts,
// docs/rules.md#payer-identity), gather the event's facts under those locks, ask the state
// machine, and let the executor write what it decided.
import type { Clock } from '../clock.ts'
import { decideCharge, type ChargeEvent, type RefusalCode } from '../domain/charge.ts'
import { payerIdentities } from '../domain/payer-binding.ts'
import type { Account, Charge } from '../store/schema.ts'
import type { ChargeTimelineEntry } from '../store/charges.ts'
import type { Store } from '../store/store.ts'
import { applyChargeDecision, chargeView, type DecisionContext } from './apply-charge-decision.ts'

export type ChargeTarget = { id: string } | { depositId: string }

/** What became of an event: every use case that moves a charge answers with this. */
export type MoveResult =
  | { kind: 'not_found' }
  /** Nothing to do: a duplicate, a stale report, a time not yet come. */
  | { kind: 'unchanged'; charge: Charge }
  | { kind: 'moved'; charge: Charge }
  /** Not allowed now (a review of a charge that is not held, say); the caller says why. */
  | { kind: 'refused'; charge: Charge; code: RefusalCode }

/** What a caller learnt about the charge before anything is decided (a provider's report). */
export type Learnt = {
  /** The columns it changes on the charge; none when the charge knew it all already. */
  values: Partial<Pick<Charge, 'payer_name' | 'payer_tax_number' | 'payer_euid' | 'bank_tx_id' | 'blockchain_tx_id' | 'paid_cents' | 'paid_source'>>
  /** Its entry in the charge's timeline (the console): who told us, and what they said. */
  report?: { source: string; body: unknown }
}

export type ChargeMove = {
  /** What the caller learnt, from the charge as locked; kept whatever the state machine decides. */
  learn?: (charge: Charge) => Learnt
  /** The event with the facts it needs, read under the locks (the receiving account's among them); null: nothing to decide. */
  event: (store: Store, charge: Charge, now: Date, account: Account) => Promise<ChargeEvent | null>
  context?: Omit<DecisionContext, 'now'>
  /** Written in the same transaction once the move is applied (an operator's audit entry). */
  after?: (store: Store, before: Charge, after: Charge, now: Date) => Promise<void>
}

export async function moveCharge(deps: { store: Store; clock: Clock }, target: ChargeTarget, move: ChargeMove): Promise<MoveResult> {
  return deps.store.transaction(async (store) => {
    const locked = 'id' in target ? await store.charges.lockById(target.id) : await store.charges.lockByDepositId(target.depositId)
    if (!locked) return { kind: 'not_found' }
    const { account } = locked
    const now = deps.clock.now()
    // What was learnt, and the timeline, are written by the statement that writes the move, not
    // apart: each round trip of a confirmation's transaction is felt in the merchant's webhook.
    const learnt = move.learn?.(locked.charge)
    const kept = learnt && Object.keys(learnt.values).length > 0 ? { ...learnt.values, updated_at: now } : null
    const charge: Charge = { ...locked.charge, ...kept }
    const timeline: ChargeTimelineEntry[] = learnt?.report ? [{ kind: 'report', source: learnt.report.source, from: null, to: null, body: learnt.report.body, at: now }] : []
    await store.identities.lock(payerIdentities({ euid: charge.payer_euid, taxNumber: charge.payer_tax_number }))
    const event = await move.event(store, charge, now, account)
    // Only a charge support refunded has a refund obligation, owed (will_refund) or settled (refunded).
    const refund = event !== null && (charge.status === 'will_refund' || charge.status === 'refunded') ? await store.refunds.findByCharge(charge.id) : undefined
    const decision = event === null ? { outcome: 'unchanged' as const } : decideCharge(chargeView(charge, refund), event)
    if (decision.outcome !== 'moved') {
      if (kept) await store.charges.update(charge.id, kept, timeline)
      else await store.charges.recordTimeline(charge.id, timeline)
      return decision.outcome === 'refused' ? { kind: 'refused', charge, code: decision.code } : { kind: 'unchanged', charge }
    }
    // The charge's timeline (the console): each status it took, what moved it, and who.
    if (decision.status !== charge.status) {
      timeline.push({ kind: 'status', source: event!.kind, from: charge.status, to: decision.status, body: move.context?.actor ? { actor: move.context.actor } : null, at: now })
    }
    const moved = await applyChargeDecision(store, { charge, account }, decision, { ...move.context, now }, { values: kept ?? {}, timeline })
    await move.after?.(store, charge, moved, now)
    return { kind: 'moved', charge: moved }
  })
}
