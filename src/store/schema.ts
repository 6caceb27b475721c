// Kysely table types; they mirror migrations/. int8 columns arrive as number (see database.ts).
import type { ColumnType, Generated, Selectable } from 'kysely'
import type { ChargeStatus, HoldReason, WebhookEventName, WebhookEventState } from '../domain/charge.ts'
import type { ChargeMetadata } from '../domain/charge-request.ts'
import type { ClawbackKind } from '../domain/clawback.ts'
import type { AccountKyc } from '../domain/payer-binding.ts'
import type { Book } from '../domain/ledger.ts'
import type { Currency } from '../domain/money.ts'
import type { MerchantRefundFailure, MerchantRefundStatus } from '../domain/merchant-refund.ts'
import type { PayoutFailure, PayoutRail, PayoutStatus } from '../domain/payout.ts'
import type { DestinationType, FailureCode, ReviewReason, WithdrawalStatus } from '../domain/withdrawal.ts'

type Json = ColumnType<unknown, string, string>


export type AccountsTable = {
  id: Generated<number>
  email: string
  owner_tax_number: string | null
  owner_name: string | null
  euid: string | null
  kyc: ColumnType<AccountKyc, AccountKyc | undefined, AccountKyc>
  created_at: Date
  /** The IANA time zone the owner's dates are shown in (CSV, Wallet); the API answers UTC instants. */
  time_zone: ColumnType<string, string | undefined, string>
  /** The name payers see on the payment page; null names nobody. */
  display_name: ColumnType<string | null, string | null | undefined, string | null>
  /** Mail the owner when any charge is paid, held or released (charges from links always do unless their link says not to). */
  notify_sales: ColumnType<boolean, boolean | undefined, boolean>
  /** The language of mail sent while the owner is away: the one last chosen in the Wallet. */
  language: ColumnType<'pt-BR' | 'en', 'pt-BR' | 'en' | undefined, 'pt-BR' | 'en'>
}

export type TokenStatus = 'active' | 'pending' | 'revoked'

export type ApiTokensTable = {
  id: string
  account_id: number
  token_hash: string
  status: TokenStatus
  merchant_id: string | null
  expires_at: Date | null
  created_at: Date
  revoked_at: Date | null
  last4: ColumnType<string | null, string | null | undefined, string | null>
  last_used_at: ColumnType<Date | null, Date | null | undefined, Date | null>
}

export type IdentityKind = 'euid' | 'tax_number'

export type IdentityBindingsTable = {
  kind: IdentityKind
  value: string
  account_id: number
  bound_at: Date
}

export type BlockKind = 'email' | 'tax_number' | 'euid'

export type BlocksTable = {
  id: Generated<number>
  kind: BlockKind
  value: string
  reason: string
  charge_id: string | null
  created_by: string
  created_at: Date
}

