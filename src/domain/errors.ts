// The error catalogue: every stable code the service answers with and its HTTP status.
// Integrations branch on `code`; what each code says to a person, in each language, is in
// src/i18n/ (the API's `error` field is the English text, or the error's own detail).

export const errorCatalogue = {
  // authentication and authorization (docs/rules.md#error-codes)
  token_missing: { status: 401 },
  token_not_found: { status: 401 },
  token_pending: { status: 403 },
  token_inactive: { status: 403 },
  merchant_id_missing: { status: 403 },
  kyc_purchase_required: { status: 403 },
  kyc_identity_unidentified: { status: 403 },
  // request shape
  invalid_json: { status: 400 },
  invalid_request: { status: 400 },
  unsupported_media_type: { status: 415 },
  body_too_large: { status: 413 },
  url_too_long: { status: 414 },
  request_timeout: { status: 408 },
  headers_too_large: { status: 431 },
  // create-payment fields
  value_invalid: { status: 400 },
  value_out_of_range: { status: 400 },
  email_invalid: { status: 400 },
  swap_to_invalid: { status: 400 },
  payer_identity_required: { status: 400 },
  tax_number_invalid: { status: 400 },
  euid_invalid: { status: 400 },
  euid_required: { status: 400 },
  euid_unknown: { status: 400 },
  payer_limit_exceeded: { status: 400 },
  name_invalid: { status: 400 },
  csrf_invalid: { status: 403 },
  wallet_code_invalid: { status: 400 },
  payer_name_required: { status: 400 },
  payer_name_invalid: { status: 400 },
  webhook_url_invalid: { status: 400 },
  return_url_invalid: { status: 400 },
  display_name_invalid: { status: 400 },
  payment_link_invalid: { status: 400 },
  webhook_secret_invalid: { status: 400 },
  webhook_events_invalid: { status: 400 },
  metadata_invalid: { status: 400 },
  idempotency_key_invalid: { status: 400 },
  end_user_blocked: { status: 403 },
  // withdrawals (docs/rules.md#error-codes)
  destination_invalid: { status: 400 },
  destination_unpayable: { status: 400 },
  destination_exists: { status: 409 },
  destination_not_found: { status: 404 },
  destination_not_confirmed: { status: 409 },
  destination_cooling_down: { status: 409 },
  destination_canceled: { status: 409 },
  destination_currency_invalid: { status: 400 },
  currency_invalid: { status: 400 },
  amount_invalid: { status: 400 },
  amount_below_minimum: { status: 400 },
  amount_above_maximum: { status: 400 },
  insufficient_funds: { status: 409 },
  withdrawal_limit_exceeded: { status: 409 },
  withdrawal_not_allowed: { status: 403 },
  withdrawal_not_found: { status: 404 },
  withdrawal_not_cancelable: { status: 409 },
  withdrawal_not_in_review: { status: 409 },
  payout_mismatch_unpayable: { status: 409 },
  action_code_invalid: { status: 400 },
  action_code_burned: { status: 400 },
  // lookups and conflicts
  payment_not_found: { status: 404 },
  webhook_delivery_not_found: { status: 404 },
  payment_link_not_found: { status: 404 },
  payment_link_closed: { status: 410 },
  not_found: { status: 404 },
  account_not_found: { status: 404 },
  account_exists: { status: 409 },
  identity_taken: { status: 409 },
  idempotency_key_reused: { status: 409 },
  idempotency_key_in_use: { status: 409 },
  provider_webhook_unauthorized: { status: 401 },
  token_not_pending: { status: 409 },
  payment_not_held: { status: 409 },
  payment_not_cancelable: { status: 409 },
  quote_unavailable: { status: 409 },
  quote_out_of_band: { status: 409 },
  paid_amount_required: { status: 409 },
  second_operator_required: { status: 409 },
  payment_taken_back: { status: 409 },
  payment_not_taken_back: { status: 409 },
  refund_not_found: { status: 404 },
  // merchant refunds (docs/rules.md#merchant-refund-rules)
  payment_not_refundable: { status: 409 },
  refund_window_closed: { status: 409 },
  refund_exceeds_paid: { status: 409 },
  payer_key_unknown: { status: 409 },
  refund_not_owed: { status: 409 },
  refund_payer_unknown: { status: 409 },
  refund_payout_in_progress: { status: 409 },
  refund_payout_not_found: { status: 404 },
  refund_payout_not_in_review: { status: 409 },
  refund_payout_signed: { status: 409 },
  // operators
  ops_token_missing: { status: 401 },
  ops_token_invalid: { status: 401 },
  operator_forbidden: { status: 403 },
  // second factors (docs/design.md, "Second factors")
  step_up_required: { status: 403 },
  second_factor_invalid: { status: 400 },
  second_factor_required: { status: 403 },
  // limits, upstream and the unexpected
  rate_limited: { status: 429 },
  provider_rejected: { status: 422 },
  provider_unavailable: { status: 503 },
  service_unavailable: { status: 503 },
  internal_error: { status: 500 },
} as const satisfies Record<string, { status: number }>

export type ErrorCode = keyof typeof errorCatalogue

const walletCodes: readonly ErrorCode[] = ['display_name_invalid', 'kyc_purchase_required', 'kyc_identity_unidentified', 'name_invalid', 'csrf_invalid', 'wallet_code_invalid', 'account_exists', 'destination_invalid', 'destination_unpayable', 'destination_exists', 'action_code_invalid', 'action_code_burned', 'destination_canceled', 'step_up_required', 'second_factor_invalid', 'second_factor_required']
const operatorCodes: readonly ErrorCode[] = [
  'ops_token_missing', 'ops_token_invalid', 'operator_forbidden', 'provider_webhook_unauthorized', 'token_not_pending', 'payment_not_held', 'quote_unavailable', 'account_not_found', 'identity_taken',
  'quote_out_of_band', 'paid_amount_required', 'second_operator_required', 'payment_taken_back', 'payment_not_taken_back', 'refund_not_owed', 'withdrawal_not_in_review',
  'refund_payer_unknown', 'refund_payout_in_progress', 'refund_payout_not_found', 'refund_payout_not_in_review', 'refund_payout_signed',
  'payout_mismatch_unpayable',
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
  /** What this occurrence says beyond the code's own text (which field, what the provider answered); English unless localized. */
  readonly detail: string | undefined
  /** The detail is already in the reader's language (a page's); otherwise pages show the code's own text. */
  readonly localized: boolean

  constructor(code: ErrorCode, options: { message?: string | undefined; param?: string; retryAfterSeconds?: number; localized?: boolean } = {}) {
    super(options.message ?? code)
    this.detail = options.message
    this.name = 'DomainError'
    this.code = code
    this.status = errorCatalogue[code].status
    this.param = options.param
    this.retryAfterSeconds = options.retryAfterSeconds
    this.localized = options.localized ?? false
  }
}
