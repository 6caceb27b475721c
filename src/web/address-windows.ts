// Counting per client address in fixed windows, in this process's memory: what guards the
// database from floods (failed authentications, sign-in code requests) must not itself write a
// row per request. Addresses are forgotten oldest first past a bound, so memory stays bounded.

/** Addresses remembered at most. */
const MAX_ADDRESSES = 50_000

export type AddressWindows = {
  /** Seconds until the address may go on, or 0 when it is within its budget (nothing is counted). */
  wait(address: string): number
  /** Counts one against the address. */
  count(address: string): void
}

export function createAddressWindows(options: { limit: number; windowMs: number; monotonicNow?: () => number }): AddressWindows {
  const now = options.monotonicNow ?? (() => performance.now())
  const windows = new Map<string, { startedAt: number; count: number }>()
  const current = (address: string) => {
    const window = windows.get(address)
    if (window && now() - window.startedAt < options.windowMs) return window
    if (window) windows.delete(address)
    return undefined
  }
  return {
    wait(address) {
      if (options.limit <= 0) return 0
      const window = current(address)
      if (!window || window.count < options.limit) return 0
      return Math.max(1, Math.ceil((window.startedAt + options.windowMs - now()) / 1000))
    },
    count(address) {
      if (options.limit <= 0) return
      const window = current(address)
      if (window) {
        window.count++
        return
      }
      if (windows.size >= MAX_ADDRESSES) windows.delete(windows.keys().next().value!)
      windows.set(address, { startedAt: now(), count: 1 })
    },
  }
}
