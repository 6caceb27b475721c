// How the pages' stylesheets and scripts are served: each from a URL of its own, so a page's
// Content-Security-Policy can forbid inline code, and cached for an hour.
import type { FastifyInstance } from 'fastify'

const types = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' } as const

export function serveAsset(app: FastifyInstance, url: `/${string}.${keyof typeof types}`, body: string): void {
  const type = types[url.slice(url.lastIndexOf('.') + 1) as keyof typeof types]
  app.get(url, { schema: { hide: true } }, async (_request, reply) => reply.type(type).header('cache-control', 'public, max-age=3600').send(body))
}
