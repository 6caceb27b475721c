// The deliveries lane's claim reads the deliveries it chose by primary key, whatever the planner
// believes about how many jobs are due. A deployment's jobs table holds mostly jobs due later
// (every charge queues its expiry and its first reconciliation); analyzed in that state, the
// planner estimates that almost none is due, and a claim that let it walk the due index looked
// at every due delivery to lock its few (the drain of 10,000 webhooks 1,425 → 624–1,110/s).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CompiledQuery, sql, type QueryId, type RootOperationNode } from 'kysely'
import { jobsRepository } from '../../src/store/jobs.ts'
import { openTestDatabase, T0 } from '../support/harness.ts'

type PlanNode = { 'Node Type': string; 'Index Name'?: string; 'Parent Relationship'?: string; Plans?: PlanNode[] }

/** Index names of the scans under a node; with `outsideSubplans`, leaving out its InitPlans and SubPlans (the choosing of ids). */
function scans(node: PlanNode, outsideSubplans: boolean): string[] {
  return (node.Plans ?? [])
    .filter((child) => !outsideSubplans || (child['Parent Relationship'] !== 'InitPlan' && child['Parent Relationship'] !== 'SubPlan'))
    .flatMap((child) => [...(child['Index Name'] ? [child['Index Name']] : []), ...scans(child, outsideSubplans)])
}

function find(node: PlanNode, type: string): PlanNode | undefined {
  if (node['Node Type'] === type) return node
  for (const child of node.Plans ?? []) {
    const found = find(child, type)
    if (found) return found
  }
  return undefined
}

test('a deliveries claim chooses through the deliveries index and locks by primary key after the table was analyzed full of jobs due later', async () => {
  const database = await openTestDatabase()
  try {
    const { db } = database
    const later = new Date(T0.getTime() + 3_600_000)
    await sql`insert into jobs (kind, payload, run_at, created_at)
      select 'expire_charge', jsonb_build_object('chargeId', md5(n::text)), ${later}, ${T0} from generate_series(1, 20000) as n`.execute(db)
    await sql`analyze jobs`.execute(db)
    // Deliveries that fell due after the statistics were taken, to five receivers.
    await sql`insert into jobs (kind, payload, run_at, created_at)
      select 'deliver_webhook', jsonb_build_object('eventId', 'evt_' || n, 'destination', 'receiver-' || (n % 5) || '.example'), ${T0}, ${T0}
      from generate_series(1, 2000) as n`.execute(db)

    // The claim as the runner's deliveries lane makes it, compiled and explained instead of run.
    let claim: { node: RootOperationNode; queryId: QueryId } | undefined
    const watched = db.withPlugin({ transformQuery: (args) => ((claim = args), args.node), transformResult: async (args) => args.result })
    const claimed = await jobsRepository(watched).claimDue(T0, 50, 60_000, { kinds: ['deliver_webhook'], spread: { perDestination: 10, busy: [] } })
    assert.equal(claimed.length, 50)
    const compiled = db.getExecutor().compileQuery(claim!.node, claim!.queryId)
    const explained = await db.executeQuery<{ 'QUERY PLAN': unknown }>(CompiledQuery.raw(`explain (format json) ${compiled.sql}`, [...compiled.parameters]))
    const raw = explained.rows[0]!['QUERY PLAN']
    const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>
    const locking = find(plan[0]!.Plan, 'LockRows')
    assert.ok(locking, JSON.stringify(plan))
    // Choosing walks the deliveries index (destination, then due time); locking reads by key.
    const all = scans(plan[0]!.Plan, false)
    assert.ok(!all.includes('jobs_due'), `the claim walked the due index: ${all.join(', ')}`)
    const locked = scans(locking, true)
    assert.deepEqual([...new Set(locked)], ['jobs_pkey'], `the chosen deliveries were not read by primary key alone: ${locked.join(', ')}`)
  } finally {
    await database.close()
  }
})
