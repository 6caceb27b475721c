// A typed client for the merchant API. Creation always carries an Idempotency-Key, so the one
// retry it makes (a 429 or 503 that says when, with Retry-After) can never create a second charge,
// withdrawal or refund.
import { randomUUID } from 'node:crypto'
import type {
  BalanceRecord,
  BalanceTransaction,
  BalanceTransactionList,
  ChargeCreated,
  ChargeRecord,
  CreatePaymentRequest,
  CreateRefundRequest,
  CreateWithdrawalRequest,
  DestinationList,
  ErrorBody,
  ListBalanceTransactionsQuery,
  ListedCharge,
  ListPaymentsQuery,
  ListWithdrawalsQuery,
  PaymentList,
  RefundList,
  RefundRecord,
  WebhookDeliveries,
  WithdrawalList,
  WithdrawalRecord,
} from './types.ts'

export type ClientOptions = {
  /** Where the service runs, such as "https://pix.example". */
  baseUrl: string
  /** The API token issued in the Wallet. */
  token: string
  /** How many times a 429 or 503 with Retry-After is retried; 2 when omitted. */
  maxRetries?: number
  /** The longest Retry-After honoured, in seconds; a longer wait fails at once. 60 when omitted. */
  maxRetryAfterSeconds?: number
  /** Per attempt; 30 s when omitted. */
  timeoutMs?: number
  fetch?: typeof fetch
  /** How to wait before a retry; a test may pass its own. */
  sleep?: (ms: number) => Promise<void>
}

/** A failure the service answered: branch on `code`, quote `requestId` to support. */
export class PixChargeError extends Error {
  readonly status: number
  readonly code: string
  readonly param: string | undefined
  readonly requestId: string | undefined
  readonly docsUrl: string | undefined
  /** Seconds the service asked to wait, from Retry-After. */
  readonly retryAfterSeconds: number | undefined

  constructor(status: number, body: Partial<ErrorBody>, retryAfterSeconds: number | undefined) {
    super(body.error ?? `HTTP ${status}`)
    this.name = 'PixChargeError'
    this.status = status
    this.code = body.code ?? 'unknown'
    this.param = body.param
    this.requestId = body.request_id
    this.docsUrl = body.docs_url
    this.retryAfterSeconds = retryAfterSeconds
  }
}

function retryAfterOf(header: string | null): number | undefined {
  if (header === null || !/^\d+$/.test(header.trim())) return undefined
  return Number(header.trim())
}

const idempotencyHeader = (key: string | undefined) => ({ 'idempotency-key': key ?? randomUUID() })

/** A list's filters as a query string, the ones left undefined out. */
function querySuffix(query: ListPaymentsQuery | ListWithdrawalsQuery | ListBalanceTransactionsQuery): string {
  const search = new URLSearchParams(Object.entries(query).filter(([, value]) => value !== undefined).map(([key, value]) => [key, String(value)]))
  return search.size > 0 ? `?${search}` : ''
}

export class PixChargeClient {
  readonly #options: Required<Omit<ClientOptions, 'fetch' | 'sleep'>> & Pick<ClientOptions, 'fetch' | 'sleep'>

  constructor(options: ClientOptions) {
    this.#options = { maxRetries: 2, maxRetryAfterSeconds: 60, timeoutMs: 30_000, ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') }
  }

  /** Creates a QR charge. Pass your own idempotencyKey (an order id) to make retries across restarts safe too. */
  createPayment(body: CreatePaymentRequest, options: { idempotencyKey?: string } = {}): Promise<ChargeCreated> {
    return this.#request('POST', '/api/create-payment', { body, headers: idempotencyHeader(options.idempotencyKey) })
  }

  getPayment(id: string): Promise<ChargeRecord> {
    return this.#request('GET', `/api/get-payment/${encodeURIComponent(id)}`)
  }

  /** Cancels a charge still waiting_payment (a canceled one answers the same). A payer may still pay its QR until expiresAt: that payment is credited as any late one. */
  cancelPayment(id: string): Promise<ChargeRecord> {
    return this.#request('POST', `/api/payments/${encodeURIComponent(id)}/cancel`)
  }

  listPayments(query: ListPaymentsQuery = {}): Promise<PaymentList> {
    return this.#request('GET', `/api/payments${querySuffix(query)}`)
  }

