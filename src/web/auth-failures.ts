// Failed credentials cost a database lookup (API tokens) or invite guessing (operator token,
// provider webhook secret, Wallet codes): each client address gets a budget of failures per
// minute, after which it is answered 429 rate_limited with Retry-After before any lookup.
// Successes cost nothing here. Per instance, in memory: it protects this process and its
// database connections.
import type { FastifyRequest } from 'fastify'
import { DomainError } from '../domain/errors.ts'
import { createAddressWindows } from './address-windows.ts'

export type AuthFailureLimiter = {
  /** Throws rate_limited when this address has used up its failures for the window. */
  check(request: FastifyRequest): void
  /** Runs `verify`; a failure it throws counts against the address and is thrown on. */
  guard<T>(request: FastifyRequest, verify: () => Promise<T> | T): Promise<T>
}

export function createAuthFailureLimiter(perMinute: number, monotonicNow?: () => number): AuthFailureLimiter {
  const failures = createAddressWindows({ limit: perMinute, windowMs: 60_000, ...(monotonicNow ? { monotonicNow } : {}) })
  const limiter: AuthFailureLimiter = {
    check(request) {
      const retryAfterSeconds = failures.wait(request.ip)
      if (retryAfterSeconds > 0) {
        throw new DomainError('rate_limited', { message: `Too many failed authentications from this address; retry in ${retryAfterSeconds} s.`, retryAfterSeconds })
      }
    },
    async guard(request, verify) {
      limiter.check(request)
      try {
        return await verify()
      } catch (error) {
        if (error instanceof DomainError) failures.count(request.ip)
        throw error
      }
    },
  }
  return limiter
}
