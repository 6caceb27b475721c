// For load balancers: /healthz says the process is up; /readyz that the database answers and
// the provider did within the last minute (its /ping allows one call a minute).
import type { FastifyPluginAsync } from 'fastify'
import type { AppDeps } from '../app.ts'
import { documentAudience } from '../openapi.ts'

const PROVIDER_CHECK_EVERY_MS = 60_000

export const healthRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  documentAudience(app, 'health')
  let providerCheck: { at: number; ok: boolean } | null = null

  async function providerReachable(): Promise<boolean> {
    if (providerCheck && performance.now() - providerCheck.at < PROVIDER_CHECK_EVERY_MS) return providerCheck.ok
    const ok = await deps.provider.ping().then(() => true, () => false)
    providerCheck = { at: performance.now(), ok }
    return ok
  }

  app.get(
    '/healthz',
    { schema: { operationId: 'healthz', summary: 'Liveness: the process is up', response: { 200: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } }, examples: [{ status: 'ok' }] } } } },
    async () => ({ status: 'ok' }),
  )

  const readiness = {
    type: 'object',
    properties: { status: { type: 'string', enum: ['ready', 'unready'] }, database: { type: 'string', enum: ['ok', 'unreachable'] }, provider: { type: 'string', enum: ['ok', 'unreachable'] } },
    examples: [{ status: 'ready', database: 'ok', provider: 'ok' }],
  }
  app.get('/readyz', {
    schema: {
      operationId: 'readyz',
      summary: 'Readiness: the database and the provider answer',
      description: 'The provider is asked at most once a minute (its /ping allows no more).',
      response: { 200: readiness, 503: readiness },
    },
  }, async (_request, reply) => {
    const database = await deps.store.ping()
    const provider = await providerReachable()
    const ready = database && provider
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unready', database: database ? 'ok' : 'unreachable', provider: provider ? 'ok' : 'unreachable' })
  })
}
