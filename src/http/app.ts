// The Fastify application: strict JSON, request ids, error mapping, and the API's routes by
// audience. The pages for people (the Wallet, the payment pages, the console) are wings the
// composition root registers on it (service.ts); they share what lies below them in web/.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import AjvCompiler from '@fastify/ajv-compiler'
import type { Ajv } from 'ajv'
import nextVocabulary from 'ajv/dist/vocabularies/next.js'
import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { DomainError } from '../domain/errors.ts'
import { randomHexSource } from '../random-hex.ts'
import type { RouteDeps } from '../web/deps.ts'
import { clientErrorHandler, fromFastifyError, installErrorHandling, sendError } from '../web/errors.ts'
import swagger from '@fastify/swagger'
import { openApiOptions } from './openapi.ts'
import { apiRoutes } from './routes/api.ts'
import { docsRoutes } from './routes/docs.ts'
import { createMetrics } from './metrics.ts'
import { healthRoutes } from './routes/health.ts'
import { opsRoutes } from './routes/ops.ts'
import { providerRoutes } from './routes/provider.ts'

const ajvCompilers = AjvCompiler()
type ValidatorFactory = ReturnType<typeof AjvCompiler>

/**
 * Fastify's Ajv speaks JSON Schema draft-07; the OpenAPI 3.1 document is 2020-12, whose
 * `dependentRequired` (a field that needs another) the schemas use. This plugin teaches Ajv the
 * 2019+ keywords, so the service validates by the same words the document says.
 */
export function jsonSchemaNextKeywords(ajv: Ajv): Ajv {
  return ajv.addVocabulary(nextVocabulary.default)
}

/**
 * A query string is text: `?limit=2` is coerced to the integer its schema declares (what Fastify
 * does by default), so the OpenAPI document can say integer and a typed client can pass 2. Bodies
 * are JSON and are never coerced: `"amount": "100"` is no integer.
 */
const coercingQueries: ValidatorFactory = (externalSchemas, options) => {
  const exact = ajvCompilers(externalSchemas, options)
  const coercing = ajvCompilers(externalSchemas, { ...options, customOptions: { ...options?.customOptions, coerceTypes: true } } as typeof options)
  // Fastify calls the compiler with the route's schema and part, not the bare schema its types say.
  return ((route: { httpPart?: string }) => (route.httpPart === 'querystring' ? coercing : exact)(route as never)) as ReturnType<ValidatorFactory>
}

type Compiled = ((...args: unknown[]) => unknown) & { errors?: unknown; schemaEnv?: unknown }

declare module 'fastify' {
  interface FastifyInstance {
    /** Compiles every route's validators and serializers not compiled yet (see compiledOnFirstUse); answers how many the routes have. */
    compileSchemas(): number
  }
}

/**
 * A route's validator or serializer, compiled when the route is first used rather than at start:
 * most of them (each route's error bodies) a process never uses, and every restart and test
 * service paid for all of them (docs/performance.md, "Memory and start-up"). Fastify reads a
 * failed validator's `errors` from the function, and hands Ajv's own validators their parent
 * (`schemaEnv`), so both are read through to the compiled one. Each is also listed in
 * `schemas`, for `app.compileSchemas()`: a test compiles them all, so a schema that cannot
 * compile fails the suite, as it failed Fastify's start, rather than a route's first request.
 */
function compiledOnFirstUse(compile: () => Compiled, schemas: Array<() => unknown>): Compiled {
  let compiled: Compiled | undefined
  const get = () => (compiled ??= compile())
  schemas.push(get)
  const lazy = ((...args: unknown[]) => get()(...args)) as Compiled
  Object.defineProperties(lazy, { errors: { get: () => get().errors }, schemaEnv: { get: () => get().schemaEnv } })
  return lazy
}

function onFirstUse<Factory extends (...args: never[]) => (route: never) => unknown>(factory: Factory, schemas: Array<() => unknown>): Factory {
  return ((...args: Parameters<Factory>) => {
    const compiler = factory(...args)
    return (route: never) => compiledOnFirstUse(() => compiler(route) as Compiled, schemas)
  }) as Factory
}

/** Deeper than any body we accept; a bound keeps hostile nesting from exhausting the stack. */
const MAX_NESTING = 32

/**
 * Where a string (or key) in a parsed body, path or query is not well-formed UTF-16 or holds a
 * NUL, which no field accepts (and PostgreSQL cannot store), or where nesting is deeper than any
 * request of ours. Walked with an explicit stack: hostile input cannot overflow ours.
 */
export function findUnacceptableText(root: unknown): { path: string; problem: 'text' | 'nesting' } | null {
  const pending: Array<[unknown, string, number]> = [[root, '', 0]]
  const bad = (text: string) => !text.isWellFormed() || text.includes('\u0000')
  while (pending.length > 0) {
    const [value, path, depth] = pending.pop()!
    if (typeof value === 'string') {
      if (bad(value)) return { path, problem: 'text' }
      continue
    }
    if (value === null || typeof value !== 'object') continue
    if (depth >= MAX_NESTING) return { path, problem: 'nesting' }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], `${path}/${i}`, depth + 1])
      continue
    }
    for (const [key, item] of Object.entries(value)) {
      if (bad(key)) return { path: `${path}/${key}`, problem: 'text' }
      pending.push([item, `${path}/${key}`, depth + 1])
    }
  }
  return null
}

