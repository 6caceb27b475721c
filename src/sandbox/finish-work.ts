// The one place a request runs jobs, and only in sandbox mode; no production route does.
import type { JobRunner } from '../jobs/runner.ts'
import type { Store } from '../store/store.ts'

/**
 * The sandbox's controls (pay, MED, clock, "Simular pagamento") answer once the work they caused
 * is done, so a demo or a test sees the result at once. The one place a request runs jobs; no
 * production route does.
 */
export function finishWorkTheSandboxCaused(jobs: JobRunner): Promise<number> {
  return jobs.runDue()
}

/** How long reading the outbox waits, at most, for mail a background lane is sending. */
export const OUTBOX_WAIT_MS = 5_000
const OUTBOX_POLL_MS = 10

/**
 * Mail to `address` that is queued or being sent, delivered before the outbox is read: what is due
 * runs here, and a message a background lane (of this instance or another) already claimed, which
 * the run here skips, is waited for, up to `waitMs`. A message whose send already failed waits for
 * its retry, not for this read.
 */
export async function deliverMailTo(deps: { jobs: JobRunner; store: Store }, address: string, waitMs = OUTBOX_WAIT_MS): Promise<void> {
  const deadline = performance.now() + waitMs
  for (;;) {
    await finishWorkTheSandboxCaused(deps.jobs)
    if ((await deps.store.mail.firstSendsPendingTo(address)) === 0 || performance.now() >= deadline) return
    await new Promise((resolve) => setTimeout(resolve, OUTBOX_POLL_MS))
  }
}
