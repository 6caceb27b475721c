// For load balancers: /healthz says the process is up; /readyz that the database answers and
// the deployment's last check of the provider found it answering (app/check-provider.ts: one
// /ping a minute for the whole deployment, so every instance gives the same answer and a restarted
// one is ready at once). An unready answer says why, in its body and, when it changes, in the log.
// /readyz also reports the mail server (app/check-readiness.ts: the outbox's latest attempt, else
// the server itself). Mail that cannot leave makes no instance unready, since every instance
// shares it, but an operator must see it.
import type { FastifyPluginAsync } from 'fastify'
import { checkProvider } from '../../app/check-provider.ts'
import { createMailCheck, databaseAnswers } from '../../app/check-readiness.ts'
import { productionWarnings } from '../../config.ts'
import type { ProviderReadiness } from '../../domain/provider-check.ts'
import type { AppDeps } from '../../web/deps.ts'
import { documentAudience } from '../../web/audiences.ts'

/** How long a probe waits for a ping this instance started; a slower answer counts from the next probe on. */
const PROVIDER_WAIT_MS = 2_000

export const healthRoutes: FastifyPluginAsync<Pick<AppDeps, 'store' | 'provider' | 'clock' | 'config' | 'mailServerAnswers'>> = async (app, deps) => {
  documentAudience(app, 'health')
  const warnings = productionWarnings(deps.config).map((warning) => warning.code)
  // What this instance last answered, so the log says when (and why) it changes, not at every probe.
  let lastAnswer: string | null = null

  const mailWorks = createMailCheck(deps)

  app.get(
    '/healthz',
    { schema: { operationId: 'healthz', summary: 'Liveness: the process is up', response: { 200: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } }, examples: [{ status: 'ok' }] } } } },
    async () => ({ status: 'ok' }),
  )

  const providerCheck = {
    type: 'object',
    description: "The deployment's last check of the provider's /ping, shared by every instance (one a minute for the whole deployment).",
    properties: {
      result: { type: 'string', enum: ['ok', 'failed', 'none'], description: '`none`: not checked yet, or the database could not be read.' },
      checked_at: { type: ['string', 'null'], format: 'date-time' },
      age_seconds: { type: ['integer', 'null'] },
    },
  }
  const readiness = {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['ready', 'unready'] },
      database: { type: 'string', enum: ['ok', 'unreachable'] },
      provider: { type: 'string', enum: ['ok', 'unreachable', 'unknown'], description: '`unknown` while the database, which holds the last check, does not answer.' },
      provider_check: providerCheck,
      reason: { type: 'string', description: 'Why the instance is unready; absent when ready.' },
      mail: { type: 'string', enum: ['ok', 'failing'], description: 'The mail server answers and the outbox\'s last attempt went through; not part of readiness.' },
      warnings: { type: 'array', items: { type: 'string' }, description: 'Production settings that are unsafe (an http BASE_URL, a trusted proxy on an open interface, a default-looking secret); each is explained in the log at start.' },
    },
    examples: [{ status: 'ready', database: 'ok', provider: 'ok', provider_check: { result: 'ok', checked_at: '2026-11-22T12:00:00.000Z', age_seconds: 12 }, mail: 'ok' }],
  }
  app.get('/readyz', {
    schema: {
      operationId: 'readyz',
      summary: "Readiness: the database answers and the deployment's last provider check found it answering",
      description: "The provider's /ping allows one call a minute for the whole account: the deployment checks it once a minute (whichever instance is asked first) and every instance answers from that check, kept in the database. A check that failed, or is more than 5 minutes old, makes every instance unready, with the reason in `reason`.",
      response: { 200: readiness, 503: readiness },
    },
  }, async (request, reply) => {
    const database = await databaseAnswers(deps)
    const provider = database ? await checkProvider({ ...deps, log: request.log, waitMs: PROVIDER_WAIT_MS }).catch(() => null) : null
    const mail = database && (await mailWorks())
    const ready = database && provider !== null && provider.ready
    const reason = ready ? null : !database ? 'the database does not answer' : provider === null ? 'the last provider check could not be read' : providerReason(provider)
    const answer = reason ?? 'ready'
    if (answer !== lastAnswer) {
      if (ready) request.log.info({ provider_check: provider?.check }, 'ready')
      else request.log.warn({ provider_check: provider?.check ?? null }, `unready: ${reason}`)
      lastAnswer = answer
    }
    return reply.code(ready ? 200 : 503).send({
      status: ready ? 'ready' : 'unready',
      database: database ? 'ok' : 'unreachable',
      provider: provider === null ? 'unknown' : provider.ready ? 'ok' : 'unreachable',
      provider_check: provider?.check
        ? { result: provider.check.ok ? 'ok' : 'failed', checked_at: provider.check.checkedAt.toISOString(), age_seconds: provider.ageSeconds }
        : { result: 'none', checked_at: null, age_seconds: null },
      ...(reason === null ? {} : { reason }),
      mail: mail ? 'ok' : 'failing',
      ...(warnings.length > 0 ? { warnings } : {}),
    })
  })
}

/** Why the provider does not count as reachable, in a line for the body and the log. */
function providerReason(provider: ProviderReadiness): string | null {
  switch (provider.reason) {
    case null: return null
    case 'never_checked': return "the provider has not been checked yet: the deployment asks its /ping once a minute; another instance may be asking now"
    // What it met (an address, the provider's sentence) is for the log, not for a public endpoint.
    case 'failed': return `the provider's last check, ${provider.ageSeconds} s ago, failed; the log says how (provider_check.detail)`
    case 'stale': return `the provider's last check is ${provider.ageSeconds} s old: nobody could ask its /ping since (its one call a minute is spent elsewhere?)`
  }
}
