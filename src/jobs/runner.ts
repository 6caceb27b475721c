// Claims due jobs (FOR UPDATE SKIP LOCKED, with a lease) and dispatches them by kind. A job is
// deleted when its handler finishes, rescheduled when it asks to be, and retried with backoff
// when it throws; a worker that dies mid-job loses its lease and another instance takes over.
import type { Clock } from '../clock.ts'
import type { Job, JobKind } from '../store/jobs.ts'
import type { Store } from '../store/store.ts'

/** A handler's answer: finished, or "run me again at". */
export type JobOutcome = { done: true } | { again: Date }

export type JobHandlers = Record<JobKind, (payload: Record<string, unknown>, job: Job) => Promise<JobOutcome>>

const LEASE_MS = 60_000
const BATCH = 20

export function backoffAfterFailure(attempts: number): number {
  return Math.min(30_000 * 2 ** attempts, 3_600_000)
}

export function createJobRunner(deps: {
  store: Store
  clock: Clock
  handlers: JobHandlers
  log: { error: (details: object, message: string) => void }
}) {
  let timer: NodeJS.Timeout | null = null
  let running: Promise<number> | null = null
  let stopping = false

  async function runOne(job: Job): Promise<void> {
    try {
      const outcome = await deps.handlers[job.kind](job.payload, job)
      if ('done' in outcome) await deps.store.jobs.complete(job.id)
      else await deps.store.jobs.retry(job.id, outcome.again, '')
    } catch (error) {
      deps.log.error({ err: error, job: { id: job.id, kind: job.kind } }, 'job failed; will retry')
      const retryAt = new Date(deps.clock.now().getTime() + backoffAfterFailure(job.attempts))
      await deps.store.jobs.retry(job.id, retryAt, (error as Error).message ?? String(error))
    }
  }

  /** Runs every job due now, batch after batch, until none is due; returns how many ran. */
  async function drain(): Promise<number> {
    let ran = 0
    for (;;) {
      if (stopping) return ran
      const jobs = await deps.store.jobs.claimDue(deps.clock.now(), BATCH, LEASE_MS)
      if (jobs.length === 0) return ran
      for (const job of jobs) {
        await runOne(job)
        ran++
      }
    }
  }

  return {
    /** One pass, serialized with the background loop so a job never runs twice in one process. */
    async runDue(): Promise<number> {
      while (running) await running.catch(() => 0)
      running = drain()
      try {
        return await running
      } finally {
        running = null
      }
    },

    start(intervalMs = 1_000): void {
      stopping = false
      const tick = async () => {
        try {
          await this.runDue()
        } catch (error) {
          deps.log.error({ err: error }, 'job runner pass failed')
        }
        if (!stopping) timer = setTimeout(tick, intervalMs)
      }
      timer = setTimeout(tick, intervalMs)
    },

    /** Stops claiming; waits for the job being worked on. */
    async stop(): Promise<void> {
      stopping = true
      if (timer) clearTimeout(timer)
      if (running) await running.catch(() => 0)
    },
  }
}

export type JobRunner = ReturnType<typeof createJobRunner>
