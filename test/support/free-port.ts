// A free port for a server that must know its port before it listens: a production service's
// BASE_URL, Caddy's upstream, a private PostgreSQL, the SDK example's webhook receiver.
import { randomInt } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

/** Where the kernel's ephemeral ports start (Linux's default when it cannot be read). */
const ephemeralPortsFrom = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768
  } catch {
    return 32_768
  }
})()

/**
 * A port nothing listens on, for a server that must know its port before it listens (a production
 * service's BASE_URL, Caddy's upstream). Picked at random below the kernel's ephemeral range, and
 * tried: a port the kernel hands out (listen on 0, then close) may be handed out again at once, as
 * the local port of any process's outgoing connection, and in a full run one was (EADDRINUSE).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 10_000 + randomInt(ephemeralPortsFrom - 10_000)
    const server = createServer()
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false))
      server.listen(port, '127.0.0.1', () => resolve(true))
    })
    if (!listening) continue
    await new Promise<void>((resolve) => server.close(() => resolve()))
    return port
  }
}
