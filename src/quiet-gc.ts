// Gives memory back once the service goes quiet after work (docs/performance.md, "Memory"). V8's
// own memory reducer never collects in this process: it waits for a low allocation rate, and its
// embedder term reads as high while nothing allocates there at all. Young-generation pages freed under load stay
// pooled and the old generation keeps its peak size, so the resident size stayed at twice the idle
// figure an hour after a load. `npm start` exposes `gc` (--expose-gc); without it this does nothing.
import { performance } from 'node:perf_hooks'

/** How often the event loop's use is looked at. */
const CHECK_EVERY_MS = 5_000
/** The share of an interval the event loop may be busy and still count as quiet (the job runner's polls take far less). */
const QUIET_UTILIZATION = 0.05
/** Resident bytes gained since the last collection that make another worth its pause (tens to a few hundred ms). */
const WORTH_COLLECTING = 16 * 1024 * 1024

/**
 * Every few seconds: if the last interval was quiet and the process grew since the last time,
 * one memory-reducing collection (V8's "last resort": full collections that compact, shrink the
 * young generation and unmap the pages it pooled). Answers the way to stop.
 */
export function collectWhenQuiet(): () => void {
  const collect = globalThis.gc
  if (collect === undefined) return () => {}
  let previous = performance.eventLoopUtilization()
  // The first quiet interval after the start collects too: loading and compiling left garbage.
  let residentAfter = 0
  let collecting = false
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization()
    const quiet = performance.eventLoopUtilization(now, previous).utilization < QUIET_UTILIZATION
    previous = now
    if (!quiet || collecting || process.memoryUsage.rss() < residentAfter + WORTH_COLLECTING) return
    collecting = true
    // Async: the collection runs as a task of its own, with no JavaScript on the stack, so it may move everything.
    void collect({ type: 'major', execution: 'async', flavor: 'last-resort' }).finally(() => {
      collecting = false
      residentAfter = process.memoryUsage.rss()
    })
  }, CHECK_EVERY_MS)
  timer.unref()
  return () => clearInterval(timer)
}
