// Claims due jobs (FOR UPDATE SKIP LOCKED, with a lease) and runs them concurrently in four
// lanes: webhook deliveries, bounded in all and per destination host; the charge work (expiry,
// release, reconciliation, the deposit sweep), which therefore never waits behind a merchant's
// slow receiver; the payouts, which wait on the treasury node and the provider's withdraw limit;
// and the Wallet's mail, which never waits behind the others, nor holds them up (its jobs due
// together run as one batch: one read and one settling statement for them all). Committed work
// wakes the runner at once (wake(), called on the database's job notifications); a poll catches
// what is scheduled for later. A job is deleted when its handler finishes (by the runner's next
// claim, which follows at once), rescheduled when it asks to be, retried with backoff when it
// throws, and parked when its payload is not its kind's. A running job's lease is renewed while
// it runs, so a worker that dies mid-job, or before its finished jobs are deleted, loses its
// jobs within one lease and another instance takes over: every handler can run again (a
// delivery, an expiry or a release already settled does nothing the second time; a payout
// resumes from its stored step).
import type { Clock } from '../clock.ts'
import { readJob, type Job, type JobKind, type JobPayload, type JobRow } from '../store/job-kinds.ts'
import type { Store } from '../store/store.ts'

/** A handler's answer: finished, or "run me again at". */
export type JobOutcome = { done: true } | { again: Date }

/** What a running job may tell the runner before it ends. */
export type JobControl = {
  /**
   * A delivery's request is over (answered, refused or timed out): its destination's slot frees
   * now, before the attempt is recorded, so the destination's next delivery need not wait for our
   * own bookkeeping. The receiver still never has more than the bound of requests in flight from
   * this instance.
   */
  requestDone(): void
}

export type JobHandler<K extends JobKind> = (payload: JobPayload<K>, job: Job<K>, control: JobControl) => Promise<JobOutcome>
/**
 * A kind whose due jobs run together, in one slot of their lane: the mail lane's, whose messages
 * are read and settled by a statement each for all of them. Answers each job's outcome, in order.
 */
export type BatchJobHandler<K extends JobKind> = { batch: (jobs: Array<Job<K>>) => Promise<JobOutcome[]> }

export type JobHandlers = { [K in JobKind]: JobHandler<K> | BatchJobHandler<K> }

const noControl: JobControl = { requestDone() {} }

export type Lane = 'deliveries' | 'charges' | 'mail' | 'payouts'
const allLanes: readonly Lane[] = ['charges', 'payouts', 'deliveries', 'mail']
/** Each kind's lane, as a record so a new kind without a lane does not compile (it would never run). */
const laneOf: Record<JobKind, Lane> = {
  deliver_webhook: 'deliveries',
  expire_charge: 'charges',
  release_hold: 'charges',
  reconcile_charge: 'charges',
  sweep_deposits: 'charges',
  // A mail server that hangs holds only these slots: charges and webhooks flow on.
  send_mail: 'mail',
  // The daily digest to operators only queues mail: a few reads and inserts.
  operator_digest: 'charges',
  // Payouts wait on the treasury node and the provider's withdraw limit, never on charges or webhooks.
  send_payout: 'payouts',
  // Asks the treasury node about every sent Liquid payout at once, then completes each in turn.
  follow_liquid_payouts: 'payouts',
  // Asks the treasury node for its locked coins, as the payouts do: waits on the node, never holds up charges.
  unlock_treasury_coins: 'payouts',
  // The embedded database's hourly upkeep: it holds the database, not a lane, for a fraction of a second.
  vacuum_database: 'charges',
  // Only reads the charge and queues a mail to its owner.
  notify_sale: 'charges',
}
const laneKinds = Object.fromEntries(allLanes.map((lane) => [lane, (Object.keys(laneOf) as JobKind[]).filter((kind) => laneOf[kind] === lane)])) as Record<Lane, JobKind[]>

export type RunnerLimits = {
  /** Jobs in flight per lane in this process. */
  deliveries: number
  charges: number
  mail: number
  payouts: number
  /** Requests in flight to one destination host from this process: a delivery's slot frees once its receiver has answered. */
  perDestination: number
}

