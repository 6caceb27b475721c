// The per-token API limit, shared by every instance of a deployment: the budget lives in the
// database's token buckets (store/rate-buckets.ts), and each instance draws small leases from it,
// so the hot path costs one database write per lease rather than one per request. Leased tokens
// are spent locally; those a lease leaves unused are simply lost, so the deployment as a whole
// never allows more than the limit, only (briefly) less.
import type { Store } from '../store/store.ts'

/** The buckets' keys: the housekeeping drops idle ones by this prefix. */
const PREFIX = 'api:'

/** How long an instance may keep leased tokens before giving them up. */
const LEASE_TTL_MS = 10_000
/** Local leases kept at most; beyond it the oldest are dropped (they are only an optimisation). */
const MAX_LEASES = 10_000

export function createApiRateLimit(deps: {
  store: Pick<Store, 'rateBuckets'>
  /** Housekeeping runs beside the request that triggered it; its failure is only logged. */
  log: { warn: (details: object, message: string) => void }
}, options: {
  perMinute: number
  /** What a full bucket holds: a fresh or idle token may spend this at once. */
  burst: number
  nowMs?: () => number
}) {
  const limit = { perMinute: options.perMinute, burst: options.burst }
  // About a second's worth of requests per lease: few writes for a busy token, little lost for a quiet one.
  const leaseSize = Math.max(1, Math.min(50, Math.floor(options.perMinute / 60), options.burst))
  const nowMs = options.nowMs ?? (() => performance.now())
  const leases = new Map<string, { tokens: number; until: number }>()
  /** Keys refused, until when: a token over its limit is answered here, without another query. */
  const refused = new Map<string, number>()
  const remember = (key: string, wait: number) => {
    if (refused.size >= MAX_LEASES) refused.delete(refused.keys().next().value!)
    refused.set(key, nowMs() + wait * 1000)
    return wait
  }
  let forgotAt = nowMs()

  return {
    /** Takes one request's token for the API token `tokenId`: 0 when allowed, else the seconds to wait. */
    async take(tokenId: string): Promise<number> {
      const key = `${PREFIX}token:${tokenId}`
      const until = refused.get(key)
      if (until !== undefined) {
        if (until > nowMs()) return Math.max(1, Math.ceil((until - nowMs()) / 1000))
        refused.delete(key)
      }
      const lease = leases.get(key)
      if (lease && lease.tokens > 0 && lease.until > nowMs()) {
        lease.tokens--
        return 0
      }
      if (nowMs() - forgotAt > 60_000) {
        forgotAt = nowMs()
        // A bucket idle for a minute has refilled to its burst (the limit per minute), so it needs no row.
        deps.store.rateBuckets.forgetIdle(PREFIX, 60).catch((error: unknown) => deps.log.warn({ err: error }, 'could not drop idle rate-limit buckets'))
      }
      if (leaseSize > 1 && (await deps.store.rateBuckets.take(key, limit, leaseSize)) === 0) {
        // Requests that found no lease at the same moment each took one: they add up, none is lost.
        const current = leases.get(key)
        if (current && current.until > nowMs()) {
          current.tokens += leaseSize - 1
        } else {
          leases.delete(key)
          if (leases.size >= MAX_LEASES) leases.delete(leases.keys().next().value!)
          leases.set(key, { tokens: leaseSize - 1, until: nowMs() + LEASE_TTL_MS })
        }
        return 0
      }
      const wait = await deps.store.rateBuckets.take(key, limit, 1)
      return wait > 0 ? remember(key, wait) : 0
    },
  }
}
