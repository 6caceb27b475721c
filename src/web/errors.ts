// Every failure leaves as the one error body (docs/rules.md#error-body), mapped here and only here.
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DomainError, type ErrorCode } from '../domain/errors.ts'
import { errorText } from '../i18n/catalogue.ts'
import { isDatabaseUnavailable } from '../store/database.ts'

export type ErrorContext = { docsUrl: string; supportEmail: string }

/** A schema failure's code: the code alone (the param is the field), or the code and the field to name. */
export type FieldErrorCode = ErrorCode | { code: ErrorCode; param: string }

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Schema failures on these body fields answer with the field's own code: `field.keyword`
     * (`amount.minimum`) before `field`; a rule across fields by its keyword (`anyOf`,
     * `dependentRequired`).
     */
    fieldErrorCodes?: Record<string, FieldErrorCode>
    /** The same for path parameters, query strings and headers, by name (an id that cannot exist answers the route's not-found code). */
    partErrorCodes?: Record<string, FieldErrorCode>
    /** A POST whose body is all optional: no body at all counts as an empty object. */
    bodyMayBeEmpty?: boolean
  }
}

type ValidationIssue = { instancePath: string; schemaPath?: string; keyword: string; params: Record<string, unknown>; message?: string }

const withCode = (entry: FieldErrorCode, field: string, message?: string) =>
  typeof entry === 'string' ? new DomainError(entry, { param: field, message }) : new DomainError(entry.code, { param: entry.param, message })

// How headers are named in `param`, as a person writes them.
const headerNames: Record<string, string> = { 'idempotency-key': 'Idempotency-Key' }

function validationError(error: FastifyError, fieldCodes: Record<string, FieldErrorCode>, partCodes: Record<string, FieldErrorCode>): DomainError {
  const issues = (error.validation ?? []) as ValidationIssue[]
  // One of two fields is required and the one sent has the wrong type: that field is at fault, not the other's absence.
  const inAnyOf = (each: ValidationIssue) => (each.schemaPath ?? '').includes('/anyOf/')
  const issue = (issues[0] !== undefined && inAnyOf(issues[0]) ? issues.find((each) => inAnyOf(each) && each.instancePath !== '') : undefined) ??
    issues[0] ?? { instancePath: '', keyword: '', params: {} }
  const where = error.validationContext ?? 'body'
  // An unknown field of the body itself; one inside a field (a metadata key) is that field's error.
  if (issue.keyword === 'additionalProperties' && issue.instancePath === '') {
    const field = String(issue.params.additionalProperty)
    return new DomainError('invalid_request', { param: field, message: `Unknown field "${field}".` })
  }
  // A rule across fields (one of two fields required, one field needing another) has a code of its own.
  const rule = issue.instancePath !== '' ? '' : issue.keyword === 'dependentRequired' ? 'dependentRequired' : inAnyOf(issue) ? 'anyOf' : ''
  const codes = where === 'body' ? fieldCodes : partCodes
  if ((rule === 'anyOf' || rule === 'dependentRequired') && codes[rule]) return withCode(codes[rule], String(issue.params.property ?? ''))
  const field =
    issue.keyword === 'required' ? String(issue.params.missingProperty) : (issue.instancePath.split('/')[1] ?? '')
  const entry = codes[`${field}.${issue.keyword}`] ?? codes[field]
  if (field !== '' && entry) {
    const message = issue.keyword === 'required' ? `${field} is required.` : undefined
    return withCode(entry, where === 'headers' ? (headerNames[field] ?? field) : field, message)
  }
  if (field === '') return new DomainError('invalid_request', { message: `The ${where} must be a JSON object.` })
  return new DomainError('invalid_request', { param: field, message: `${field} ${issue.message ?? 'is not valid'}.` })
}

/** Fastify's own errors (parsing, limits, validation) to catalogue codes. */
export function fromFastifyError(error: FastifyError, request: FastifyRequest): DomainError | null {
  if (error.validation) return validationError(error, request.routeOptions?.config?.fieldErrorCodes ?? {}, request.routeOptions?.config?.partErrorCodes ?? {})
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new DomainError('invalid_request', { message: 'The URL is not valid: check its percent-encoding.' })
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new DomainError('url_too_long')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new DomainError('invalid_json')
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DomainError('body_too_large')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new DomainError(error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'unsupported_media_type' : 'invalid_request')
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new DomainError('invalid_request', { message: error.message })
  }
  return null
}

export function errorBody(error: DomainError, request: Pick<FastifyRequest, 'id'>, context: ErrorContext) {
  return {
    error: error.detail ?? errorText(error.code, 'en'),
    code: error.code,
    // Each code has its own anchor on the docs page.
    docs_url: `${context.docsUrl}#${error.code}`,
    support_email: context.supportEmail,
    request_id: String(request.id),
    ...(error.param === undefined ? {} : { param: error.param }),
  }
}

/**
 * What Node refuses before Fastify sees a request (a body or headers too slow, headers too big,
 * bytes that are not HTTP) is answered with a catalogue body too, then the connection is closed.
 */
export function clientErrorHandler(context: ErrorContext, newRequestId: () => string) {
  return function (this: { log: { trace: (details: object, message: string) => void } }, error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return
    const mapped = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? new DomainError('request_timeout')
      : error.code === 'HPE_HEADER_OVERFLOW' ? new DomainError('headers_too_large')
      : new DomainError('invalid_request', { message: 'The request is not valid HTTP.' })
    this.log.trace({ err: error }, 'client error')
    if (socket.writable) {
      const body = JSON.stringify(errorBody(mapped, { id: newRequestId() }, context))
      socket.write(`HTTP/1.1 ${mapped.status} ${STATUS_CODES[mapped.status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`)
    }
    socket.destroy(error)
  }
}

export function sendError(reply: FastifyReply, error: DomainError, context: ErrorContext) {
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds))
  return reply.code(error.status).header('content-type', 'application/json; charset=utf-8').send(errorBody(error, reply.request, context))
}

/** How long a client should wait while the database is away: it usually returns within seconds. */
const DATABASE_RETRY_AFTER_SECONDS = 2

export function installErrorHandling(app: FastifyInstance, context: ErrorContext): void {
  // An outage is logged when it starts and when it ends, not once per request it fails.
  let databaseAwaySince: number | null = null
  app.setErrorHandler((error: FastifyError, request, reply) => {
    let mapped = error instanceof DomainError ? error : fromFastifyError(error, request)
    if (mapped === null && isDatabaseUnavailable(error)) {
      if (databaseAwaySince === null) {
        databaseAwaySince = performance.now()
        request.log.error({ err: error }, 'the database is unreachable: answering 503 service_unavailable until it is back')
      }
      mapped = new DomainError('service_unavailable', { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS })
    } else if (mapped === null) {
      request.log.error({ err: error }, 'unhandled error')
      mapped = new DomainError('internal_error')
    } else if (mapped.status >= 500) {
      request.log.warn({ code: mapped.code, err: error }, 'request failed upstream')
    }
    return sendError(reply, mapped, context)
  })
  app.addHook('onResponse', (request, reply, done) => {
    // A request that reached its handler and did not fail on the database: it is back.
    if (databaseAwaySince !== null && reply.statusCode < 500 && request.routeOptions.url !== '/healthz') {
      request.log.warn({ awayMs: Math.round(performance.now() - databaseAwaySince) }, 'the database is reachable again')
      databaseAwaySince = null
    }
    done()
  })
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new DomainError('not_found', { message: `No route ${request.method} ${request.url.split('?')[0]}.` }), context),
  )
}