export type ChargesTable = {
  id: string
  merchant_account_id: number
  /** Null for an account owner's identity purchase, which is no merchant's charge. */
  merchant_id: string | null
  account_id: number
  value_cents: number
  currency: Currency
  informed_euid: string | null
  informed_tax_number: string | null
  informed_payer_name: string | null
  webhook_url: string | null
  webhook_secret: string | null
  provider_deposit_id: string
  qr_copy_paste: string
  status: ChargeStatus
  provider_status: string
  payer_name: string | null
  payer_tax_number: string | null
  payer_euid: string | null
  confirmed_at: Date | null
  created_at: Date
  expires_at: Date
  updated_at: Date
  hold_reason: ColumnType<HoldReason | null, HoldReason | null | undefined, HoldReason | null>
  /** The price the credit converted at, in micro-reais (10^-6 BRL). */
  quote_micros: ColumnType<number | null, number | null | undefined, number | null>
  credited_units: ColumnType<number | null, number | null | undefined, number | null>
  release_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** What arrived, from the provider's depix_sent report (or support, when it never said); the credit is computed from it. */
  paid_cents: ColumnType<number | null, number | null | undefined, number | null>
  paid_source: ColumnType<'provider' | 'support' | 'charge_value' | null, 'provider' | 'support' | 'charge_value' | null | undefined, 'provider' | 'support' | 'charge_value' | null>
  /** DEPIX centavos the provider took back (MEDs, refunded), and what that took from the account. */
  taken_back_cents: ColumnType<number, number | undefined, number>
  taken_back_units: ColumnType<number, number | undefined, number>
  /** The latest claw-back the provider reported on this charge. */
  clawback: ColumnType<ClawbackKind | null, ClawbackKind | null | undefined, ClawbackKind | null>
  /** The provider said it took back everything (a MED without an amount, its `refunded`). */
  taken_back_all: ColumnType<boolean, boolean | undefined, boolean>
  /** The provider reported it returns the payment itself (will_refund, refunded). */
  provider_returning: ColumnType<boolean, boolean | undefined, boolean>
  bank_tx_id: ColumnType<string | null, string | null | undefined, string | null>
  blockchain_tx_id: ColumnType<string | null, string | null | undefined, string | null>
  quote_source: ColumnType<'override' | 'ticker' | null, 'override' | 'ticker' | null | undefined, 'override' | 'ticker' | null>
  quote_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** Opt-in webhook events beyond the spec's two (docs/rules.md#webhook-events). */
  webhook_events: ColumnType<WebhookEventName[], WebhookEventName[] | undefined, WebhookEventName[]>
  /** The merchant's labels (written as JSON text); null when it sent none. */
  metadata: ColumnType<ChargeMetadata | null, string | null | undefined, never>
  /** Where the payment page's "Voltar à loja" leads once the charge is over; null shows no link. */
  return_url: ColumnType<string | null, string | null | undefined, string | null>
  /** The payment link the payer bought through; null for any other charge. */
  payment_link_id: ColumnType<string | null, string | null | undefined, string | null>
  /** What the merchant's refunds not failed give back, in centavos, and the part of their units taken from the hold (docs/rules.md#merchant-refund-amounts). */
  refunded_cents: ColumnType<number, number | undefined, number>
  refunded_held_units: ColumnType<number, number | undefined, number>
  /** What MEDs took back after the merchant refunded it in full: the service's loss ("refunded, then disputed"). */
  refund_dispute_loss_cents: ColumnType<number, number | undefined, number>
}

export type PaymentLinksTable = {
  id: string
  slug: string
  account_id: number
  title: string
  description: string | null
  /** A fixed amount; null for an open one between min_cents and max_cents. */
  amount_cents: number | null
  min_cents: number | null
  max_cents: number | null
  currency: Currency
  expires_at: Date | null
  max_uses: number | null
  active: ColumnType<boolean, boolean | undefined, boolean>
  /** Mail the owner about this link's sales. */
  notify_sales: ColumnType<boolean, boolean | undefined, boolean>
  created_at: Date
  deactivated_at: ColumnType<Date | null, Date | null | undefined, Date | null>
}

export type AuditLogTable = {
  id: Generated<number>
  actor: string
  action: string
  subject: string
  details: Json
  at: Date
}

export type IdempotencyKeysTable = {
  account_id: number
  key: string
  request_hash: string
  state: 'in_flight' | 'done'
  response_status: number | null
  response_body: Json | null
  created_at: Date
  lease_until: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** The id of the record the request makes (a charge's, a withdrawal's), fixed before it is made. */
  subject_id: ColumnType<string | null, string | null | undefined, string | null>
}

export type JobsTable = {
  id: Generated<number>
  kind: string
  payload: Json
  run_at: Date
  attempts: Generated<number>
  locked_until: Date | null
  last_error: string | null
  created_at: Date
  /** payload.destination, generated: deliveries are claimed per destination. */
  destination: ColumnType<string | null, never, never>
}


export type LedgerPostingsTable = {
  id: Generated<number>
  key: string
  charge_id: string | null
  withdrawal_id: ColumnType<string | null, string | null | undefined, string | null>
  kind: string
  created_at: Date
}

export type LedgerEntriesTable = {
  id: Generated<number>
  posting_id: number
  account_id: number | null
  book: Book
  currency: Currency
  amount: number
}

