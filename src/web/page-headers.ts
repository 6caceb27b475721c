// The security headers of every page for people (the Wallet, the console, the public payment
// pages): a strict Content-Security-Policy (our own stylesheet, script and images only, the console
// no script at all; nothing inline; no framing), and HSTS when the service is served over https.
import type { FastifyHelmetOptions } from '@fastify/helmet'

export function pageHelmetOptions(secure: boolean, referrer: 'same-origin' | 'no-referrer' = 'same-origin', scripts = true): FastifyHelmetOptions {
  const own = scripts ? "'self'" : "'none'"
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: [own],
        scriptSrc: [own],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        ...(scripts ? { connectSrc: ["'self'"] } : {}),
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: referrer },
    hsts: secure,
  }
}

/**
 * The same headers as pageHelmetOptions makes helmet set, computed once: for the public payment
 * pages, which a payer's browser reloads every few seconds, helmet's per-request work was a
 * good part of a cached page's cost. A test holds them equal to the Wallet's.
 */
export function pageSecurityHeaders(secure: boolean, referrer: 'same-origin' | 'no-referrer'): Record<string, string> {
  return {
    'content-security-policy': "default-src 'self';script-src 'self';style-src 'self';img-src 'self';connect-src 'self';form-action 'self';frame-ancestors 'none';base-uri 'none';object-src 'none'",
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'origin-agent-cluster': '?1',
    'referrer-policy': referrer,
    ...(secure ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
    'x-content-type-options': 'nosniff',
    'x-dns-prefetch-control': 'off',
    'x-download-options': 'noopen',
    'x-frame-options': 'DENY',
    'x-permitted-cross-domain-policies': 'none',
    'x-xss-protection': '0',
  }
}
