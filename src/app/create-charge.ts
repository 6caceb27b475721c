// POST /api/create-payment: check the rules, claim the idempotency key, ask the provider for a
// deposit outside any transaction, store the charge, answer the creation result.
import type { Clock } from '../clock.ts'
import { randomHexSource } from '../random-hex.ts'
import type { ChargeCreated } from '../contract/api.ts'
import { expiresAtFor } from '../domain/charge.ts'
import { parseChargeRequest, type ChargeRequest, type ChargeRequestInput } from '../domain/charge-request.ts'
import { DomainError } from '../domain/errors.ts'
import { payerLimitCents, type LadderStep } from '../domain/payer-limits.ts'
import { formatBrl } from '../domain/money.ts'
import {
  ProviderBusyError,
  ProviderRejectedError,
  ProviderReplyLostError,
  ProviderUnavailableError,
  type PaymentProvider,
} from '../provider/provider.ts'
import type { Charge } from '../store/schema.ts'
import { isUniqueViolation } from '../store/database.ts'
import type { Store } from '../store/store.ts'
import type { WebhookDestinations } from '../webhooks/destination.ts'
import { requestHash } from '../request-hash.ts'
import { withIdempotencyKey } from './idempotent-request.ts'

/** What a 503 tells the client to wait when the provider failed; with the same Idempotency-Key the retry is safe. */
export const RETRY_AFTER_PROVIDER_FAILURE_SECONDS = 5

export type CreateChargeDeps = {
  store: Store
  provider: PaymentProvider
  clock: Clock
  baseUrl: string
  payerLadder: readonly LadderStep[]
  /** Production: webhooks must be https. */
  publicWebhooksOnly: boolean
  /** And reach only the addresses it allows (public ones, in production). */
  webhookDestinations: WebhookDestinations
  /** delayDepixInHours for merchant charges (docs/rules.md#provider-delay); 0 sends none. */
  providerDelayHours?: number
  log?: { warn: (details: object, message: string) => void }
}

export type CreateChargeCommand = {
  /** merchantId null: the account owner's identity purchase (the Wallet's "Comprar DePix"). */
  merchant: { accountId: number; merchantId: string | null }
  body: ChargeRequestInput
  idempotencyKey?: string | undefined
  /** The payment link a payer bought through (its id is in the metadata too). */
  paymentLinkId?: string
}

/** The receiving account's id, if it exists yet, once the charge's e-mail and payer are known not to be blocked. */
async function checkPayer(deps: CreateChargeDeps, request: ChargeRequest): Promise<number | undefined> {
  // A returning e-mail (most are) answers its account and the blocks in one read.
  const known = await deps.store.accounts.findWithBlocks(request.email, { taxNumber: request.taxNumber, euid: request.euid })
  const blocked = known?.blocked ?? await deps.store.identities.blockedKinds({ email: request.email, taxNumber: request.taxNumber, euid: request.euid })
  if (blocked.length > 0) throw new DomainError('end_user_blocked')
  if (request.euid === null) return known?.accountId
  const info = await deps.provider.userInfo(request.euid)
  if (info === null) throw new DomainError('euid_unknown', { param: 'euid' })
  if (info.isBlocked) throw new DomainError('end_user_blocked')
  const history = await deps.store.charges.payerHistory(request.euid)
  const limit = payerLimitCents(true, history, deps.clock.now(), deps.payerLadder)
  if (request.valueCents > limit) {
    throw new DomainError('payer_limit_exceeded', {
      param: 'value',
      message: `value is above this payer's current limit of ${formatBrl(limit)}.`,
    })
  }
  return known?.accountId
}

/**
 * The reply to POST /deposit was lost (time-out, dropped connection): the deposit may exist. Look
 * for it before answering, and keep what is found for support: the list carries no QR code, so
 * the deposit cannot be handed to the merchant, and its QR was never shown to anyone.
 */
