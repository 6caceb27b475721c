// The load generator, run as its own process so it does not share the service's event loop.
// Usage: node bench/load.ts '<json options>' — prints autocannon's figures as one JSON line.
// `uniqueHeader` names a header given a new random value on every request (an Idempotency-Key:
// a repeated one would be answered from the key, not made).
import { randomUUID } from 'node:crypto'
import autocannon from 'autocannon'

const { uniqueHeader, ...options } = JSON.parse(process.argv[2]!) as autocannon.Options & { uniqueHeader?: string }
if (uniqueHeader !== undefined) {
  options.requests = [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, [uniqueHeader]: randomUUID() } }) }]
}
const result = await autocannon(options)
process.stdout.write(
  JSON.stringify({
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  }) + '\n',
)
