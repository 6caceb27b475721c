// Every kind of job and the payload it carries, declared once. A payload is JSON in a table,
// queued by one version of the service and perhaps claimed by another, so it is checked both ways:
// when queued (a wrong payload fails the transaction that queues it, next to the bug) and when
// claimed (a handler never sees a payload its kind does not carry).
import { Ajv, type ValidateFunction } from 'ajv'
import { Type, type Static } from 'typebox'

const aboutACharge = Type.Object({ chargeId: Type.String() })

export const jobPayloads = {
  expire_charge: aboutACharge,
  reconcile_charge: aboutACharge,
  release_hold: aboutACharge,
  // Deliveries queued before destinations were recorded (migration 012) have none.
  deliver_webhook: Type.Object({ eventId: Type.String(), destination: Type.Optional(Type.Union([Type.String(), Type.Null()])) }),
  sweep_deposits: Type.Object({}),
  send_mail: Type.Object({ mailId: Type.Integer() }),
  send_payout: Type.Object({ payoutId: Type.String() }),
  follow_liquid_payouts: Type.Object({}),
  operator_digest: Type.Object({}),
  vacuum_database: Type.Object({}),
  unlock_treasury_coins: Type.Object({}),
  notify_sale: Type.Object({ chargeId: Type.String(), notice: Type.Union([Type.Literal('paid'), Type.Literal('held'), Type.Literal('released')]) }),
}

export type JobKind = keyof typeof jobPayloads

/** Each kind's payload type, worked out once: as Static of a generic kind, TypeBox's types cost the type check seconds. */
type JobPayloads = { [K in JobKind]: Static<(typeof jobPayloads)[K]> }

export type JobPayload<K extends JobKind> = JobPayloads[K]

/** A claimed job whose payload is its kind's. */
export type Job<K extends JobKind = JobKind> = { [P in K]: { id: number; kind: P; payload: JobPayload<P>; attempts: number } }[K]

/** A job as the jobs table hands it back, not yet checked. */
export type JobRow = { id: number; kind: string; payload: unknown; attempts: number }

// Checked with Ajv, which Fastify loads anyway, rather than TypeBox's own compiler, which
// brought some 300 more modules into every process that starts the service (docs/performance.md,
// "Memory and start-up"). Each kind's check is compiled when it is first used.
const ajv = new Ajv({ allErrors: false })
const checkers = new Map<string, ValidateFunction>()

/** Why `payload` cannot be a `kind` job's, or null when it can. */
export function payloadProblem(kind: string, payload: unknown): string | null {
  if (!Object.hasOwn(jobPayloads, kind)) return `there is no job kind ${kind}`
  let checker = checkers.get(kind)
  if (!checker) checkers.set(kind, (checker = ajv.compile(jobPayloads[kind as JobKind])))
  if (checker(payload)) return null
  const first = checker.errors?.[0]
  return `payload does not match ${kind}${first ? `: ${first.instancePath || 'the payload'} ${first.message}` : ''}`
}

/** The row as a job of its kind, or why it is none. */
export function readJob(row: JobRow): { job: Job } | { problem: string } {
  const problem = payloadProblem(row.kind, row.payload)
  return problem === null ? { job: row as Job } : { problem }
}
