// The load generator, run as its own process so it does not share the service's event loop.
// Usage: node bench/load.ts '<json options>' — prints autocannon's figures as one JSON line.
import autocannon from 'autocannon'

const options = JSON.parse(process.argv[2]!) as autocannon.Options
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
