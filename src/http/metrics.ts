// Prometheus metrics. Request counts and latencies are measured in this process; business figures
// (charges, webhook outcomes, job queue) are read at scrape time through app/service-gauges.ts.
import { Gauge, Histogram, Registry } from 'prom-client'
import type { Clock } from '../clock.ts'
import type { Store } from '../store/store.ts'
import { checkTreasury } from '../app/check-treasury.ts'
import { queueCounts } from '../app/support-queues.ts'
import { chargesByCurrency, clawbacksToReview, jobsDueByKind, jobsParkedByKind, oldestDueJobWait, payoutsFailedAfterSending, refundsOwedTotals, webhookAttemptsByOutcome, withdrawalsByStatus } from '../app/service-gauges.ts'
import type { Treasury } from '../treasury/treasury.ts'

export function createMetrics(deps: { store: Store; clock: Clock; treasury: Treasury; log?: { error: (details: object, message: string) => void } }) {
  const registry = new Registry()
  const requestDuration = new Histogram({
    name: 'pix_http_request_duration_seconds',
    help: 'HTTP requests by route template, method and status, with their latency.',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })

  const fromDatabase = <T extends string>(name: string, help: string, labelNames: T[], read: (gauge: Gauge<T>) => Promise<void>) =>
    new Gauge<T>({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset()
        await read(this)
      },
    })

  for (const which of ['created', 'confirmed'] as const) {
    fromDatabase(`pix_charges_${which}`, `Charges ${which === 'created' ? 'created' : 'confirmed (credited)'}, by credited currency.`, ['currency'], async (gauge) => {
      for (const row of await chargesByCurrency(deps, which)) gauge.set({ currency: row.currency }, row.n)
    })
  }
  fromDatabase('pix_webhook_attempts', 'Merchant webhook attempts by outcome.', ['outcome'], async (gauge) => {
    for (const [outcome, n] of await webhookAttemptsByOutcome(deps)) gauge.set({ outcome }, n)
  })
  // Worth an alert (docs/rules.md#clawbacks): the provider will take back money we credited, or took an amount we cannot place; refunds owed wait on support.
  fromDatabase('pix_clawbacks_to_review', 'Claw-backs the provider reported that support must look at (/ops/alerts): will_refund after credit, refunded after a partial MED.', [], async (gauge) => {
    gauge.set(await clawbacksToReview(deps))
  })
  fromDatabase('pix_refunds_owed', 'Refunds owed to payers: how many, and how many centavos.', ['unit'], async (gauge) => {
    const owed = await refundsOwedTotals(deps)
    gauge.set({ unit: 'count' }, owed.count)
    gauge.set({ unit: 'centavos' }, owed.cents)
  })
  fromDatabase('pix_withdrawals', 'Withdrawals by status (in_review: waiting for support).', ['status'], async (gauge) => {
    for (const row of await withdrawalsByStatus(deps)) gauge.set({ status: row.status }, row.n)
  })
  fromDatabase('pix_payouts_failed_after_sending', 'Pix-outs whose DePix left but whose Pix the provider did not pay, or refunded after paying (/ops/alerts).', [], async (gauge) => {
    gauge.set(await payoutsFailedAfterSending(deps))
  })
  // Asks the treasury node at each scrape: an unreachable node leaves the gauge out, never fails the scrape.
  fromDatabase('pix_treasury_shortfall', 'What the accounts are owed beyond what the treasury holds, per currency, in its smallest unit (0: covered).', ['currency'], async (gauge) => {
    const check = await checkTreasury(deps).catch((error: unknown) => {
      deps.log?.error({ err: error }, 'the treasury could not be checked for /metrics')
      return []
    })
    for (const row of check) gauge.set({ currency: row.currency }, row.shortfall)
  })
  // The support console's queues (docs/rules.md#console-queues), so an alert can fire when work waits.
  fromDatabase('pix_console_queue', 'Items waiting in each support console queue (holds, refunds, withdrawals, unknown_deposits, provider_refusals, stuck_reconciliations).', ['queue'], async (gauge) => {
    const counts = await queueCounts(deps)
    for (const [queue, n] of Object.entries(counts)) gauge.set({ queue }, n)
  })
  fromDatabase('pix_job_queue_depth', 'Background jobs due now, by kind.', ['kind'], async (gauge) => {
    for (const row of await jobsDueByKind(deps)) gauge.set({ kind: row.kind }, row.n)
  })
  fromDatabase('pix_jobs_parked', 'Background jobs set aside because their payload is not their kind\'s (the jobs table\'s last_error says why), by kind.', ['kind'], async (gauge) => {
    for (const row of await jobsParkedByKind(deps)) gauge.set({ kind: row.kind }, row.n)
  })
  fromDatabase('pix_job_queue_oldest_due_seconds', 'How long the oldest due job has waited.', [], async (gauge) => {
    gauge.set(await oldestDueJobWait(deps))
  })

  return {
    registry,
    observeRequest(route: string, method: string, status: number, seconds: number) {
      requestDuration.observe({ route, method, status: String(status) }, seconds)
    },
  }
}

export type Metrics = ReturnType<typeof createMetrics>
