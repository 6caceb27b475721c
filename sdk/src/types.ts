// The merchant API's records, as /openapi.json names them (components.schemas). The service's
// tests compile these against types generated from the document, so they cannot drift apart.

export type Currency = 'DEPIX' | 'BTC' | 'USDt'

export type ChargeStatus =
  | 'waiting_payment'
  | 'pending'
  | 'under_review'
  | 'security_hold'
  | 'depix_sent'
  | 'canceled'
  | 'expired'
  | 'will_refund'
  | 'refunded'
  | 'after7d'
  | 'error'

export type WebhookEventName =
  | 'payment.confirmed'
  | 'balance.released'
  | 'payment.expired'
  | 'payment.held'
  | 'payment.under_review'
  | 'payment.refunded'
  | 'payment.disputed'

export type CreatePaymentRequest = {
  /** BRL as a decimal with a dot: "25.00". */
  value: string | number
  /** The account that receives the money. */
  email: string
  swap_to?: Currency
  euid?: string
  tax_number?: string
  payer_name?: string
  webhook_url?: string
  webhook_secret?: string
  /** Extra events besides payment.confirmed and balance.released, which are always sent. */
  webhook_events?: WebhookEventName[]
}

export type ChargeCreated = {
  id: string
  qrCopyPaste: string
  qrImageUrl: string
  expiresAt: string
  status: 'waiting_payment'
}

export type ChargeRecord = {
  qrId: string
  status: ChargeStatus
  payerName: string | null
  payerTaxNumber: string | null
  payerEuid: string | null
  /** centavos */
  amount: number
  /** What the payer paid, in centavos, as the provider reported it; null before payment. */
  paidAmount: number | null
  updatedAt: string
}

export type ListedCharge = ChargeRecord & { createdAt: string; expiresAt: string; swap_to: Currency }

export type PaymentList = { payments: ListedCharge[]; next_cursor: string | null }

export type ListPaymentsQuery = {
  status?: ChargeStatus
  /** ISO 8601, inclusive. */
  created_from?: string
  /** ISO 8601, exclusive. */
  created_to?: string
  /** 1 to 100; 20 when omitted. */
  limit?: number
  cursor?: string
}

export type BalanceRecord = {
  email: string
  balances: {
    /** Centavos, and the same as `R$ 1.234,56`. */
    DEPIX: { available_cents: number; available_brl: string }
    /** Satoshis, and the same in BTC with 8 decimals. */
    BTC: { available_sats: number; available_btc: string }
    /** Millionths of a USDt (10^-6, whatever the name says), and the same with 6 decimals. */
    USDt: { available_cents_USDt: number; available_USDt: string }
  }
}

export type WebhookDelivery = {
  id: string
  /** The charge the event is about; null for a withdrawal's. */
  payment_id: string | null
  /** The withdrawal the event is about; null for a charge's. */
  withdrawal_id: string | null
  event: string
  state: 'pending' | 'delivered' | 'failed' | 'gone'
  attempts: number
  created_at: string
  delivered_at: string | null
  attempt_log: Array<{ at: string; status_code: number | null; duration_ms: number; error: string | null }>
}

export type WebhookDeliveries = { deliveries: WebhookDelivery[] }

/** What every charge's webhook POSTs. */
export type WebhookEvent = {
  payment_id: string
  email: string
  /** centavos */
  value_in_cents: number
  /** What the payer paid, in centavos; null before payment. */
  paid_in_cents: number | null
  payer_euid: string | null
  event: WebhookEventName
  status: ChargeStatus
}

export type WithdrawalStatus = 'requested' | 'confirmed' | 'in_review' | 'sending' | 'sent' | 'completed' | 'failed' | 'canceled'

/** `pix`: a Pix key of the owner's own CPF/CNPJ (DEPIX only); `liquid`: a Liquid address. */
export type DestinationType = 'pix' | 'liquid'

export type CreateWithdrawalRequest = {
  /** DEPIX (to a Pix key or a Liquid address), BTC (L-BTC) or USDt (to a Liquid address). */
  currency: Currency
  /** In the currency's smallest unit, as balances are: centavos, satoshis, or 10^-6 USDt. */
  amount: number
  /** An `active` destination: confirmed in the Wallet and past its cool-down. */
  destination_id: string
  /** Where the service POSTs this withdrawal's changes (withdrawal.<status>). */
  webhook_url?: string
  webhook_secret?: string
}

export type WithdrawalRecord = {
  id: string
  status: WithdrawalStatus
  currency: Currency
  /** In the currency's smallest unit. */
  amount: number
  /** 2 % of DEPIX rounded up to the centavo; none on BTC and USDt. */
  fee: number
  /** What leaves the treasury: amount less fee. */
  net_amount: number
  /** Pix only: what the key receives after the provider's payout fee (1 %, at least R$ 1,00). */
  payout_cents: number | null
  destination: { id: string; type: DestinationType; masked: string }
  /** The Liquid transaction, once signed. */
  txid: string | null
  created_at: string
  updated_at: string
  /** Why it ended without paying (the amount went back to available). */
  failure_code: string | null
  /** Why it waits for support, while in_review. */
  review_reason: string | null
}

export type WithdrawalList = { withdrawals: WithdrawalRecord[]; next_cursor: string | null }

export type ListWithdrawalsQuery = Omit<ListPaymentsQuery, 'status'> & { status?: WithdrawalStatus }

export type DestinationRecord = {
  id: string
  type: DestinationType
  /** The key or address, partly hidden. */
  masked: string
  label: string | null
  /** Only `active` destinations receive withdrawals. */
  state: 'unconfirmed' | 'cooling_down' | 'active'
  /** When the cool-down ends. */
  usable_at: string | null
  created_at: string
}

export type DestinationList = { destinations: DestinationRecord[] }

/** What a withdrawal's webhooks POST, on each change of its status. */
export type WithdrawalWebhookEvent = {
  withdrawal_id: string
  email: string
  currency: Currency
  amount: number
  fee: number
  net_amount: number
  txid: string | null
  event: `withdrawal.${WithdrawalStatus}`
  status: WithdrawalStatus
  failure_code: string | null
}

/** Either webhook, told apart by `event`: for a URL that receives both. */
export type AnyWebhookEvent = WebhookEvent | WithdrawalWebhookEvent

/** The error body every failure answers with. */
export type ErrorBody = {
  error: string
  code: string
  docs_url: string
  support_email: string
  request_id: string
  param?: string
}