/** The operator's price overrides, each until it expires. */
export type QuotesTable = {
  currency: 'BTC' | 'USDt'
  brl_micros: number
  updated_at: Date
  expires_at: Date
}

/** The last price accepted per currency: fetched prices are checked against it. */
export type QuoteReferencesTable = {
  currency: 'BTC' | 'USDt'
  brl_micros: number
  source: string
  accepted_at: Date
}

export type ChargeClawbacksTable = {
  id: Generated<number>
  charge_id: string
  /** What makes a report the same report when it comes again. */
  report_key: string
  kind: ClawbackKind
  principal_cents: number | null
  /** The charge's running total taken back after this report. */
  taken_back_cents: number
  /** The charge's status when the report arrived. */
  charge_status: ChargeStatus
  report: Json
  reported_at: Date
}

/** A merchant's refund to a payer (docs/rules.md#merchant-refunds): priced when asked, paid by its payout. */
export type MerchantRefundsTable = {
  id: string
  charge_id: string
  account_id: number
  currency: Currency
  amount_cents: number
  fee_cents: number
  units: number
  held_units: number
  quote_micros: number | null
  brl_cents: number
  reason: string | null
  pix_key: string
  status: MerchantRefundStatus
  failure_code: ColumnType<MerchantRefundFailure | null, MerchantRefundFailure | null | undefined, MerchantRefundFailure | null>
  review_reason: ColumnType<string | null, string | null | undefined, string | null>
  network_fee_sats: ColumnType<number, number | undefined, number>
  deposit_cents: ColumnType<number | null, number | null | undefined, number | null>
  lang: ColumnType<'pt-BR' | 'en', 'pt-BR' | 'en' | undefined, 'pt-BR' | 'en'>
  created_by: string
  created_at: Date
  updated_at: Date
}

export type RefundStatus = 'owed' | 'paid' | 'taken_back'

export type RefundsTable = {
  id: string
  charge_id: string
  amount_cents: number
  owed_cents: number
  paid_by_us_cents: ColumnType<number, number | undefined, number>
  /** What the provider took back after we paid the payer: the service's loss. */
  loss_cents: ColumnType<number, number | undefined, number>
  payer_name: string | null
  payer_tax_number: string | null
  status: RefundStatus
  created_by: string
  created_at: Date
  settled_by: ColumnType<string | null, string | null | undefined, string | null>
  settled_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  reference: ColumnType<string | null, string | null | undefined, string | null>
  /** The provider's fee on a refund we paid by Pix-out (the service's cost, the payer gets all that is owed). */
  payout_fee_cents: ColumnType<number, number | undefined, number>
  /** What the transactions of this refund's payouts paid the network, in satoshis (the service's cost). */
  network_fee_sats: ColumnType<number, number | undefined, number>
}

export type ProviderSweepsTable = {
  status: string
  cursor_at: Date | null
  span_ms: number
}

export type WebhookEventsTable = {
  id: string
  /** The charge, or the withdrawal, the event is about: one of the two. */
  charge_id: string | null
  withdrawal_id: ColumnType<string | null, string | null | undefined, string | null>
  event: string
  body: string
  state: WebhookEventState
  attempts: Generated<number>
  created_at: Date
  delivered_at: Date | null
}

export type WebhookAttemptsTable = {
  id: Generated<number>
  event_id: string
  at: Date
  status_code: number | null
  duration_ms: number
  error: string | null
}

export type WalletSignup = { name: string; taxNumber: string }

export type WalletCodesTable = {
  id: Generated<number>
  email: string
  code_hash: string
  signup: ColumnType<WalletSignup | null, string | null, string | null>
  attempts: Generated<number>
  used_at: Date | null
  expires_at: Date
  created_at: Date
  requested_from: string
  /** Where its mail is: waiting to be sent, handed to the mail server, given up, or replaced by a newer code. */
  mail_state: ColumnType<MailState | null, MailState | null | undefined, MailState | null>
  /** What the code allows: signing in, confirming a destination, or confirming one withdrawal. */
  purpose: ColumnType<CodePurpose, CodePurpose | undefined, CodePurpose>
  /** The destination, or the withdrawal with its amount and destination, the code is bound to. */
  subject: ColumnType<string | null, string | null | undefined, string | null>
}