function refuseUnacceptable(where: 'body' | 'path' | 'query', value: unknown): void {
  const found = findUnacceptableText(value)
  if (found === null) return
  const field = found.path.split('/')[1]
  throw new DomainError('invalid_request', {
    message: found.problem === 'nesting' ? `The ${where} is nested too deeply.` : `Text in the ${where} must be valid Unicode without NUL characters.`,
    ...(field ? { param: field } : {}),
  })
}

export function loggerOptions(level: string) {
  return {
    level,
    redact: { paths: ['req.headers["x-api-token"]', 'req.headers.authorization', 'req.headers["idempotency-key"]'], censor: '[redacted]' },
  }
}

/**
 * JSON bodies must be valid UTF-8: the default parser would quietly turn bad bytes into U+FFFD,
 * and a payer name or a provider report is not ours to rewrite. Otherwise Fastify's own parser,
 * with its prototype-poisoning protection.
 */
function installStrictJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })
  app.removeContentTypeParser('application/json')
  // Every body we take is JSON (or, in the Wallet, a form): plain text is 415 like any other type.
  app.removeContentTypeParser('text/plain')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // POSTs that take no body (operator actions, redelivery) may still say Content-Type: JSON;
    // a route that needs a body refuses the missing one through its schema.
    if ((body as Buffer).length === 0) {
      done(null, undefined)
      return
    }
    let text: string
    try {
      text = utf8.decode(body as Buffer)
    } catch {
      done(new DomainError('invalid_json', { message: 'The body is not valid UTF-8.' }), undefined)
      return
    }
    parseJson(request, text, done)
  })
}

/** Request ids: 12 random bytes each. */
function randomRequestIds(): () => string {
  const randomHex = randomHexSource(12)
  return () => `req_${randomHex()}`
}

export async function buildApp(deps: RouteDeps, options: { logger?: FastifyServerOptions['logger'] } = {}) {
  const { config } = deps
  const errorContext = { docsUrl: config.docsUrl, supportEmail: config.supportEmail }
  const newRequestId = randomRequestIds()
  const schemas: Array<() => unknown> = []
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config.logLevel),
    bodyLimit: config.bodyLimitBytes,
    genReqId: newRequestId,
    clientErrorHandler: clientErrorHandler(errorContext, newRequestId),
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false }, plugins: [jsonSchemaNextKeywords] },
    schemaController: { compilersFactory: { buildValidator: onFirstUse(coercingQueries, schemas), buildSerializer: onFirstUse(SerializerSelector(), schemas) } },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Behind a TLS-terminating proxy: the client's address and https come from X-Forwarded-*.
    trustProxy: config.trustProxy === 0 ? false : (_address: string, hop: number) => hop < config.trustProxy,
    // A client that announces a body and trickles it (or never sends it) is cut off, so slow
    // senders cannot hold connections; Node checks these deadlines every connectionsCheckingInterval.
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    http: {
      headersTimeout: Math.min(config.http.headersTimeoutMs, config.http.requestTimeoutMs),
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(config.http.requestTimeoutMs / 4))),
    },
    frameworkErrors: (error, request, reply) => sendError(reply, fromFastifyError(error, request) ?? new DomainError('invalid_request'), errorContext),
  }).withTypeProvider<TypeBoxTypeProvider>()

  installErrorHandling(app, errorContext)
  installStrictJsonParser(app)
  app.decorate('compileSchemas', () => {
    for (const compile of schemas) compile()
    return schemas.length
  })

  const metrics = createMetrics({ ...deps, log: app.log })
  // The hooks every request passes are synchronous callbacks: no promise per hook on the hot path.
  app.addHook('onResponse', (request, reply, done) => {
    // The route template, never the raw URL: ids in paths would explode the label set.
    metrics.observeRequest(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000)
    done()
  })

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })

  // On shutdown, a keep-alive connection that was busy when closing began would otherwise stay
  // open for the whole keep-alive time-out after its last response: tell the client to hang up.
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close')
    done(null, payload)
  })

  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined && request.routeOptions.config?.bodyMayBeEmpty) request.body = {}
    try {
      // Path and query first: an id with a NUL in it must never reach a query.
      refuseUnacceptable('path', request.params)
      refuseUnacceptable('query', request.query)
      refuseUnacceptable('body', request.body)
    } catch (error) {
      done(error as Error)
      return
    }
    done()
  })

  // Registered before any route, so it sees every route's schema.
  await app.register(swagger, openApiOptions(config))
  await app.register(docsRoutes, deps)
  await app.register(healthRoutes, deps)
  await app.register(apiRoutes, deps)
  await app.register(providerRoutes, deps)
  await app.register(opsRoutes, { ...deps, metrics })
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>
