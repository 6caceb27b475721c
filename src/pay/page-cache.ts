// Payment pages as they were rendered a moment ago, in this process's memory: a payer's page
// reloads itself and its script asks again every few seconds, and a page link shared in a group
// is opened by many at once. An entry is served only while all three hold: less than `ttlMs` of
// real time has passed (what another instance changed shows within it), the service clock has
// not moved past it (the QR's expiry is read from that clock), and no charge was written by this
// process since (a payment it recorded shows at once).

/** Entries kept at most; the oldest goes first. */
const MAX_ENTRIES = 10_000

export type PageCache = {
  get(key: string, clockMs: number, writes: number): string | undefined
  set(key: string, body: string, clockMs: number, writes: number): void
}

export function createPageCache(ttlMs: number, monotonicNow: () => number = () => performance.now()): PageCache {
  const entries = new Map<string, { body: string; at: number; clockMs: number; writes: number }>()
  return {
    get(key, clockMs, writes) {
      if (ttlMs <= 0) return undefined
      const entry = entries.get(key)
      if (!entry) return undefined
      if (monotonicNow() - entry.at >= ttlMs || clockMs - entry.clockMs >= ttlMs || clockMs < entry.clockMs || writes !== entry.writes) {
        entries.delete(key)
        return undefined
      }
      return entry.body
    },
    set(key, body, clockMs, writes) {
      if (ttlMs <= 0) return
      entries.delete(key)
      entries.set(key, { body, at: monotonicNow(), clockMs, writes })
      if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!)
    },
  }
}