  /** Every charge matching the query, newest first, fetching page after page. */
  async *eachPayment(query: Omit<ListPaymentsQuery, 'cursor'> = {}): AsyncGenerator<ListedCharge> {
    let cursor: string | undefined
    do {
      const page = await this.listPayments({ ...query, ...(cursor === undefined ? {} : { cursor }) })
      yield* page.payments
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
  }

  getBalance(): Promise<BalanceRecord> {
    return this.#request('GET', '/api/get-balance')
  }

  /** One page of the account's statement, newest first. */
  listBalanceTransactions(query: ListBalanceTransactionsQuery = {}): Promise<BalanceTransactionList> {
    return this.#request('GET', `/api/balance-transactions${querySuffix(query)}`)
  }

  /** Every statement line matching the query, newest first, fetching page after page. */
  async *eachBalanceTransaction(query: Omit<ListBalanceTransactionsQuery, 'cursor'> = {}): AsyncGenerator<BalanceTransaction> {
    let cursor: string | undefined
    do {
      const page = await this.listBalanceTransactions({ ...query, ...(cursor === undefined ? {} : { cursor }) })
      yield* page.balance_transactions
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
  }

  listWebhookDeliveries(paymentId?: string): Promise<WebhookDeliveries> {
    return this.#request('GET', `/api/webhook-deliveries${paymentId === undefined ? '' : `?payment_id=${encodeURIComponent(paymentId)}`}`)
  }

  /** Sends a webhook event again now, with the same body and webhook-id. */
  redeliverWebhook(eventId: string): Promise<{ id: string; state: 'pending' }> {
    return this.#request('POST', `/api/webhook-deliveries/${encodeURIComponent(eventId)}/redeliver`)
  }

  /**
   * Withdrawals of the available balance, only to destinations the owner added and confirmed in
   * the Wallet: a token can send money out but never to a new place.
   */
  readonly withdrawals = {
    /** Pass your own idempotencyKey (a payout id of yours) to make retries across restarts safe too. */
    create: (body: CreateWithdrawalRequest, options: { idempotencyKey?: string } = {}): Promise<WithdrawalRecord> =>
      this.#request('POST', '/api/withdrawals', { body, headers: idempotencyHeader(options.idempotencyKey) }),
    list: (query: ListWithdrawalsQuery = {}): Promise<WithdrawalList> => this.#request('GET', `/api/withdrawals${querySuffix(query)}`),
    get: (id: string): Promise<WithdrawalRecord> => this.#request('GET', `/api/withdrawals/${encodeURIComponent(id)}`),
    /** The account's destinations; only `active` ones can receive. */
    destinations: (): Promise<DestinationList> => this.#request('GET', '/api/withdrawal-destinations'),
  }

  /**
   * Refunds (devolução) of a credited payment to its payer's own CPF/CNPJ, paid from the balance
   * with the provider's Pix-out fee on top; several partial ones give back at most what was paid.
   */
  readonly refunds = {
    /** `amount` in BRL ("10.00"), all that is left when omitted. Pass your own idempotencyKey (a return id of yours) to make retries across restarts safe too. */
    create: (paymentId: string, body: CreateRefundRequest = {}, options: { idempotencyKey?: string } = {}): Promise<RefundRecord> =>
      this.#request('POST', `/api/payments/${encodeURIComponent(paymentId)}/refunds`, { body, headers: idempotencyHeader(options.idempotencyKey) }),
    /** A payment's refunds, oldest first. */
    list: (paymentId: string): Promise<RefundList> => this.#request('GET', `/api/payments/${encodeURIComponent(paymentId)}/refunds`),
    get: (id: string): Promise<RefundRecord> => this.#request('GET', `/api/refunds/${encodeURIComponent(id)}`),
  }

  async #request<T>(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<T> {
    const fetchFn = this.#options.fetch ?? fetch
    const sleep = this.#options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
    for (let attempt = 0; ; attempt++) {
      const response = await fetchFn(`${this.#options.baseUrl}${path}`, {
        method,
        headers: {
          'x-api-token': this.#options.token,
          accept: 'application/json',
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        signal: AbortSignal.timeout(this.#options.timeoutMs),
      })
      const text = await response.text()
      if (response.ok) return JSON.parse(text) as T
      let body: Partial<ErrorBody> = {}
      try {
        body = JSON.parse(text) as Partial<ErrorBody>
      } catch {
        // Not our answer (a proxy's page): the status says enough.
      }
      const retryAfter = retryAfterOf(response.headers.get('retry-after'))
      const error = new PixChargeError(response.status, body, retryAfter)
      // Retried only when the service said when: a 429 (nothing done) or a 503 (nothing done, or
      // the same Idempotency-Key finds what was).
      const retryable = (response.status === 429 || response.status === 503) && retryAfter !== undefined && retryAfter <= this.#options.maxRetryAfterSeconds
      if (!retryable || attempt >= this.#options.maxRetries) throw error
      await sleep(retryAfter * 1000)
    }
  }
}