export type CodePurpose = 'sign_in' | 'destination' | 'withdrawal' | 'console_sign_in' | 'refund'

export type MailState = 'pending' | 'sent' | 'failed' | 'superseded'

export type MailOutboxTable = {
  id: Generated<number>
  code_id: number | null
  to_address: string
  /** The message, sealed with the deployment's key (mail/sealed-mail.ts). */
  sealed: string
  state: MailState
  attempts: Generated<number>
  last_error: ColumnType<string | null, string | null | undefined, string | null>
  last_attempt_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  created_at: Date
  /** Past it the message is worth nothing (its code expired) and is given up. */
  send_before: Date
  sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>
}

export type WalletSessionsTable = {
  id_hash: string
  account_id: number | null
  data: Json
  created_at: Date
  last_seen_at: Date
}

export type UnknownDepositsTable = {
  qr_id: string
  status: string
  value_cents: number | null
  payer_name: string | null
  payer_tax_number: string | null
  payer_euid: string | null
  bank_tx_id: string | null
  seen_by: string
  first_seen_at: Date
  last_seen_at: Date
}

export type AccountBalancesTable = {
  account_id: number
  book: Book
  currency: Currency
  amount: number
}

export type DestinationState = 'unconfirmed' | 'confirmed' | 'canceled'

export type WithdrawalDestinationsTable = {
  id: string
  account_id: number
  type: DestinationType
  value: string
  script_hex: string | null
  label: string | null
  state: DestinationState
  created_at: Date
  confirmed_at: Date | null
  usable_at: Date | null
  canceled_at: Date | null
  cancel_token_hash: string
}

type Later<T> = ColumnType<T | null, T | null | undefined, T | null>

export type WithdrawalsTable = {
  id: string
  account_id: number
  destination_id: string
  destination_type: DestinationType
  currency: Currency
  amount: number
  fee: number
  net_amount: number
  payout_cents: number | null
  brl_cents: number
  status: WithdrawalStatus
  review_reason: Later<ReviewReason>
  failure_code: Later<FailureCode>
  via: 'wallet' | 'api'
  lang: 'pt-BR' | 'en'
  webhook_url: string | null
  webhook_secret: string | null
  created_at: Date
  updated_at: Date
  confirmed_at: Later<Date>
  sent_at: Later<Date>
  completed_at: Later<Date>
}

/**
 * What a payout writes step by step toward the treasury and the provider (store/payouts.ts): each
 * written once, before the next step is taken.
 */
export type PayoutStepColumns = {
  psbt: Later<string>
  tx_hex: Later<string>
  txid: Later<string>
  /** The L-BTC network fee the signed transaction pays, stored with it. */
  network_fee_sats: Later<number>
  confirmations: Later<number>
  provider_nonce: Later<string>
  provider_withdrawal_id: Later<string>
  provider_deposit_address: Later<string>
  provider_deposit_cents: Later<number>
  provider_expires_at: Later<Date>
  provider_status: Later<string>
  provider_receipt_url: Later<string>
  /** What the Pix key receives, in the provider's word. */
  payout_cents: Later<number>
}

/** A movement out of the treasury (docs/treasury.md, "Payouts"), owned by a withdrawal or by a refund owed. */
export type PayoutsTable = {
  id: string
  withdrawal_id: string | null
  refund_id: string | null
  merchant_refund_id: ColumnType<string | null, string | null | undefined, string | null>
  rail: PayoutRail
  currency: Currency
  amount: number
  pix_key: string | null
  tax_number: string | null
  address: string | null
  status: PayoutStatus
  review_reason: Later<ReviewReason>
  failure_code: Later<PayoutFailure>
  created_by: string
  note: ColumnType<string, string | undefined, string>
  created_at: Date
  updated_at: Date
  sent_at: Later<Date>
  completed_at: Later<Date>
} & PayoutStepColumns

/** A support console session (docs/rules.md#sessions): stored hashed like the Wallet's, with the operator's e-mail once signed in. */
export type ConsoleSessionsTable = {
  id_hash: string
  operator_email: string | null
  data: Json
  created_at: Date
  last_seen_at: Date
}

