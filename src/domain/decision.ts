// The one shape every state machine of the service answers in (a charge's, a withdrawal's, a payout's): the
// next status with why it waits or ended and the effects to carry out; or nothing to do (a
// replayed job, a stale report); or a person's request refused with a catalogue code. One mover
// per record applies it (app/move-charge.ts, app/move-money-out.ts), all in one transaction.
export type Decision<Status, Reason, Failure, Effect, Refusal> =
  | { outcome: 'moved'; status: Status; reviewReason: Reason | null; failureCode: Failure | null; effects: Effect[] }
  | { outcome: 'unchanged' }
  | { outcome: 'refused'; code: Refusal }
