// How the server-rendered pages (the Wallet, the console) turn any error into one of the catalogue:
// a CSRF failure is `csrf_invalid`, a database that does not answer is `service_unavailable` (with
// Retry-After), a client's mistake Fastify caught is `invalid_request`, anything else is logged
// and `internal_error`. The code goes out as X-Error-Code; each page renders its own error page.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { DomainError } from '../domain/errors.ts'
import { isDatabaseUnavailable } from '../store/database.ts'

export function pageError(error: FastifyError, request: FastifyRequest, reply: FastifyReply, where: string): { mapped: DomainError; csrfFailure: boolean; csrfToken: string } {
  const csrfFailure = typeof error.code === 'string' && error.code.startsWith('FST_CSRF')
  let mapped = error instanceof DomainError ? error : null
  if (csrfFailure) mapped = new DomainError('csrf_invalid')
  else if (!mapped && isDatabaseUnavailable(error)) mapped = new DomainError('service_unavailable', { retryAfterSeconds: 2 })
  else if (!mapped && error.statusCode !== undefined && error.statusCode < 500) mapped = new DomainError('invalid_request', { message: error.message })
  if (!mapped) {
    request.log.error({ err: error }, `unhandled ${where} error`)
    mapped = new DomainError('internal_error')
  }
  if (mapped.retryAfterSeconds !== undefined) reply.header('retry-after', String(mapped.retryAfterSeconds))
  reply.header('x-error-code', mapped.code)
  let csrfToken = ''
  try {
    csrfToken = reply.generateCsrf()
  } catch {
    // No session to hold a token (the request failed before it was read): the page has no forms.
  }
  return { mapped, csrfFailure, csrfToken }
}
