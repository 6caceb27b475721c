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

/** What every webhook POSTs. */
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

/** The error body every failure answers with. */
export type ErrorBody = {
  error: string
  code: string
  docs_url: string
  support_email: string
  request_id: string
  param?: string
}
