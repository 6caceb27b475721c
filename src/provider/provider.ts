// What the service needs from the payment provider. The production adapter speaks Eulen's DePix
// API over HTTP; the sandbox points the same adapter at a fake of that API.
import type { ProviderDeposit, ProviderPayout, ProviderStatus } from '../domain/provider-report.ts'

export type CreateDepositRequest = {
  amountInCents: number
  /** The merchant's EUID; absent for an account owner's own purchase, which is no merchant's charge. */
  merchantId?: string
  /** An identified payer; otherwise endUserTaxNumber (with the name, when known). */
  euid?: string
  endUserTaxNumber?: string
  endUserFullName?: string
  /** Hours the provider holds the DePix after payment; Eulen requires a floor on merchant charges. */
  delayDepixInHours?: number
}

export type CreatedDeposit = {
  id: string
  qrCopyPaste: string
  /** The new deposit's status as the provider writes it, kept on the charge. */
  statusText: string
  /** The payer's EUID when the provider already knows the tax number the charge named (docs/rules.md#payer-identity). */
  payerEuid: string | null
}

export type ProviderUserInfo = {
  isBlocked: boolean
  dailyVolumeInCents: number | null
  maxDailyInCents: number | null
}

/**
 * A Pix-out: the provider pays `pixKey` once it receives DePix at the address it answers; we say
 * either what we send (`depositAmountInCents`, its fee comes out of what the key receives) or what
 * the key must receive (`payoutAmountInCents`, its fee is added to what we send).
 */
export type PayoutRequest = {
  /** Ours, stored before the call: the provider's idempotency key for it, and how a lost reply is found. */
  nonce: string
  pixKey: string
  /** The key owner's CPF/CNPJ (the account owner's own, or the payer's for a refund). */
  taxNumber: string
} & ({ depositAmountInCents: number } | { payoutAmountInCents: number })

export interface PaymentProvider {
  createDeposit(request: CreateDepositRequest): Promise<CreatedDeposit>
  depositStatus(id: string): Promise<ProviderDeposit>
  /** Deposits created between `start` and `end`, in one status when given (the provider answers at most 200). */
  listDeposits(start: Date, end: Date, status?: ProviderStatus): Promise<ProviderDeposit[]>
  /** Null when the provider does not know the EUID. */
  userInfo(euid: string): Promise<ProviderUserInfo | null>
  /** Resolves when the provider answers GET /ping with our credentials. */
  ping(): Promise<void>
  /** POST /withdraw, once: never repeated, whatever happens to the reply. */
  createPayout(request: PayoutRequest): Promise<ProviderPayout>
  payoutStatus(withdrawalId: string): Promise<ProviderPayout>
  /** The payout made with this nonce, after a lost reply; null when the provider knows none. */
  findPayoutByNonce(nonce: string): Promise<ProviderPayout | null>
}

/** The provider could not be reached or failed on its side; the outcome is unknown or retryable. */
export class ProviderUnavailableError extends Error {
  override name = 'ProviderUnavailableError'
}

/** The provider (or our own share of its limits) says "not now": nothing was done; retry after the time given. */
export class ProviderBusyError extends ProviderUnavailableError {
  override name = 'ProviderBusyError'
  readonly retryAfterSeconds: number
  constructor(message: string, retryAfterSeconds: number) {
    super(message)
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/** We asked, but no answer came (network failure, time-out): what the provider did is unknown. */
export class ProviderReplyLostError extends ProviderUnavailableError {
  override name = 'ProviderReplyLostError'
}

/** The provider answered and refused (validation, compliance, rejection). */
export class ProviderRejectedError extends Error {
  override name = 'ProviderRejectedError'
  readonly httpStatus: number
  constructor(message: string, httpStatus: number) {
    super(message)
    this.httpStatus = httpStatus
  }
}
