// The error catalogue: every stable code the service answers with, its HTTP status and the
// default human text. Integrations branch on `code`; the text may change.

export const errorCatalogue = {
  // authentication and authorization (spec section 7)
  token_missing: { status: 401, message: 'The X-API-Token header is missing.' },
  token_not_found: { status: 401, message: 'This API token does not exist. Issue a new one in the Wallet.' },
  token_pending: { status: 403, message: 'This API token is waiting for approval; support must activate it.' },
  token_inactive: { status: 403, message: 'This API token is inactive, revoked, replaced by a newer one or expired. Issue a new one in the Wallet.' },
  merchant_id_missing: { status: 403, message: 'This API token has no merchantId. Issue a new token in the Wallet.' },
  kyc_purchase_required: { status: 403, message: 'The account needs at least one confirmed purchase paid with its owner\'s own CPF/CNPJ before it can issue a token.' },
  kyc_identity_unidentified: { status: 403, message: 'The account has a purchase, but the provider did not return the payer EUID; only support can release it.' },
  // request shape
  invalid_json: { status: 400, message: 'The body is not valid JSON.' },
  invalid_request: { status: 400, message: 'The request is not valid.' },
  unsupported_media_type: { status: 415, message: 'Send the body as application/json.' },
  body_too_large: { status: 413, message: 'The body is too large.' },
  url_too_long: { status: 414, message: 'A part of the URL path is too long.' },
  request_timeout: { status: 408, message: 'The request did not arrive whole in time; send it again.' },
  headers_too_large: { status: 431, message: 'The request headers are too large.' },
  // create-payment fields
  value_invalid: { status: 400, message: 'value must be a decimal amount in BRL with a dot and at most two decimals, such as "10.50".' },
  value_out_of_range: { status: 400, message: 'value is outside the allowed range for this currency.' },
  email_invalid: { status: 400, message: 'email must be a valid e-mail address.' },
  swap_to_invalid: { status: 400, message: 'swap_to must be one of DEPIX, BTC, USDt.' },
  payer_identity_required: { status: 400, message: 'Send euid or tax_number to identify the payer.' },
  tax_number_invalid: { status: 400, message: 'tax_number must be a valid CPF (11 digits) or CNPJ (14 characters).' },
  euid_invalid: { status: 400, message: 'euid must be "EU" followed by 15 digits.' },
  euid_required: { status: 400, message: 'Charges above R$ 10,00 need the payer\'s euid (tax_number alone does not lift the limit).' },
  euid_unknown: { status: 400, message: 'The provider does not know this euid.' },
  payer_limit_exceeded: { status: 400, message: 'value is above this payer\'s current limit.' },
  name_invalid: { status: 400, message: 'name must be the full name (first and last), 3 to 100 characters.' },
  csrf_invalid: { status: 403, message: 'This form expired or did not come from our page; reload it and try again.' },
  wallet_code_invalid: { status: 400, message: 'The code is wrong, used or expired; ask for a new one.' },
  payer_name_required: { status: 400, message: 'The provider needs the payer\'s full name (payer_name) with tax_number.' },
  payer_name_invalid: { status: 400, message: 'payer_name must be the payer\'s full name, 1 to 100 printable characters.' },
  webhook_url_invalid: { status: 400, message: 'webhook_url must be an absolute http(s) URL.' },
  webhook_secret_invalid: { status: 400, message: 'webhook_secret must be 1 to 255 printable characters.' },
  webhook_events_invalid: {
    status: 400,
    message: 'webhook_events must list distinct event names (payment.expired, payment.held, payment.under_review, payment.refunded, payment.disputed) and needs a webhook_url.',
  },
  idempotency_key_invalid: { status: 400, message: 'Idempotency-Key must be 1 to 255 printable ASCII characters.' },
  end_user_blocked: { status: 403, message: 'This end user is blocked after a prior refund dispute (MED).' },
  // lookups and conflicts
  payment_not_found: { status: 404, message: 'No payment with this id for this account.' },
  webhook_delivery_not_found: { status: 404, message: 'No webhook delivery with this id for this account.' },
  not_found: { status: 404, message: 'Not found.' },
  account_not_found: { status: 404, message: 'No account with this e-mail.' },
  account_exists: { status: 409, message: 'An account with this e-mail already exists with another owner.' },
  identity_taken: { status: 409, message: 'This CPF/CNPJ or EUID already belongs to another account.' },
  idempotency_key_reused: { status: 409, message: 'This Idempotency-Key was already used with a different body.' },
  idempotency_key_in_use: { status: 409, message: 'A request with this Idempotency-Key is still being processed.' },
  provider_webhook_unauthorized: { status: 401, message: 'The provider webhook credentials are not valid.' },
  token_not_pending: { status: 409, message: 'This token is not waiting for activation.' },
  payment_not_held: { status: 409, message: 'This payment is not in security_hold.' },
  quote_unavailable: { status: 409, message: 'No sane quote is available for this currency (the price source is silent or far from the last accepted price); set an override before releasing.' },
  quote_out_of_band: { status: 409, message: 'This price is far from the last accepted one; send force: true if the market really moved.' },
  paid_amount_required: { status: 409, message: 'The provider never stated what arrived for this payment; send paid_cents, the amount that arrived.' },
  payment_taken_back: { status: 409, message: 'The provider took this payment back (or announced it will): it cannot be released, nor refunded by us.' },
  payment_not_taken_back: { status: 409, message: 'The provider has not taken this payment back; release or refund it instead.' },
  refund_not_found: { status: 404, message: 'No refund with this id.' },
  refund_not_owed: { status: 409, message: 'This refund is not owed any more.' },
  // operators
  ops_token_missing: { status: 401, message: 'Send Authorization: Bearer <operator token>.' },
  ops_token_invalid: { status: 401, message: 'The operator token is not valid.' },
  // limits, upstream and the unexpected
  rate_limited: { status: 429, message: 'Too many requests; retry after the time in Retry-After.' },
  provider_rejected: { status: 422, message: 'The payment provider refused the charge.' },
  provider_unavailable: { status: 503, message: 'The payment provider is unavailable; retry later.' },
  service_unavailable: { status: 503, message: 'The service cannot reach its database for a moment; retry after the time in Retry-After.' },
  internal_error: { status: 500, message: 'Something went wrong on our side; it was logged.' },
} as const satisfies Record<string, { status: number; message: string }>

