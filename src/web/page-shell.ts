// The HTTP side of a site of pages for people (the Wallet, the console), set up one way inside the
// site's encapsulated part of the app: pages kept out of the OpenAPI documents, strict security
// headers, form bodies, a session cookie of the site's own signed under OPS_TOKEN, CSRF on every
// form; and the helpers each site's routes use to read a form and send a page.
import { createHmac } from 'node:crypto'
import type { FastifyInstance, FastifyReply } from 'fastify'
import cookie from '@fastify/cookie'
import csrf from '@fastify/csrf-protection'
import formbody from '@fastify/formbody'
import helmet from '@fastify/helmet'
import session, { type SessionStore } from '@fastify/session'
import { DomainError } from '../domain/errors.ts'
import type { Secrets } from '../secrets/seal.ts'
import { pageHelmetOptions } from './page-headers.ts'

export type PageSite = {
  /** The site's path: its cookie's path, and the name of its cookie and of its signing key. */
  prefix: '/wallet' | '/console'
  secure: boolean
  /** The console runs no script but its passkey pages' (docs/design.md, "Second factors"). */
  scripts: boolean
  bodyLimit: number
  opsTokens: Secrets
  sessions: SessionStore
}

export async function registerPageSite(app: FastifyInstance, site: PageSite): Promise<void> {
  const name = site.prefix.slice(1)
  // Pages for people, not API operations: kept out of /openapi.json.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true }
  })
  await app.register(helmet, pageHelmetOptions(site.secure, 'same-origin', site.scripts))
  await app.register(formbody, { bodyLimit: site.bodyLimit })
  await app.register(cookie)
  await app.register(session, {
    // Derived from the operator secret, so every instance of a deployment signs alike; cookies
    // signed under the previous one still open during a rotation.
    secret: site.opsTokens.map((token) => createHmac('sha256', token).update(`${name}-session-cookie`).digest('base64url')),
    cookieName: `${name}_session`,
    cookie: { path: site.prefix, httpOnly: true, sameSite: 'lax', secure: site.secure },
    saveUninitialized: false,
    store: site.sessions,
  })
  await app.register(csrf, {
    sessionPlugin: '@fastify/session',
    // Forms carry it as _csrf; the plugin's default would also read it from several headers.
    getToken: (request) => {
      const token = typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>)._csrf : undefined
      return typeof token === 'string' ? token : undefined
    },
  })
}

/** A page, never cached: it carries a CSRF token and the signed-in person's data. */
export function sendPage(reply: FastifyReply, body: string, status = 200) {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body)
}

/** A form field as text; anything else (missing, repeated, too long) is a bad request. */
export function field(body: unknown, name: string, max: number): string {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined
  if (typeof value !== 'string' || value.length > max) throw new DomainError('invalid_request', { param: name, message: `${name} is missing or too long.` })
  return value
}
