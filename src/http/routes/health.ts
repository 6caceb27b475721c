// For load balancers: /healthz says the process is up; /readyz that the database answers and
// the provider did within the last minute (its /ping allows one call a minute). /readyz also
// reports the mail server: the outbox's latest attempt when one was made in the last five
// minutes, else the server itself, asked at most every 30 s. Mail that cannot leave makes no
// instance unready, since every instance shares it, but an operator must see it.
import type { FastifyPluginAsync } from 'fastify'
import { productionWarnings } from '../../config.ts'
import type { AppDeps } from '../deps.ts'
import { documentAudience } from '../openapi.ts'

const PROVIDER_CHECK_EVERY_MS = 60_000
const MAIL_CHECK_EVERY_MS = 30_000
/** An attempt to send this recent says more about the mail server than asking it. */
const RECENT_MAIL_MS = 5 * 60_000

export const healthRoutes: FastifyPluginAsync<Pick<AppDeps, 'store' | 'provider' | 'clock' | 'config' | 'mailServerAnswers'>> = async (app, deps) => {
  documentAudience(app, 'health')
  let providerCheck: { at: number; ok: boolean } | null = null
  const warnings = productionWarnings(deps.config).map((warning) => warning.code)

  async function providerReachable(): Promise<boolean> {
    if (providerCheck && performance.now() - providerCheck.at < PROVIDER_CHECK_EVERY_MS) return providerCheck.ok
    const ok = await deps.provider.ping().then(() => true, () => false)
    providerCheck = { at: performance.now(), ok }
    return ok
  }

  let mailCheck: { at: number; ok: boolean } | null = null
  async function mailWorks(): Promise<boolean> {
    const last = await deps.store.mail.lastAttempt()
    if (last && deps.clock.now().getTime() - last.at.getTime() < RECENT_MAIL_MS) return last.ok
    if (!mailCheck || performance.now() - mailCheck.at >= MAIL_CHECK_EVERY_MS) {
      // A mail server that hangs must not hang readiness: two seconds is all it gets.
      const answered = await Promise.race([deps.mailServerAnswers(), new Promise<boolean>((resolve) => setTimeout(resolve, 2_000, false).unref())])
      mailCheck = { at: performance.now(), ok: answered }
    }
    return mailCheck.ok
  }

  app.get(
    '/healthz',
    { schema: { operationId: 'healthz', summary: 'Liveness: the process is up', response: { 200: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } }, examples: [{ status: 'ok' }] } } } },
    async () => ({ status: 'ok' }),
  )

  const readiness = {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['ready', 'unready'] },
      database: { type: 'string', enum: ['ok', 'unreachable'] },
      provider: { type: 'string', enum: ['ok', 'unreachable'] },
      mail: { type: 'string', enum: ['ok', 'failing'], description: 'The mail server answers and the outbox\'s last attempt went through; not part of readiness.' },
      warnings: { type: 'array', items: { type: 'string' }, description: 'Production settings that are unsafe (an http BASE_URL, a trusted proxy on an open interface, a default-looking secret); each is explained in the log at start.' },
    },
    examples: [{ status: 'ready', database: 'ok', provider: 'ok', mail: 'ok' }],
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
    const mail = database && (await mailWorks())
    const ready = database && provider
    return reply.code(ready ? 200 : 503).send({
      status: ready ? 'ready' : 'unready',
      database: database ? 'ok' : 'unreachable',
      provider: provider ? 'ok' : 'unreachable',
      mail: mail ? 'ok' : 'failing',
      ...(warnings.length > 0 ? { warnings } : {}),
    })
  })
}
