// The Fastify application: strict JSON, request ids, error mapping, and the routes by audience.
import { randomBytes } from 'node:crypto'
import Fastify, { type FastifyServerOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import { DomainError } from '../domain/errors.ts'
import type { PaymentProvider } from '../provider/provider.ts'
import type { Store } from '../store/store.ts'
import type { ResolveHost } from '../webhooks/destination.ts'
import type { TokenCache } from '../app/token-cache.ts'
import { installErrorHandling } from './errors.ts'
import swagger from '@fastify/swagger'
import { apiRoutes } from './routes/api.ts'
import { docsRoutes } from './routes/docs.ts'
import { createMetrics } from './metrics.ts'
import { healthRoutes } from './routes/health.ts'
import { opsRoutes } from './routes/ops.ts'
import { providerRoutes } from './routes/provider.ts'
import type { JobRunner } from '../jobs/runner.ts'
import { sandboxRoutes, type SandboxDeps } from './routes/sandbox.ts'

export type AppDeps = {
  config: Config
  store: Store
  provider: PaymentProvider
  clock: Clock
  resolveHost?: ResolveHost
  tokenCache?: TokenCache
  jobs: JobRunner
  providerWebhookSecret: string
  opsToken: string
  /** Present in sandbox mode only: the fake provider and the movable clock behind /sandbox. */
  sandbox?: SandboxDeps
}

/** Where a string in the body is not well-formed UTF-16 or holds a NUL, which no field accepts. */
function findIllFormedString(value: unknown, path: string): string | null {
  if (typeof value === 'string') return !value.isWellFormed() || value.includes('\u0000') ? path : null
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findIllFormedString(value[i], `${path}/${i}`)
      if (found !== null) return found
    }
    return null
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (!key.isWellFormed() || key.includes('\u0000')) return `${path}/${key}`
      const found = findIllFormedString(item, `${path}/${key}`)
      if (found !== null) return found
    }
  }
  return null
}

export function loggerOptions(level: string) {
  return {
    level,
    redact: { paths: ['req.headers["x-api-token"]', 'req.headers.authorization', 'req.headers["idempotency-key"]'], censor: '[redacted]' },
  }
}

export async function buildApp(deps: AppDeps, options: { logger?: FastifyServerOptions['logger'] } = {}) {
  const { config } = deps
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config.logLevel),
    bodyLimit: config.bodyLimitBytes,
    genReqId: () => `req_${randomBytes(12).toString('hex')}`,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  }).withTypeProvider<TypeBoxTypeProvider>()

  installErrorHandling(app, { docsUrl: config.docsUrl, supportEmail: config.supportEmail })

  const metrics = createMetrics(deps)
  app.addHook('onResponse', async (request, reply) => {
    // The route template, never the raw URL: ids in paths would explode the label set.
    metrics.observeRequest(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000)
  })

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })

  // On shutdown, a keep-alive connection that was busy when closing began would otherwise stay
  // open for the whole keep-alive time-out after its last response: tell the client to hang up.
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close')
  })

  app.addHook('preValidation', async (request) => {
    const where = findIllFormedString(request.body, '')
    if (where !== null) {
      const field = where.split('/')[1]
      throw new DomainError('invalid_request', {
        message: 'Text must be valid Unicode without NUL characters.',
        ...(field ? { param: field } : {}),
      })
    }
  })

  // Registered before any route, so it sees every route's schema.
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Pix charge service', version: '1', description: `Documentation: ${config.docsUrl}` },
      servers: [{ url: config.baseUrl }],
      components: {
        securitySchemes: {
          apiToken: { type: 'apiKey', in: 'header', name: 'X-API-Token' },
          operator: { type: 'http', scheme: 'bearer' },
          provider: { type: 'http', scheme: 'basic' },
        },
      },
      security: [{ apiToken: [] }],
    },
  })
  await app.register(docsRoutes, deps)
  await app.register(healthRoutes, deps)
  await app.register(apiRoutes, deps)
  await app.register(providerRoutes, deps)
  await app.register(opsRoutes, { ...deps, metrics })
  if (deps.sandbox) await app.register(sandboxRoutes, { ...deps, sandbox: deps.sandbox })
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>
