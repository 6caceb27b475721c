// The public payment pages (docs/payment-pages.md): /pay/{id} for every charge. No session, no
// cookie, no token: the charge's id (128 random bits) is the key, as for its QR image. Pages for
// people, kept out of /openapi.json; reads are counted per client address in memory.
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import { chargeWritesSoFar, paymentPage } from '../app/payment-page.ts'
import { buyFromLink, linkPage } from '../app/payment-links.ts'
import { formatBrl } from '../domain/money.ts'
import { LIMIT_WITHOUT_EUID_CENTS } from '../domain/payer-limits.ts'
import { createChargeDeps } from '../web/deps.ts'
import { DomainError } from '../domain/errors.ts'
import { errorText, langOf, payText, type Lang } from '../i18n/catalogue.ts'
import { createAddressWindows } from '../web/address-windows.ts'
import type { RouteDeps } from '../web/deps.ts'
import { sendError } from '../web/errors.ts'
import { pageError } from '../web/page-errors.ts'
import { sendPage as page } from '../web/page-shell.ts'
import { pageSecurityHeaders } from '../web/page-headers.ts'
import { createPageCache } from './page-cache.ts'
import { linkPageHtml, payErrorHtml, paymentPageHtml, type LinkForm } from './pages.ts'

export type PayDeps = Pick<RouteDeps, 'store' | 'clock' | 'config' | 'provider' | 'webhookDestinations'>

/** QRs one address may ask of payment links in 10 minutes: a payer retrying a typo is well within it. */
export const LINK_QRS_PER_ADDRESS = 5
const TEN_MINUTES_MS = 600_000

const langOfRequest = (request: FastifyRequest): Lang => langOf((request.query as { lang?: unknown } | undefined)?.lang === 'en' ? 'en' : undefined)

export const payRoutes: FastifyPluginAsync<PayDeps> = async (app, deps) => {
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true }
  })
  // The Wallet's security headers, computed once; the charge id is in the page's address, so it
  // is not handed as a referrer to the store a payer goes back to.
  const securityHeaders = pageSecurityHeaders(deps.config.baseUrl.startsWith('https://'), 'no-referrer')
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(securityHeaders)
    done()
  })
  await app.register(formbody, { bodyLimit: 4096 })

  // Page views per address a minute, as the public QR image counts them (RATE_LIMIT_PER_MINUTE, 600
  // unless set; 0 switches it off): a payer's page reloads itself every 5 s and its script asks
  // every 3 s, about 32 a minute, so many payers behind one address (a shop's Wi-Fi) get room.
  const views = createAddressWindows({ limit: deps.config.rateLimitPerMinute, windowMs: 60_000 })
  const countView = (request: FastifyRequest) => {
    const wait = views.wait(request.ip)
    if (wait > 0) throw new DomainError('rate_limited', { message: `Too many requests; retry in ${wait} seconds.`, retryAfterSeconds: wait })
    views.count(request.ip)
  }

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { mapped } = pageError(error, request, reply, 'payment page')
    if (request.url.split('?')[0]!.endsWith('/status')) return sendError(reply, mapped, { docsUrl: deps.config.docsUrl, supportEmail: deps.config.supportEmail })
    const lang = langOfRequest(request)
    return page(reply, payErrorHtml(lang, mapped.code === 'payment_not_found' || mapped.code === 'payment_link_not_found', errorText(mapped.code, lang), request.url.split('?')[0]!), mapped.status)
  })

  const rendered = createPageCache(deps.config.payPageCacheMs)
  /** The page (or the status) of a charge, from the cache while it holds; only found charges are kept. */
  const cached = async (key: string, render: () => Promise<string>) => {
    const clockMs = deps.clock.now().getTime()
    const writes = chargeWritesSoFar(deps)
    const hit = rendered.get(key, clockMs, writes)
    if (hit !== undefined) return hit
    const body = await render()
    rendered.set(key, body, clockMs, writes)
    return body
  }

  app.get<{ Params: { id: string } }>('/pay/:id', async (request, reply) => {
    countView(request)
    const lang = langOfRequest(request)
    return page(reply, await cached(`${lang} ${request.params.id}`, async () => paymentPageHtml(lang, await paymentPage(deps, request.params.id))))
  })

  // What the page's script follows: the phase only, so it reloads when the page would change.
  app.get<{ Params: { id: string } }>('/pay/:id/status', async (request, reply) => {
    countView(request)
    const body = await cached(`status ${request.params.id}`, async () => JSON.stringify({ phase: (await paymentPage(deps, request.params.id)).phase }))
    return reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(body)
  })

  app.get<{ Params: { slug: string } }>('/l/:slug', async (request, reply) => {
    countView(request)
    return page(reply, linkPageHtml(langOfRequest(request), await linkPage({ ...deps, payerLadder: deps.config.payerLadder }, request.params.slug)))
  })

  // "Gerar Pix": the only way a link makes a QR. A refusal shows the form again, as typed, saying why.
  const linkQrs = createAddressWindows({ limit: LINK_QRS_PER_ADDRESS, windowMs: TEN_MINUTES_MS })
  app.post<{ Params: { slug: string } }>('/l/:slug', async (request, reply) => {
    countView(request)
    const lang = langOfRequest(request)
    const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>
    const text = (name: string, max: number) => (typeof body[name] === 'string' ? (body[name] as string).slice(0, max) : '')
    const form: LinkForm = { name: text('name', 100), taxNumber: text('tax_number', 32), amount: text('amount', 16), error: null }
    const view = await linkPage({ ...deps, payerLadder: deps.config.payerLadder }, request.params.slug)
    const refuse = (error: DomainError) => {
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds))
      reply.header('x-error-code', error.code)
      const busy = error.code === 'provider_unavailable' || error.code === 'rate_limited'
      const message = busy
        ? payText(lang, 'linkTryLater')
        : error.code === 'euid_required'
          ? payText(lang, 'linkOverLimit', { newLimit: formatBrl(LIMIT_WITHOUT_EUID_CENTS) })
          : errorText(error.code, lang)
      return page(reply, linkPageHtml(lang, view, { ...form, error: { code: error.code, message } }), error.status)
    }
    const wait = linkQrs.wait(request.ip)
    if (wait > 0) return refuse(new DomainError('rate_limited', { retryAfterSeconds: wait }))
    try {
      if (form.name.trim() === '') throw new DomainError('payer_name_invalid', { param: 'name' })
      const created = await buyFromLink(createChargeDeps(deps, request.log), {
        slug: request.params.slug, payerName: form.name, taxNumber: form.taxNumber, amount: view.amountCents === null ? form.amount : undefined,
      })
      // Counted once a QR was made: a payer correcting a typo spends nothing of the address's.
      linkQrs.count(request.ip)
      return reply.redirect(`/pay/${created.id}${lang === 'en' ? '?lang=en' : ''}`, 303)
    } catch (error) {
      if (!(error instanceof DomainError) || (error.status >= 500 && error.code !== 'provider_unavailable')) throw error
      return refuse(error)
    }
  })
}
