// The service's sense of time, injected everywhere so the sandbox and tests can move it.

export type Clock = {
  now(): Date
}

/** Production: wall-clock time. */
export const systemClock: Clock = { now: () => new Date() }

export type AdjustableClock = Clock & {
  advance(seconds: number): Date
}

/**
 * Sandbox and tests: wall-clock time plus an offset that only grows. Given `frozenAt`, time stands
 * still there and moves only by `advance`, so tests never depend on how fast they run.
 */
export function createAdjustableClock(frozenAt?: Date): AdjustableClock {
  let offsetMs = 0
  const base = () => (frozenAt ? frozenAt.getTime() : Date.now())
  return {
    now: () => new Date(base() + offsetMs),
    advance(seconds: number) {
      if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError('the clock only moves forward')
      offsetMs += seconds * 1000
      return new Date(base() + offsetMs)
    },
  }
}