async function lookForLostDeposit(deps: CreateChargeDeps, amountCents: number, askedAt: Date): Promise<void> {
  try {
    const around = await deps.provider.listDeposits(new Date(askedAt.getTime() - 60_000), new Date(deps.clock.now().getTime() + 60_000))
    const candidates = around.filter((deposit) => deposit.valueInCents === amountCents)
    const ours = new Set((await deps.store.charges.findByDepositIds(candidates.map((deposit) => deposit.qrId))).map((charge) => charge.provider_deposit_id))
    for (const deposit of candidates) if (!ours.has(deposit.qrId)) await deps.store.unknownDeposits.record(deposit, 'lost_reply', deps.clock.now())
  } catch (error) {
    deps.log?.warn({ err: error }, 'could not look for a deposit whose creation reply was lost')
  }
}

async function createDeposit(deps: CreateChargeDeps, merchantId: string | null, request: ChargeRequest) {
  const askedAt = deps.clock.now()
  try {
    return await deps.provider.createDeposit({
      amountInCents: request.valueCents,
      ...(merchantId === null ? {} : { merchantId }),
      ...(merchantId !== null && (deps.providerDelayHours ?? 0) > 0 ? { delayDepixInHours: deps.providerDelayHours } : {}),
      ...(request.euid !== null
        ? { euid: request.euid }
        : { endUserTaxNumber: request.taxNumber!, ...(request.payerName ? { endUserFullName: request.payerName } : {}) }),
    })
  } catch (error) {
    if (error instanceof ProviderRejectedError) {
      // The provider wants the payer's full name with a tax number. It has no machine code, only a
      // sentence: a refusal of a tax-number charge sent without a name, whose sentence is about the
      // name, gets the code the merchant can act on.
      if (request.euid === null && !request.payerName && /nome|name/i.test(error.message)) {
        throw new DomainError('payer_name_required', { param: 'payer_name', message: `The payment provider refused the charge (${error.message}). Send payer_name, the payer's full name, with tax_number.` })
      }
      throw new DomainError('provider_rejected', { message: `The payment provider refused the charge: ${error.message}` })
    }
    // "Not now", from the provider (429) or from our share of its limits: nothing was made.
    if (error instanceof ProviderBusyError) throw new DomainError('provider_unavailable', { retryAfterSeconds: error.retryAfterSeconds })
    if (error instanceof ProviderUnavailableError) {
      // Only a reply that never came can hide a deposit; a provider that answered "unavailable" made none.
      if (error instanceof ProviderReplyLostError) await lookForLostDeposit(deps, request.valueCents, askedAt)
      throw new DomainError('provider_unavailable', { retryAfterSeconds: RETRY_AFTER_PROVIDER_FAILURE_SECONDS })
    }
    throw error
  }
}

function creationResult(deps: CreateChargeDeps, charge: Pick<Charge, 'id' | 'qr_copy_paste' | 'expires_at'>): ChargeCreated {
  return {
    id: charge.id,
    qrCopyPaste: charge.qr_copy_paste,
    qrImageUrl: `${deps.baseUrl}/api/qr/${charge.id}.png`,
    payUrl: payUrlOf(deps.baseUrl, charge.id),
    expiresAt: charge.expires_at.toISOString(),
    status: 'waiting_payment',
  }
}

/** The public payment page of a charge (docs/payment-pages.md). */
export function payUrlOf(baseUrl: string, chargeId: string): string {
  return `${baseUrl}/pay/${chargeId}`
}

/** A new charge's id: 16 random bytes in hex, unguessable, as its QR image's public URL carries it. */
const newChargeId = randomHexSource(16)

/**
 * Asks the provider and stores the charge. With a claimed idempotency key, the key's answer is
 * stored with the charge when it can be (`keyAnswered`); otherwise the caller stores it.
 */
