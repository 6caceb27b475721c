// Preloaded into the integration runner's test processes (test/run-integration.ts): turns off the
// async hook node:test installs to know which test created each asynchronous resource. With a
// destroy callback in it, V8 tracks every promise's end, and these suites make millions (PGlite,
// Kysely, Fastify): the hook was 10 % of the hostile sweep's CPU profile (its init callback, the
// registration of each promise's destroy, the collection after). Turning it off, measured by
// alternating: the hostile sweep 6.9–8.0 → 5.7–6.5 s of CPU, the replay and fuzz files together
// 10.9 → 8.5–9.2 s; files that mostly wait (the Wallet's) changed within noise. What the hook buys is the name of the test an uncaught
// error or rejection came from; without it node:test still reports the error and fails the run,
// as "a resource generated asynchronous activity after the test ended".
//
// Node offers no switch for it, so this reaches the hook through Node's internals
// (--expose-internals, which the runner passes with this file), on the pinned Node 24; on a Node
// whose internals differ it does nothing.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
try {
  const internal = require('internal/async_hooks') as {
    getHookArrays: () => [Array<{ disable: () => void; [key: symbol]: unknown }>, unknown]
    symbols: { init_symbol: symbol }
  }
  const [hooks] = internal.getHookArrays()
  for (const hook of [...hooks]) {
    if (String(hook[internal.symbols.init_symbol]).includes('testResources')) hook.disable()
  }
} catch {
  // Node's internals are not as on Node 24: the hook stays, and the tests run as they would.
}
