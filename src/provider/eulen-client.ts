// HTTP client for Eulen's DePix API (docs/rules.md#eulen-api). Tolerant of the envelope variants
// the public clients report; never repeats POST /deposit (asynchronous replies are polled at the
// urlResponse they name).
import { randomUUID } from 'node:crypto'
import { createKeepAliveHttp, type UpstreamReply } from '../net/keep-alive-http.ts'
import type { ProviderDeposit, ProviderPayout, ProviderStatus } from '../domain/provider-report.ts'
import { asRecord, integer, parseProviderDeposit, parseProviderPayout, providerSentence, text } from './eulen-replies.ts'
import {
  ProviderBusyError,
  ProviderRejectedError,
  ProviderReplyLostError,
  ProviderUnavailableError,
  type CreateDepositRequest,
  type CreatedDeposit,
  type PaymentProvider,
  type PayoutRequest,
  type ProviderUserInfo,
} from './provider.ts'

export type EulenClientOptions = {
  baseUrl: string
  token: string
  timeoutMs: number
}

type Reply = { status: number; body: Record<string, unknown> | null; retryAfterSeconds: number | null }

/** When the provider says "too many requests" without saying how long to wait. */
const DEFAULT_RETRY_AFTER_SECONDS = 60

/** First wait before polling an asynchronous reply's urlResponse; it doubles up to 2 s. */
const ASYNC_POLL_MS = 100
/** The longest we follow an asynchronous reply, whatever expiration it states. */
const ASYNC_WAIT_MS = 30_000

