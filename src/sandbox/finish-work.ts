// The one place a request runs jobs, and only in sandbox mode; no production route does.
import type { JobRunner } from '../jobs/runner.ts'

/**
 * The sandbox's controls (pay, MED, clock, "Simular pagamento") answer once the work they caused
 * is done, so a demo or a test sees the result at once. The one place a request runs jobs; no
 * production route does.
 */
export function finishWorkTheSandboxCaused(jobs: JobRunner): Promise<number> {
  return jobs.runDue()
}
