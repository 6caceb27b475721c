// The security headers of every page for people (the Wallet, the public payment pages): a strict
// Content-Security-Policy (our own stylesheet, script and images only; nothing inline; no
// framing), and HSTS when the service is served over https.
import type { FastifyHelmetOptions } from '@fastify/helmet'

export function pageHelmetOptions(secure: boolean, referrer: 'same-origin' | 'no-referrer' = 'same-origin'): FastifyHelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
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
