// The public payment pages (docs/payment-pages.md): /pay/{id} for every charge. No session, no
// cookie, no token: the charge's id (128 random bits) is the key, as for its QR image. Pages for
// people, kept out of /openapi.json; reads are counted per client address in memory.
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import helmet from '@fastify/helmet'
import { paymentPage } from '../app/payment-page.ts'
import { DomainError } from '../domain/errors.ts'
import { errorText, langOf, type Lang } from '../i18n/catalogue.ts'
import { createAddressWindows } from '../http/address-windows.ts'
import type { RouteDeps } from '../http/deps.ts'
import { sendError } from '../http/errors.ts'
import { pageError } from '../http/page-errors.ts'
import { pageHelmetOptions } from '../http/page-headers.ts'
import { payErrorHtml, paymentPageHtml } from './pages.ts'

export type PayDeps = Pick<RouteDeps, 'store' | 'clock' | 'config'>

/**
 * Page views per address a minute: a payer's page reloads itself every 5 s and its script asks
 * every 3 s, about 32 a minute; several payers behind one address (a shop's Wi-Fi) get room.
 */
export const PAGE_VIEWS_PER_ADDRESS_PER_MINUTE = 240

const langOfRequest = (request: FastifyRequest): Lang => langOf((request.query as { lang?: unknown } | undefined)?.lang === 'en' ? 'en' : undefined)

export const payRoutes: FastifyPluginAsync<PayDeps> = async (app, deps) => {
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true }
  })
  // The charge id is in the page's address: it is not handed to the store a payer goes back to.
  await app.register(helmet, pageHelmetOptions(deps.config.baseUrl.startsWith('https://'), 'no-referrer'))

  const views = createAddressWindows({ limit: PAGE_VIEWS_PER_ADDRESS_PER_MINUTE, windowMs: 60_000 })
  const countView = (request: FastifyRequest) => {
    const wait = views.wait(request.ip)
    if (wait > 0) throw new DomainError('rate_limited', { message: `Too many requests; retry in ${wait} seconds.`, retryAfterSeconds: wait })
    views.count(request.ip)
  }
  const page = (reply: FastifyReply, body: string, status = 200) =>
    reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body)

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { mapped } = pageError(error, request, reply, 'payment page')
    if (request.url.split('?')[0]!.endsWith('/status')) return sendError(reply, mapped, { docsUrl: deps.config.docsUrl, supportEmail: deps.config.supportEmail })
    const lang = langOfRequest(request)
    return page(reply, payErrorHtml(lang, mapped.code === 'payment_not_found', errorText(mapped.code, lang), request.url.split('?')[0]!), mapped.status)
  })

  app.get<{ Params: { id: string } }>('/pay/:id', async (request, reply) => {
    countView(request)
    return page(reply, paymentPageHtml(langOfRequest(request), await paymentPage(deps, request.params.id)))
  })

  // What the page's script follows: the phase only, so it reloads when the page would change.
  app.get<{ Params: { id: string } }>('/pay/:id/status', async (request, reply) => {
    countView(request)
    const view = await paymentPage(deps, request.params.id)
    return reply.header('cache-control', 'no-store').send({ phase: view.phase })
  })
}
