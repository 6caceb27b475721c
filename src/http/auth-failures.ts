// Failed credentials cost a database lookup (API tokens) or invite guessing (operator token,
// provider webhook secret): each client address gets a budget of failures per minute, after which
// it is answered 429 rate_limited with Retry-After before any lookup. Successes cost nothing here.
// Per instance, in memory: it protects this process and its database connections.
import type { FastifyRequest } from 'fastify'
import { DomainError } from '../domain/errors.ts'

const WINDOW_MS = 60_000
/** Addresses remembered at most; past it the oldest windows are forgotten first. */
const MAX_ADDRESSES = 50_000

export type AuthFailureLimiter = {
  /** Throws rate_limited when this address has used up its failures for the window. */
  check(request: FastifyRequest): void
  /** Runs `verify`; a failure it throws counts against the address and is thrown on. */
  guard<T>(request: FastifyRequest, verify: () => Promise<T> | T): Promise<T>
}

export function createAuthFailureLimiter(perMinute: number, monotonicNow: () => number = () => performance.now()): AuthFailureLimiter {
  const windows = new Map<string, { startedAt: number; failures: number }>()

  const current = (address: string) => {
    const now = monotonicNow()
    const window = windows.get(address)
    if (window && now - window.startedAt < WINDOW_MS) return window
    if (window) windows.delete(address)
    return undefined
  }

  const limiter: AuthFailureLimiter = {
    check(request) {
      if (perMinute <= 0) return
      const window = current(request.ip)
      if (window && window.failures >= perMinute) {
        const retryAfterSeconds = Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - monotonicNow()) / 1000))
        throw new DomainError('rate_limited', {
          message: `Too many failed authentications from this address; retry in ${retryAfterSeconds} s.`,
          retryAfterSeconds,
        })
      }
    },
    async guard(request, verify) {
      limiter.check(request)
      try {
        return await verify()
      } catch (error) {
        if (perMinute > 0 && error instanceof DomainError) {
          const window = current(request.ip)
          if (window) window.failures++
          else {
            if (windows.size >= MAX_ADDRESSES) windows.delete(windows.keys().next().value!)
            windows.set(request.ip, { startedAt: monotonicNow(), failures: 1 })
          }
        }
        throw error
      }
    },
  }
  return limiter
}