export type ErrorCode = keyof typeof errorCatalogue

const walletCodes: readonly ErrorCode[] = ['kyc_purchase_required', 'kyc_identity_unidentified', 'name_invalid', 'csrf_invalid', 'wallet_code_invalid', 'account_exists']
const operatorCodes: readonly ErrorCode[] = [
  'ops_token_missing', 'ops_token_invalid', 'provider_webhook_unauthorized', 'token_not_pending', 'payment_not_held', 'quote_unavailable', 'account_not_found', 'identity_taken',
  'quote_out_of_band', 'paid_amount_required', 'payment_taken_back', 'payment_not_taken_back', 'refund_not_found', 'refund_not_owed',
]

/** Who meets a code: a merchant on the API, an account owner in the Wallet, or an operator or the provider. */
export function errorAudience(code: ErrorCode): 'merchant' | 'wallet' | 'operator' {
  return walletCodes.includes(code) ? 'wallet' : operatorCodes.includes(code) ? 'operator' : 'merchant'
}

export class DomainError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly param: string | undefined
  /** Sent as Retry-After when the client should wait before trying again. */
  readonly retryAfterSeconds: number | undefined
  /** The message is already in the reader's language (a page's); otherwise pages show the code's own text. */
  readonly localized: boolean

  constructor(code: ErrorCode, options: { message?: string | undefined; param?: string; retryAfterSeconds?: number; localized?: boolean } = {}) {
    super(options.message ?? errorCatalogue[code].message)
    this.name = 'DomainError'
    this.code = code
    this.status = errorCatalogue[code].status
    this.param = options.param
    this.retryAfterSeconds = options.retryAfterSeconds
    this.localized = options.localized ?? false
  }
}