/** Ten receivers that hang for the whole time-out take 20 of 32 delivery slots: the rest flow. */
export const defaultRunnerLimits: RunnerLimits = { deliveries: 32, charges: 8, mail: 2, payouts: 8, perDestination: 2 }

/** How long a claim lasts unless renewed: the runner renews it while the job runs, so a worker that dies loses its jobs this soon after. */
export const DEFAULT_LEASE_MS = 30_000
const BATCH = 20

export function backoffAfterFailure(attempts: number): number {
  return Math.min(30_000 * 2 ** attempts, 3_600_000)
}

/** Deliveries are bounded by the host they go to; jobs queued before destinations were recorded count alone. */
function destinationOf(job: Job<'deliver_webhook'>): string {
  return job.payload.destination ?? `event:${job.payload.eventId}`
}

export function createJobRunner(deps: {
  store: Store
  clock: Clock
  handlers: JobHandlers
  log: { error: (details: object, message: string) => void }
  limits?: RunnerLimits
  leaseMs?: number
}) {
  const limits = deps.limits ?? defaultRunnerLimits
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS
  /** Jobs this process holds (running, or finished and not yet deleted): their leases are renewed. */
  const held = new Set<number>()
  let heartbeat: NodeJS.Timeout | null = null
  const inFlight: Record<Lane, number> = { deliveries: 0, charges: 0, mail: 0, payouts: 0 }
  const perDestination = new Map<string, number>()
  const running = new Set<Promise<void>>()
  let timer: NodeJS.Timeout | null = null
  let started = false
  let stopping = false
  /** Each lane fills on its own: a confirmation's webhook is never claimed after the poll's claims of the other three. */
  const filling = new Map<Lane, Promise<void>>()
  /** Lanes to look at again once their fill under way ends. */
  const fillAgain = new Set<Lane>()

  /** Jobs whose handler finished, still leased, deleted by the next claim (or by stop()). */
  const finished: number[] = []

  /** Whether the kind's jobs run together (a batch handler). */
  const batches = (kind: JobKind) => 'batch' in deps.handlers[kind]

  /**
   * Runs jobs of one kind: several only for a batch handler. Generic in the kind: on the union of
   * jobs, TypeScript cannot pair a handler with its payload.
   */
  async function handle<K extends JobKind>(jobs: Array<Job<K>>, control: JobControl): Promise<JobOutcome[]> {
    const handler = deps.handlers[jobs[0]!.kind] as JobHandler<K> | BatchJobHandler<K>
    if ('batch' in handler) return handler.batch(jobs)
    return [await handler(jobs[0]!.payload, jobs[0]!, control)]
  }

  /** Renews the leases of the jobs running here, a third of a lease apart, while any runs. */
  function renewWhileHeld(id: number, holding: boolean): void {
    if (holding) held.add(id)
    else held.delete(id)
    if (held.size > 0 && heartbeat === null) {
      heartbeat = setInterval(() => {
        deps.store.jobs.renewLeases([...held], new Date(deps.clock.now().getTime() + leaseMs))
          .catch((error: unknown) => deps.log.error({ err: error }, 'could not renew job leases; another instance may take them over'))
      }, Math.max(500, Math.floor(leaseMs / 3)))
      heartbeat.unref()
    } else if (held.size === 0 && heartbeat !== null) {
      clearInterval(heartbeat)
      heartbeat = null
    }
  }

  /** Runs the jobs (of one kind; several only for a batch handler) and records each one's outcome. */
  async function run(jobs: Job[], complete: (id: number) => Promise<void> | void, control: JobControl = noControl): Promise<void> {
    for (const job of jobs) renewWhileHeld(job.id, true)
    try {
      let outcomes: JobOutcome[] | { failed: unknown }
      try {
        outcomes = await handle(jobs, control)
      } catch (error) {
        outcomes = { failed: error }
      }
      for (const [index, job] of jobs.entries()) {
        try {
          if (!Array.isArray(outcomes)) throw outcomes.failed
          const outcome = outcomes[index]!
          if ('done' in outcome) await complete(job.id)
          else await deps.store.jobs.reschedule(job.id, outcome.again)
        } catch (error) {
          deps.log.error({ err: error, job: { id: job.id, kind: job.kind } }, 'job failed; will retry')
          const retryAt = new Date(deps.clock.now().getTime() + backoffAfterFailure(job.attempts))
          await deps.store.jobs.retry(job.id, retryAt, (error as Error).message ?? String(error))
        }
      }
    } finally {
      for (const job of jobs) renewWhileHeld(job.id, false)
    }
  }

  /**
   * The claimed jobs a handler can run. Any other (its payload not its kind's, or its kind retired)
   * is logged and parked: retried, it would fail the same way forever.
   */
  async function runnable(rows: JobRow[]): Promise<Job[]> {
    const jobs: Job[] = []
    for (const row of rows) {
      const read = readJob(row)
      if ('job' in read) {
        jobs.push(read.job)
        continue
      }
      deps.log.error({ job: { id: row.id, kind: row.kind }, problem: read.problem }, 'job cannot be run; parked')
      // Not parked, it comes back when its lease runs out, to be logged and parked again.
      await deps.store.jobs.park(row.id, read.problem).catch((error: unknown) => deps.log.error({ err: error, job: { id: row.id } }, 'could not park job'))
    }
    return jobs
  }

  /**
   * Starts claimed jobs (one, or a batch handler's several) in one slot of their lane; the slot is
   * given back, and the runner refilled, when they end. A delivery's destination slot may be given
   * back before, when its request is done.
   */
  function launch(lane: Lane, jobs: Job[], destination: string | null): void {
    inFlight[lane]++
    let holdsDestination = destination !== null
    if (destination !== null) perDestination.set(destination, (perDestination.get(destination) ?? 0) + 1)
    /** Gives the destination's slot back, once; answers whether the destination was at its bound. */
    const freeDestination = (): boolean => {
      if (!holdsDestination) return false
      holdsDestination = false
      const held = perDestination.get(destination!) ?? 1
      if (held === 1) perDestination.delete(destination!)
      else perDestination.set(destination!, held - 1)
      return held >= limits.perDestination
    }
    const control: JobControl = {
      requestDone() {
        // Only a destination that was at its bound can have a delivery waiting on this slot, and the
        // lane needs room for it; otherwise the job's end, which always refills, is soon enough.
        if (freeDestination() && inFlight[lane] < limits[lane]) wake([lane])
      },
    }
    const work = run(jobs, (id) => void finished.push(id), control)
      .catch((error: unknown) => deps.log.error({ err: error, jobs: jobs.map((job) => job.id) }, 'job bookkeeping failed'))
      .finally(() => {
        inFlight[lane]--
        freeDestination()
        running.delete(work)
        // A slot of this lane came free: only this lane has more room.
        wake([lane])
      })
    running.add(work)
  }

  /**
   * Claims as many due jobs as the lane has room for, and starts them. A lane whose kinds all run
   * in batches claims up to BATCH whatever its room, and shares them out over its free slots.
   */
  async function fill(lane: Lane): Promise<void> {
    if (stopping) return
    const room = limits[lane] - inFlight[lane]
    if (room > 0) {
      const now = deps.clock.now()
      const busy = [...perDestination].filter(([, n]) => n >= limits.perDestination).map(([destination]) => destination)
      const spread = lane === 'deliveries' ? { perDestination: limits.perDestination, busy } : undefined
      const batching = laneKinds[lane].every(batches)
      const jobs = await runnable(await deletingFinished((ids) =>
        deps.store.jobs.claimDue(now, batching ? BATCH : Math.min(room, BATCH), leaseMs, { kinds: laneKinds[lane], ...(spread ? { spread } : {}), finished: ids }),
      ))
      if (batching) {
        // Each kind's jobs in as many batches as the lane has free slots (the mail lane has one kind).
        for (const kind of new Set(jobs.map((job) => job.kind))) {
          const ofKind = jobs.filter((job) => job.kind === kind)
          const size = Math.ceil(ofKind.length / room)
          for (let start = 0; start < ofKind.length; start += size) launch(lane, ofKind.slice(start, start + size), null)
        }
      } else {
        for (const job of jobs) {
          const destination = job.kind === 'deliver_webhook' ? destinationOf(job) : null
          if (destination !== null && (perDestination.get(destination) ?? 0) >= limits.perDestination) {
            // The claim takes up to the bound from each destination not at it, so one with a slot
            // left can come back with more than fit. The extra is put back as it was, first in its
            // destination's line: the claims leave a destination at its bound alone, and the one
            // after a slot of it frees takes it. (Put back for later, it would leave a drain's last
            // deliveries waiting after the others: docs/performance.md, "The webhook drain".)
            await deps.store.jobs.putBack(job.id)
            continue
          }
          launch(lane, [job], destination)
        }
      }
    }
    // Jobs that finished during this fill go with the claim of the fill that follows, if one does.
    if (fillAgain.size === 0 && filling.size === 1) await deletingFinished((ids) => deps.store.jobs.complete(ids))
  }

  /** Hands the finished jobs to a statement that deletes them; if it fails they wait for the next. */
  async function deletingFinished<T>(statement: (ids: number[]) => Promise<T>): Promise<T> {
    const ids = finished.splice(0)
    try {
      return await statement(ids)
    } catch (error) {
      finished.push(...ids)
      throw error
    }
  }

  /** Fills each lane now, one fill at a time per lane; a wake during a lane's fill fills it again right after. */
  function wake(lanes: readonly Lane[] = allLanes): void {
    if (!started || stopping) return
    for (const lane of lanes) {
      if (filling.has(lane)) {
        fillAgain.add(lane)
        continue
      }
      filling.set(lane, fill(lane)
        .catch((error: unknown) => deps.log.error({ err: error, lane }, 'job runner pass failed'))
        .finally(() => {
          filling.delete(lane)
          if (fillAgain.delete(lane)) wake([lane])
        }))
    }
  }

  /** Runs every job due now, one after another, until none is due; returns how many ran. */
  async function drain(): Promise<number> {
    let ran = 0
    for (;;) {
      if (stopping) return ran
      const claimed = await deps.store.jobs.claimDue(deps.clock.now(), BATCH, leaseMs)
      if (claimed.length === 0) return ran
      for (const job of await runnable(claimed)) {
        await run([job], (id) => deps.store.jobs.complete([id]))
        ran++
      }
    }
  }
  let draining: Promise<number> | null = null

  return {
    /**
     * Runs what is due to the end, in order. For the sandbox's controls (through sandbox/) and
     * tests, which wait for the work they caused; never called by a production request.
     */
    async runDue(): Promise<number> {
      while (draining) await draining.catch(() => 0)
      draining = drain()
      try {
        return await draining
      } finally {
        draining = null
      }
    },

    /**
     * Work was committed somewhere (this instance or another): look for it now, in the lane of the
     * kind the notification names, so a confirmation's webhook is claimed without first asking
     * the three other lanes; in every lane when the kind is unknown or was not said.
     */
    wake: (kind: string | null = null) => wake(kind !== null && Object.hasOwn(laneOf, kind) ? [laneOf[kind as JobKind]] : allLanes),

    start(pollMs = 1_000): void {
      started = true
      stopping = false
      const poll = () => {
        wake(allLanes)
        if (!stopping) timer = setTimeout(poll, pollMs)
      }
      poll()
    },

    /** Stops claiming; waits for the jobs being worked on. */
    async stop(): Promise<void> {
      stopping = true
      if (timer) clearTimeout(timer)
      await Promise.allSettled(filling.values())
      await Promise.allSettled([...running, ...(draining ? [draining] : [])])
      await deletingFinished((ids) => deps.store.jobs.complete(ids)).catch((error: unknown) => deps.log.error({ err: error }, 'could not delete finished jobs; they run again when their lease ends'))
    },
  }
}

export type JobRunner = ReturnType<typeof createJobRunner>
