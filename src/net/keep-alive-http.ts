// HTTP calls out of the service (the provider's API, the treasury node, merchants' webhooks)
// through undici's Agent (a Pool of kept-alive connections per origin; the client Node's own
// fetch is built on), called directly: fetch wrote a request's headers and body in separate
// system calls, and its streams cost more (docs/performance.md, "Smaller choices, measured").
// Idle connections are closed after 4 s, as fetch's were, long before a server drops them
// (elementsd after 30 s), so a call seldom goes out on a connection being closed; one that does
// fails as unreachable, and its caller treats it as any lost call.
import type { LookupFunction } from 'node:net'
import { Agent } from 'undici'

export type UpstreamReply = { status: number; ok: boolean; text: string; header: (name: string) => string | null }

export type UpstreamRequest = {
  method: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  /** Read no more of the reply than this; the rest is dropped with its connection (a receiver's reply is not ours to store). */
  maxReplyBytes?: number
  /** 'refuse' (upstreams): a redirect fails the call, as fetch's redirect: 'error'; 'answer' (webhooks): it is an answer like any status, never followed. */
  redirects?: 'refuse' | 'answer'
  /** This call's time-out, when not the client's. */
  timeoutMs?: number
}

/** The way to call upstreams, each call whole (reply included) within `timeoutMs`, or failed. */
export function createKeepAliveHttp(options: { timeoutMs: number; /** How a new connection finds its addresses, when not the system's. */ lookup?: LookupFunction }) {
  // HTTP/1.1 only, as before: a receiver offering HTTP/2 is not asked to speak it.
  const agent = new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000, allowH2: false, ...(options.lookup ? { connect: { lookup: options.lookup } } : {}) })

  /** Answers the status and the whole reply, or fails: unreachable, lost, cut off, redirected, or not whole within the time-out. */
  async function call(url: URL, request: UpstreamRequest): Promise<UpstreamReply> {
    const timeoutMs = request.timeoutMs ?? options.timeoutMs
    const abort = new AbortController()
    const timer = setTimeout(() => abort.abort(new Error(`timeout: no answer within ${timeoutMs} ms`)), timeoutMs)
    try {
      const reply = await agent.request({
        origin: url.origin, path: `${url.pathname}${url.search}`, method: request.method, headers: request.headers, body: request.body, signal: abort.signal,
      })
      const status = reply.statusCode
      // Never followed: an upstream that moves is misconfigured.
      if (status >= 300 && status < 400 && request.redirects !== 'answer') {
        reply.body.destroy()
        throw new Error(`redirected (HTTP ${status})`)
      }
      const chunks: Buffer[] = []
      let read = 0
      for await (const chunk of reply.body as AsyncIterable<Buffer>) {
        chunks.push(chunk)
        read += chunk.byteLength
        if (request.maxReplyBytes !== undefined && read >= request.maxReplyBytes) {
          reply.body.destroy()
          break
        }
      }
      const headers = reply.headers
      return {
        status,
        ok: status >= 200 && status < 300,
        text: Buffer.concat(chunks).toString('utf8'),
        header: (name) => {
          const value = headers[name.toLowerCase()]
          return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
        },
      }
    } finally {
      clearTimeout(timer)
    }
  }

  return { call }
}
