// HTTP calls out of the service (the provider's API, the treasury node, merchants' webhooks) over
// node:http with kept-alive connections rather than fetch, which wrote a request's headers and
// body in separate system calls (docs/performance.md, "Smaller choices, measured").
// Idle connections are closed after 4 s, as fetch's were, long before a server drops them
// (elementsd after 30 s), so a call seldom goes out on a connection being closed; one that does
// fails as unreachable, and its caller treats it as any lost call.
import { Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'

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
  const connecting = { keepAlive: true, timeout: 4_000, ...(options.lookup ? { lookup: options.lookup } : {}) }
  const agents = { http: new HttpAgent(connecting), https: new HttpsAgent(connecting) }

  /** Answers the status and the whole reply, or fails: unreachable, lost, cut off, redirected, or not whole within the time-out. */
  function call(url: URL, request: UpstreamRequest): Promise<UpstreamReply> {
    const secure = url.protocol === 'https:'
    return new Promise((resolve, reject) => {
      const body = request.body
      const outgoing = (secure ? httpsRequest : httpRequest)(url, {
        method: request.method,
        agent: secure ? agents.https : agents.http,
        headers: { ...request.headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
      }, (reply) => {
        const status = reply.statusCode ?? 0
        // Never followed: an upstream that moves is misconfigured.
        if (status >= 300 && status < 400 && request.redirects !== 'answer') {
          reply.resume()
          fail(new Error(`redirected (HTTP ${status})`))
          return
        }
        const chunks: Buffer[] = []
        let read = 0
        const answer = () => {
          clearTimeout(timer)
          const headers = reply.headers
          resolve({
            status,
            ok: status >= 200 && status < 300,
            text: Buffer.concat(chunks).toString('utf8'),
            header: (name) => {
              const value = headers[name.toLowerCase()]
              return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
            },
          })
        }
        reply.on('data', (chunk: Buffer) => {
          chunks.push(chunk)
          read += chunk.byteLength
          if (request.maxReplyBytes !== undefined && read >= request.maxReplyBytes) {
            answer()
            reply.destroy()
          }
        })
        reply.on('error', fail)
        reply.on('close', () => {
          if (!reply.complete) fail(new Error('the reply was cut off'))
        })
        reply.on('end', answer)
      })
      const timeoutMs = request.timeoutMs ?? options.timeoutMs
      const timer = setTimeout(() => outgoing.destroy(new Error(`timeout: no answer within ${timeoutMs} ms`)), timeoutMs)
      function fail(error: Error): void {
        clearTimeout(timer)
        reject(error)
      }
      outgoing.on('error', fail)
      // The headers and the body in one write.
      outgoing.end(body)
    })
  }

  return { call }
}