export function createEulenClient(options: EulenClientOptions): PaymentProvider {
  const base = options.baseUrl.replace(/\/+$/, '')
  // The service's one outgoing client (net/keep-alive-http.ts), not fetch: see why there.
  const http = createKeepAliveHttp({ timeoutMs: options.timeoutMs })
  const baseOrigin = new URL(base).origin

  /** `path` below the base URL, or an absolute URL the provider gave us (the token goes only to its own origin). */
  async function call(method: 'GET' | 'POST', path: string, body?: unknown, nonce?: string): Promise<Reply> {
    const url = new URL(/^https?:\/\//.test(path) ? path : `${base}${path}`)
    const ownOrigin = url.origin === baseOrigin
    let response: UpstreamReply
    try {
      response = await http.call(url, {
        method,
        headers: {
          ...(ownOrigin ? { authorization: `Bearer ${options.token}` } : {}),
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(nonce ? { 'x-nonce': nonce } : {}),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    } catch (error) {
      throw new ProviderReplyLostError(`provider unreachable: ${(error as Error).message}`, { cause: error })
    }
    let parsed: Record<string, unknown> | null = null
    try {
      parsed = asRecord(JSON.parse(response.text))
    } catch {
      parsed = null
    }
    const retryAfter = response.header('retry-after')
    return { status: response.status, body: parsed, retryAfterSeconds: retryAfter !== null && /^\d{1,6}$/.test(retryAfter) ? Number(retryAfter) : null }
  }

  /**
   * A failed reply: 429 is "not now" (nothing was done; the merchant retries after the wait, never
   * a refusal); 401/403 mean our own credentials are wrong (the operator's problem, not the
   * merchant's); other 5xx are the provider being unavailable, except that Eulen refuses a
   * deposit with 520, and in practice 500, carrying its sentence: that is a refusal the merchant
   * can act on. Everything else the provider refused.
   */
  function fail(reply: Reply, call: 'deposit' | 'withdraw' | 'read'): never {
    const sentence = providerSentence(reply.body)
    const message = sentence ?? `provider answered HTTP ${reply.status}`
    if (reply.status === 429) throw new ProviderBusyError(message, reply.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS)
    const ours = reply.status === 401 || reply.status === 403
    const depositRefused = call !== 'read' && sentence !== null && (reply.status === 500 || reply.status === 520)
    if (ours || (reply.status >= 500 && reply.status !== 520 && !depositRefused)) throw new ProviderUnavailableError(message)
    throw new ProviderRejectedError(message, reply.status)
  }

  /** The `response` object of a 2xx reply; a 2xx that carries an errorMessage is a refusal all the same. */
  function payload(reply: Reply): Record<string, unknown> {
    const response = asRecord(reply.body?.response)
    const refusal = text(response?.errorMessage) ?? text(reply.body?.errorMessage)
    if (refusal !== null) throw new ProviderRejectedError(refusal, reply.status)
    if (!response) throw new ProviderUnavailableError('provider reply has no response object')
    return response
  }

  /**
   * The deposit a 2xx reply describes: in the envelope's `response`, or, as some asynchronous
   * results come, bare. A reply that describes none may still stand for a deposit the provider
   * made: it is a lost reply (looked up before the merchant is answered), never "unavailable",
   * after which a merchant's retry would make a second deposit.
   */
  function createdDeposit(reply: Reply): CreatedDeposit {
    const response = asRecord(reply.body?.response)
    const refusal = text(response?.errorMessage) ?? text(reply.body?.errorMessage)
    if (refusal !== null) throw new ProviderRejectedError(refusal, reply.status)
    for (const candidate of [response, reply.body]) {
      const id = text(candidate?.id)
      const qrCopyPaste = text(candidate?.qrCopyPaste)
      // A deposit just made waits for its payment: `pending` in Eulen's words.
      if (id && qrCopyPaste) return { id, qrCopyPaste, statusText: 'pending', payerEuid: text(candidate?.payerEUID) ?? text(candidate?.payerEuid) }
    }
    throw new ProviderReplyLostError('the provider\'s deposit reply names no deposit we can read')
  }

  async function awaitAsyncReply(first: Record<string, unknown>): Promise<Reply> {
    const url = text(first.urlResponse)
    if (!url || !/^https?:\/\//.test(url)) throw new ProviderReplyLostError('provider answered asynchronously without a urlResponse to follow')
    const stated = Date.parse(text(first.expiration) ?? '')
    const deadline = Number.isNaN(stated) ? Date.now() + ASYNC_WAIT_MS : Math.min(stated, Date.now() + ASYNC_WAIT_MS)
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(ASYNC_POLL_MS * 2 ** attempt, 2_000)))
      const reply = await call('GET', url)
      // Not there yet: the result is still being made.
      if (reply.status === 404 || reply.status === 202 || (reply.status >= 200 && reply.status < 300 && reply.body?.async === true)) continue
      return reply
    }
    throw new ProviderReplyLostError('the provider did not finish the deposit before its urlResponse expired')
  }

  return {
    /**
     * POST /deposit is sent once. An asynchronous reply ({async: true, urlResponse, expiration})
     * is followed by polling urlResponse until the result arrives or the expiration passes;
     * the deposit is never posted again.
     */
    async createDeposit(request: CreateDepositRequest): Promise<CreatedDeposit> {
      let reply = await call('POST', '/deposit', request, randomUUID())
      if (reply.status >= 200 && reply.status < 300 && reply.body?.async === true) reply = await awaitAsyncReply(reply.body)
      if (reply.status < 200 || reply.status >= 300) fail(reply, 'deposit')
      return createdDeposit(reply)
    },

    async depositStatus(id: string): Promise<ProviderDeposit> {
      const reply = await call('GET', `/deposit-status?id=${encodeURIComponent(id)}`)
      if (reply.status < 200 || reply.status >= 300) fail(reply, 'read')
      return parseProviderDeposit(payload(reply))
    },

    async listDeposits(start: Date, end: Date, status?: ProviderStatus): Promise<ProviderDeposit[]> {
      const query = `start=${encodeURIComponent(start.toISOString())}&end=${encodeURIComponent(end.toISOString())}${status ? `&status=${status}` : ''}`
      const reply = await call('GET', `/deposits?${query}`)
      if (reply.status < 200 || reply.status >= 300) fail(reply, 'read')
      // The list comes as `response` itself, or inside it as `deposits`, depending on the version.
      const response = reply.body?.response
      const list = Array.isArray(response) ? response : asRecord(response)?.deposits
      if (!Array.isArray(list)) {
        payload(reply)
        throw new ProviderUnavailableError('provider deposit list is not a list')
      }
      return list.flatMap((item) => {
        try {
          return [parseProviderDeposit(item)]
        } catch {
          return []
        }
      })
    },

    async ping(): Promise<void> {
      const reply = await call('GET', '/ping')
      if (reply.status < 200 || reply.status >= 300) fail(reply, 'read')
    },

    /**
     * POST /withdraw, once, with our nonce. An asynchronous reply is followed as a deposit's is;
     * a reply we cannot read is a lost reply: the caller looks the payout up by its nonce and
     * never posts again.
     */
    async createPayout(request: PayoutRequest): Promise<ProviderPayout> {
      const body = {
        pixKey: request.pixKey,
        taxNumber: request.taxNumber,
        ...('depositAmountInCents' in request ? { depositAmountInCents: request.depositAmountInCents } : { payoutAmountInCents: request.payoutAmountInCents }),
      }
      let reply = await call('POST', '/withdraw', body, request.nonce)
      if (reply.status >= 200 && reply.status < 300 && reply.body?.async === true) reply = await awaitAsyncReply(reply.body)
      if (reply.status < 200 || reply.status >= 300) fail(reply, 'withdraw')
      const refusal = text(asRecord(reply.body?.response)?.errorMessage) ?? text(reply.body?.errorMessage)
      if (refusal !== null) throw new ProviderRejectedError(refusal, reply.status)
      for (const candidate of [asRecord(reply.body?.response), reply.body]) {
        if (text(candidate?.withdrawalId) !== null || text(candidate?.id) !== null) return parseProviderPayout(candidate)
      }
      throw new ProviderReplyLostError('the provider\'s withdraw reply names no payout we can read')
    },

    async payoutStatus(withdrawalId: string): Promise<ProviderPayout> {
      const reply = await call('GET', `/withdraw-status?id=${encodeURIComponent(withdrawalId)}`)
      if (reply.status < 200 || reply.status >= 300) fail(reply, 'read')
      return parseProviderPayout(payload(reply))
    },

    async findPayoutByNonce(nonce: string): Promise<ProviderPayout | null> {
      const reply = await call('GET', `/withdraw-status?nonce=${encodeURIComponent(nonce)}`)
      if (reply.status === 404) return null
      if (reply.status < 200 || reply.status >= 300) fail(reply, 'read')
      return parseProviderPayout(payload(reply))
    },

    async userInfo(euid: string): Promise<ProviderUserInfo | null> {
      const reply = await call('GET', `/user-info?euid=${encodeURIComponent(euid)}`)
      if (reply.status === 404 || reply.status === 400) return null
      if (reply.status < 200 || reply.status >= 300) fail(reply, 'read')
      const response = payload(reply)
      return {
        isBlocked: response.isBlocked === true,
        dailyVolumeInCents: integer(response.dailyVolumeInCents),
        maxDailyInCents: integer(response.maxDailyInCents),
      }
    },
  }
}