/** What happened to a charge, for its timeline: each provider report as received, each change of status. */
export type ChargeEventsTable = {
  id: Generated<number>
  charge_id: string
  kind: 'report' | 'status'
  source: string | null
  from_status: string | null
  to_status: string | null
  body: ColumnType<unknown, string | null, string | null>
  at: Date
}

export type RateBucketsTable = {
  key: string
  tokens: number
  updated_at: Date
}

/** An amount typed beyond the tolerance for a held charge, waiting for a second operator. */
export type PaidAmountProposalsTable = {
  charge_id: string
  decision: 'release' | 'refund'
  paid_cents: number
  proposed_by: string
  note: string
  proposed_at: Date
}

export type ProviderChecksTable = {
  name: string
  checked_at: Date | null
  ok: boolean | null
  detail: string | null
  claimed_at: Date | null
}

export type Database = {
  accounts: AccountsTable
  api_tokens: ApiTokensTable
  identity_bindings: IdentityBindingsTable
  blocks: BlocksTable
  charges: ChargesTable
  idempotency_keys: IdempotencyKeysTable
  jobs: JobsTable
  ledger_postings: LedgerPostingsTable
  ledger_entries: LedgerEntriesTable
  quotes: QuotesTable
  audit_log: AuditLogTable
  webhook_events: WebhookEventsTable
  webhook_attempts: WebhookAttemptsTable
  wallet_codes: WalletCodesTable
  wallet_sessions: WalletSessionsTable
  unknown_deposits: UnknownDepositsTable
  account_balances: AccountBalancesTable
  rate_buckets: RateBucketsTable
  provider_checks: ProviderChecksTable
  quote_references: QuoteReferencesTable
  charge_clawbacks: ChargeClawbacksTable
  refunds: RefundsTable
  merchant_refunds: MerchantRefundsTable
  provider_sweeps: ProviderSweepsTable
  mail_outbox: MailOutboxTable
  withdrawal_destinations: WithdrawalDestinationsTable
  withdrawals: WithdrawalsTable
  payouts: PayoutsTable
  console_sessions: ConsoleSessionsTable
  charge_events: ChargeEventsTable
  paid_amount_proposals: PaidAmountProposalsTable
  second_factors: SecondFactorsTable
  recovery_codes: RecoveryCodesTable
  factor_removals: FactorRemovalsTable
  payment_links: PaymentLinksTable
}

export type SecondFactorsTable = {
  id: Generated<number>
  /** `account:<id>` or `operator:<e-mail>`. */
  holder: string
  kind: 'passkey' | 'totp'
  name: string
  credential_id: string | null
  /** The passkey's COSE public key, base64url. */
  public_key: string | null
  counter: number | null
  transports: ColumnType<string[] | null, string | null, string | null>
  totp_secret_sealed: string | null
  totp_last_step: number | null
  created_at: Date
  last_used_at: Date | null
}

export type RecoveryCodesTable = {
  id: Generated<number>
  holder: string
  code_hash: string
  created_at: Date
  used_at: Date | null
}

export type FactorRemovalsTable = {
  id: Generated<number>
  holder: string
  factor_id: number | null
  requested_by: string
  requested_at: Date
  effective_at: Date
  canceled_at: Date | null
  done_at: Date | null
}

export type SecondFactor = Selectable<SecondFactorsTable>
export type FactorRemoval = Selectable<FactorRemovalsTable>

export type Account = Selectable<AccountsTable>
export type WithdrawalDestination = Selectable<WithdrawalDestinationsTable>
export type Withdrawal = Selectable<WithdrawalsTable>
export type ApiToken = Selectable<ApiTokensTable>
export type Charge = Selectable<ChargesTable>
export type PaymentLink = Selectable<PaymentLinksTable>
export type Refund = Selectable<RefundsTable>
export type MerchantRefund = Selectable<MerchantRefundsTable>
export type Payout = Selectable<PayoutsTable>
export type ChargeClawback = Selectable<ChargeClawbacksTable>
