// The one way a charge moves: in one transaction, lock the charge and its receiving account, keep
// what the caller learnt (a provider report), lock the payer's identities (so checks and bindings
// of one identity are serialized across charges and accounts, decisions 14), gather the event's
// facts under those locks, ask the state machine, and let the executor write what it decided.
import type { Clock } from '../clock.ts'
import { decideCharge, type ChargeEvent, type RefusalCode } from '../domain/charge.ts'
import { payerIdentities } from '../domain/payer-binding.ts'
import type { Account, Charge } from '../store/schema.ts'
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

export type ChargeMove = {
  /** Keeps what the caller learnt about the charge before anything is decided; answers the charge as written. */
  record?: (store: Store, charge: Charge, now: Date) => Promise<Charge>
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
    const charge = move.record ? await move.record(store, locked.charge, now) : locked.charge
    await store.identities.lock(payerIdentities({ euid: charge.payer_euid, taxNumber: charge.payer_tax_number }))
    const event = await move.event(store, charge, now, account)
    if (event === null) return { kind: 'unchanged', charge }
    // Only a charge support refunded has a refund obligation, owed (will_refund) or settled (refunded).
    const refund = charge.status === 'will_refund' || charge.status === 'refunded' ? await store.refunds.findByCharge(charge.id) : undefined
    const decision = decideCharge(chargeView(charge, refund), event)
    if (decision.kind === 'ignore') return { kind: 'unchanged', charge }
    if (decision.kind === 'refuse') return { kind: 'refused', charge, code: decision.code }
    const moved = await applyChargeDecision(store, { charge, account }, decision, { ...move.context, now })
    // The charge's timeline (the console): each status it took, what moved it, and who.
    if (moved.status !== charge.status) {
      await store.console.recordChargeEvent({ chargeId: charge.id, kind: 'status', source: event.kind, from: charge.status, to: moved.status, body: move.context?.actor ? { actor: move.context.actor } : null, at: now })
    }
    await move.after?.(store, charge, moved, now)
    return { kind: 'moved', charge: moved }
  })
}
