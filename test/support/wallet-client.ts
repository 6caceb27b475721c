// A minimal browser for Wallet tests: keeps cookies, reads the CSRF token of the last page, submits
// forms as a browser does (urlencoded), follows nothing by itself. Over Fastify's inject, or over
// HTTP to a service in another process (the production rehearsal).
import type { Service } from '../../src/service.ts'

export type WalletPage = { status: number; html: string; location: string | undefined; headers: Record<string, unknown> }

type Exchange = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload: string | undefined) =>
  Promise<{ status: number; html: string; headers: Record<string, unknown>; cookies: Array<{ name: string; value: string; expired: boolean }> }>

function browse(exchange: Exchange) {
  const jar = new Map<string, string>()
  let csrf = ''

  async function request(method: 'GET' | 'POST', url: string, form?: Record<string, string>): Promise<WalletPage> {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
    const headers = { ...(cookie ? { cookie } : {}), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) }
    const response = await exchange(method, url, headers, form ? new URLSearchParams(form).toString() : undefined)
    for (const set of response.cookies) {
      if (set.expired) jar.delete(set.name)
      else jar.set(set.name, set.value)
    }
    const found = /name="_csrf" value="([^"]+)"/.exec(response.html)
    if (found) csrf = found[1]!
    return { status: response.status, html: response.html, location: response.headers.location as string | undefined, headers: response.headers }
  }

  return {
    jar,
    get: (url: string) => request('GET', url),
    /** Posts a form with the CSRF token of the last page seen (unless `_csrf` is given). */
    post: (url: string, form: Record<string, string> = {}) => request('POST', url, { _csrf: csrf, ...form }),
    postWithoutCsrf: (url: string, form: Record<string, string> = {}) => request('POST', url, form),
  }
}

export function walletClient(service: Service, remoteAddress = '127.0.0.1') {
  return browse(async (method, url, headers, payload) => {
    const response = await service.app.inject({ method, url, remoteAddress, headers, ...(payload === undefined ? {} : { payload }) })
    const cookies = (response.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>).map((set) => ({
      name: set.name, value: set.value, expired: set.value === '' || set.maxAge === 0 || (set.expires !== undefined && set.expires.getTime() < Date.now()),
    }))
    return { status: response.statusCode, html: response.body, headers: response.headers, cookies }
  })
}

/** The same over HTTP, to a service listening at `baseUrl`. */
export function httpWalletClient(baseUrl: string) {
  return browse(async (method, url, headers, payload) => {
    const response = await fetch(new URL(url, baseUrl), { method, headers, redirect: 'manual', ...(payload === undefined ? {} : { body: payload }) })
    const cookies = response.headers.getSetCookie().map((set) => {
      const [pair = '', ...attributes] = set.split(';').map((part) => part.trim())
      const name = pair.slice(0, pair.indexOf('='))
      const value = pair.slice(pair.indexOf('=') + 1)
      const expires = attributes.find((attribute) => /^expires=/i.test(attribute))
      const expired = value === '' || attributes.some((attribute) => /^max-age=0$/i.test(attribute)) || (expires !== undefined && Date.parse(expires.slice(8)) < Date.now())
      return { name, value, expired }
    })
    return { status: response.status, html: await response.text(), headers: Object.fromEntries(response.headers), cookies }
  })
}

/** The sandbox outbox's newest code for an e-mail (notices without a code are passed over). */
export async function newestCode(service: Service, email: string): Promise<string> {
  const response = await service.app.inject({ method: 'GET', url: `/sandbox/outbox?email=${encodeURIComponent(email)}` })
  return (response.json() as { mails: Array<{ code: string | null }> }).mails.find((mail) => mail.code)!.code!
}

/** Signs an existing owner in through the pages, with the code from the sandbox outbox. */
export async function signedInClient(service: Service, email: string, remoteAddress?: string) {
  const client = walletClient(service, remoteAddress)
  await client.get('/wallet')
  await client.post('/wallet/sign-in', { email })
  await client.get(`/wallet/code?email=${encodeURIComponent(email)}`)
  await client.post('/wallet/code', { email, code: await newestCode(service, email) })
  return client
}
