// Prometheus metrics. Request counts and latencies are measured in this process; business figures
// (charges, webhook outcomes, job queue) are read from the database at scrape time, so they are
// exact across instances and restarts.
import { sql } from 'kysely'
import { Gauge, Histogram, Registry } from 'prom-client'
import type { Clock } from '../clock.ts'
import type { Store } from '../store/store.ts'

export function createMetrics(deps: { store: Store; clock: Clock }) {
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

  fromDatabase('pix_charges_created', 'Charges created, by credited currency.', ['currency'], async (gauge) => {
    const rows = await deps.store.db.selectFrom('charges').select(['currency', sql<number>`count(*)::int4`.as('n')]).groupBy('currency').execute()
    for (const row of rows) gauge.set({ currency: row.currency }, row.n)
  })
  fromDatabase('pix_charges_confirmed', 'Charges confirmed (credited), by credited currency.', ['currency'], async (gauge) => {
    const rows = await deps.store.db
      .selectFrom('charges')
      .select(['currency', sql<number>`count(*)::int4`.as('n')])
      .where('confirmed_at', 'is not', null)
      .groupBy('currency')
      .execute()
    for (const row of rows) gauge.set({ currency: row.currency }, row.n)
  })
  fromDatabase('pix_webhook_attempts', 'Merchant webhook attempts by outcome.', ['outcome'], async (gauge) => {
    const rows = await sql<{ outcome: string; n: number }>`
      select case when status_code between 200 and 299 then 'delivered'
                  when status_code = 410 then 'gone'
                  when status_code is null then 'network_error'
                  else 'http_error' end as outcome,
             count(*)::int4 as n
      from webhook_attempts group by 1`.execute(deps.store.db)
    for (const row of rows.rows) gauge.set({ outcome: row.outcome }, row.n)
  })
  fromDatabase('pix_job_queue_depth', 'Background jobs due now, by kind.', ['kind'], async (gauge) => {
    const rows = await deps.store.db
      .selectFrom('jobs')
      .select(['kind', sql<number>`count(*)::int4`.as('n')])
      .where('run_at', '<=', deps.clock.now())
      .groupBy('kind')
      .execute()
    for (const row of rows) gauge.set({ kind: row.kind }, row.n)
  })
  fromDatabase('pix_job_queue_oldest_due_seconds', 'How long the oldest due job has waited.', [], async (gauge) => {
    const row = await deps.store.db.selectFrom('jobs').select(sql<Date | null>`min(run_at)`.as('oldest')).where('run_at', '<=', deps.clock.now()).executeTakeFirst()
    gauge.set(row?.oldest ? Math.max(0, (deps.clock.now().getTime() - row.oldest.getTime()) / 1000) : 0)
  })

  return {
    registry,
    observeRequest(route: string, method: string, status: number, seconds: number) {
      requestDuration.observe({ route, method, status: String(status) }, seconds)
    },
  }
}

export type Metrics = ReturnType<typeof createMetrics>