async function createUnclaimed(deps: CreateChargeDeps, command: CreateChargeCommand, request: ChargeRequest, id: string, key?: string): Promise<{ created: ChargeCreated; keyAnswered: boolean }> {
  if (request.webhookUrl !== null) await deps.webhookDestinations.check(new URL(request.webhookUrl))
  // No account came with the blocks: the e-mail is new, so it is created without reading it again.
  const receivingId = (await checkPayer(deps, request)) ?? (await deps.store.accounts.create(request.email, deps.clock.now())).id
  const deposit = await createDeposit(deps, command.merchant.merchantId, request)

  const createdAt = deps.clock.now()
  const expiresAt = expiresAtFor(createdAt)
  const created = creationResult(deps, { id, qr_copy_paste: deposit.qrCopyPaste, expires_at: expiresAt })
  const insert = () => deps.store.charges.open({
      id,
      merchant_account_id: command.merchant.accountId,
      merchant_id: command.merchant.merchantId,
      account_id: receivingId,
      value_cents: request.valueCents,
      currency: request.currency,
      informed_euid: request.euid,
      informed_tax_number: request.taxNumber,
      informed_payer_name: request.payerName,
      webhook_url: request.webhookUrl,
      webhook_secret: request.webhookSecret,
      webhook_events: request.webhookEvents,
      metadata: request.metadata === null ? null : JSON.stringify(request.metadata),
      return_url: request.returnUrl,
      payment_link_id: command.paymentLinkId ?? null,
      provider_deposit_id: deposit.id,
      // The provider may already know who the tax number is (docs/rules.md#payer-identity): shown before payment.
      payer_euid: request.euid === null ? deposit.payerEuid : null,
      qr_copy_paste: deposit.qrCopyPaste,
      status: 'waiting_payment',
      provider_status: deposit.statusText,
      created_at: createdAt,
      expires_at: expiresAt,
      updated_at: createdAt,
    },
    // Time-driven work is queued with the charge itself, so it survives restarts: one job, due at
    // the expiry, which then asks the provider on reconciliation's schedule (reconcile-charge.ts).
    [{ kind: 'reconcile_charge', payload: { chargeId: id }, runAt: expiresAt }],
    key === undefined ? undefined : { accountId: command.merchant.accountId, key, body: created },
  )
  try {
    await insert()
    return { created, keyAnswered: key !== undefined }
  } catch (error) {
    // Another owner of the same idempotency key (a slow one whose lease lapsed) stored its charge
    // first: that is the charge for this key; the deposit just made is never shown to anyone.
    const stored = isUniqueViolation(error) ? await deps.store.charges.findForMerchant(id, command.merchant.accountId) : undefined
    if (!stored) throw error
    deps.log?.warn({ chargeId: id, depositId: deposit.id }, 'a second deposit for one idempotency key was left unused')
    return { created: creationResult(deps, stored), keyAnswered: false }
  }
}

export async function createCharge(deps: CreateChargeDeps, command: CreateChargeCommand): Promise<ChargeCreated> {
  const request = parseChargeRequest(command.body, { publicWebhooksOnly: deps.publicWebhooksOnly })
  const accountId = command.merchant.accountId
  const created = await withIdempotencyKey(deps, {
    accountId, key: command.idempotencyKey, requestHash: requestHash(command.body), newId: newChargeId,
    // A process that died holding this key may have stored the charge before it could answer; if
    // not, it may have left a deposit at the provider, which is looked for and kept for support
    // (its QR was never shown, so it cannot be handed out) before the charge is made.
    findMade: async (id) => {
      const stored = await deps.store.charges.findForMerchant(id, accountId)
      return stored ? creationResult(deps, stored) : undefined
    },
    beforeRemaking: (claimedAt) => lookForLostDeposit(deps, request.valueCents, claimedAt),
    make: async (id, key) => {
      const made = await createUnclaimed(deps, command, request, id, key)
      return { answer: made.created, keyAnswered: made.keyAnswered }
    },
  })
  // An answer stored before payment pages existed has no payUrl: the page exists for it all the same.
  return created.payUrl ? created : { ...created, payUrl: payUrlOf(deps.baseUrl, created.id) }
}
