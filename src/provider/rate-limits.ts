// Client-side limits on calls to the real provider, matching its published limits (sustained per
// minute / burst), so a burst of merchants becomes our own clear 503 with Retry-After rather than
// a ban by the provider. The buckets are the deployment's (in the database, see
// store/rate-buckets.ts), so N instances together stay within the limits.
import { ProviderBusyError, type PaymentProvider } from './provider.ts'

export type Limit = { perMinute: number; burst: number }

/** Eulen's published limits (docs/rules.md#provider-limits); user-info and withdraw-status have no published limit, so they get deposit-status's. */
export const eulenPublishedLimits: Record<'deposit' | 'depositStatus' | 'deposits' | 'userInfo' | 'ping' | 'withdraw' | 'withdrawStatus', Limit> = {
  deposit: { perMinute: 15, burst: 50 },
  depositStatus: { perMinute: 60, burst: 50 },
  withdraw: { perMinute: 10, burst: 50 },
  // Not published; deposit-status's, which it mirrors.
  withdrawStatus: { perMinute: 60, burst: 50 },
  deposits: { perMinute: 12, burst: 10 },
  userInfo: { perMinute: 60, burst: 50 },
  ping: { perMinute: 1, burst: 1 },
}

/** Our share of the provider's published limit for a call is used up. */
export class ProviderLimitReachedError extends ProviderBusyError {
  override name = 'ProviderLimitReachedError'
  constructor(call: string, retryAfterSeconds: number) {
    super(`the provider's ${call} limit is reached; retry in ${retryAfterSeconds} s`, retryAfterSeconds)
  }
}

/** A token bucket: `burst` tokens, refilled at perMinute per 60 s. */
export function createBucket(limit: Limit, nowMs: () => number) {
  let tokens = limit.burst
  let at = nowMs()
  const refillPerMs = limit.perMinute / 60_000
  return {
    /** Takes a token, or returns the seconds until one is available. */
    take(): number {
      const now = nowMs()
      tokens = Math.min(limit.burst, tokens + (now - at) * refillPerMs)
      at = now
      if (tokens >= 1) {
        tokens -= 1
        return 0
      }
      return Math.ceil((1 - tokens) / refillPerMs / 1000)
    },
  }
}

/** Takes a token from the named bucket: 0 when taken, else the seconds until one is there. */
export type TakeToken = (call: keyof typeof eulenPublishedLimits, limit: Limit) => Promise<number>

export function withProviderRateLimits(provider: PaymentProvider, takeToken: TakeToken, limits: typeof eulenPublishedLimits = eulenPublishedLimits): PaymentProvider {
  const guard = async (call: keyof typeof eulenPublishedLimits) => {
    const wait = await takeToken(call, limits[call])
    if (wait > 0) throw new ProviderLimitReachedError(call, wait)
  }
  return {
    async createDeposit(request) {
      await guard('deposit')
      return provider.createDeposit(request)
    },
    async depositStatus(id) {
      await guard('depositStatus')
      return provider.depositStatus(id)
    },
    async listDeposits(start, end, status) {
      await guard('deposits')
      return provider.listDeposits(start, end, status)
    },
    async userInfo(euid) {
      await guard('userInfo')
      return provider.userInfo(euid)
    },
    async ping() {
      await guard('ping')
      return provider.ping()
    },
    async createPayout(request) {
      await guard('withdraw')
      return provider.createPayout(request)
    },
    async payoutStatus(id) {
      await guard('withdrawStatus')
      return provider.payoutStatus(id)
    },
    async findPayoutByNonce(nonce) {
      await guard('withdrawStatus')
      return provider.findPayoutByNonce(nonce)
    },
  }
}
