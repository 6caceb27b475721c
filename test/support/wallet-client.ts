// A minimal browser for Wallet tests over Fastify's inject: keeps cookies, reads the CSRF token
// of the last page, submits forms as a browser does (urlencoded), follows nothing by itself.
import type { Service } from '../../src/service.ts'

export type WalletPage = { status: number; html: string; location: string | undefined; headers: Record<string, unknown> }

export function walletClient(service: Service, remoteAddress = '127.0.0.1') {
  const jar = new Map<string, string>()
  let csrf = ''

  async function request(method: 'GET' | 'POST', url: string, form?: Record<string, string>): Promise<WalletPage> {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await service.app.inject({
      method,
      url,
      remoteAddress,
      headers: { ...(cookie ? { cookie } : {}), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { payload: new URLSearchParams(form).toString() } : {}),
    })
    for (const set of response.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      if (set.value === '' || set.maxAge === 0 || (set.expires && set.expires.getTime() < Date.now())) jar.delete(set.name)
      else jar.set(set.name, set.value)
    }
    const found = /name="_csrf" value="([^"]+)"/.exec(response.body)
    if (found) csrf = found[1]!
    return { status: response.statusCode, html: response.body, location: response.headers.location as string | undefined, headers: response.headers }
  }

  return {
    jar,
    get: (url: string) => request('GET', url),
    /** Posts a form with the CSRF token of the last page seen (unless `_csrf` is given). */
    post: (url: string, form: Record<string, string> = {}) => request('POST', url, { _csrf: csrf, ...form }),
    postWithoutCsrf: (url: string, form: Record<string, string> = {}) => request('POST', url, form),
  }
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
