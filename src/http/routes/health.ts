// For load balancers: /healthz says the process is up; /readyz that the database answers and
// the provider did within the last minute (its /ping allows one call a minute).
import { sql } from 'kysely'
import type { FastifyPluginAsync } from 'fastify'
import type { AppDeps } from '../app.ts'

const PROVIDER_CHECK_EVERY_MS = 60_000

export const healthRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  let providerCheck: { at: number; ok: boolean } | null = null

  async function providerReachable(): Promise<boolean> {
    if (providerCheck && performance.now() - providerCheck.at < PROVIDER_CHECK_EVERY_MS) return providerCheck.ok
    const ok = await deps.provider.ping().then(() => true, () => false)
    providerCheck = { at: performance.now(), ok }
    return ok
  }

  app.get('/healthz', async () => ({ status: 'ok' }))

  app.get('/readyz', async (_request, reply) => {
    const database = await sql`select 1`.execute(deps.store.db).then(() => true, () => false)
    const provider = await providerReachable()
    const ready = database && provider
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unready', database: database ? 'ok' : 'unreachable', provider: provider ? 'ok' : 'unreachable' })
  })
}
