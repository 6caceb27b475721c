// The steps that take money out of the treasury, shared by an owner's withdrawal and by a refund
// support pays. Every step's result is written before the next step is taken, so a run that dies
// anywhere is resumed by the next from what was written, and nothing is ever paid twice:
//   Pix: our nonce is stored before POST /withdraw, which is made once; after a lost reply the
//   payout is looked up by that nonce, never posted again (not found: support decides). Then the
//   provider's DePix deposit is paid from the treasury as a Liquid payout is.
//   Liquid: the funded transaction, then the signed one (hex and txid) are stored before it is
//   broadcast; after a crash the same hex is broadcast again. Before broadcast, what the node says
//   the transaction pays is checked against the payout.
// What a status change means (postings, e-mails, the refund settled) belongs to the caller: these
// steps only say "hold", "fail", "sent" and "completed" through the payout's own hooks.
import { randomBytes, randomInt } from 'node:crypto'
import type { Clock } from '../clock.ts'
import type { Currency } from '../domain/money.ts'
import type { ProviderPayout } from '../domain/provider-report.ts'
import { toAssetUnits, type ReviewReason } from '../domain/withdrawal.ts'
import { ProviderBusyError, ProviderRejectedError, ProviderUnavailableError, type PaymentProvider, type PayoutRequest } from '../provider/provider.ts'
import type { PayoutStep } from '../store/payout-steps.ts'
import { parseLiquidAddress, type LiquidAddress, type LiquidNetwork } from '../treasury/liquid-address.ts'
import { TreasuryCheckError, TreasuryInsufficientError, TreasuryRefusedError, type Treasury, type TreasuryPayment } from '../treasury/treasury.ts'

export type PayoutDeps = {
  clock: Clock
  treasury: Treasury
  provider: PaymentProvider
  network: LiquidNetwork
  /** Confirmations after which a Liquid payout is completed. */
  confirmations: number
  /** How often a payout on its way is looked at (a Liquid block is about a minute). */
  followEveryMs: number
  log?: { warn: (details: object, message: string) => void; error: (details: object, message: string) => void }
}

/** The step columns of a payout row (withdrawals and refund_payouts both have them). */
export type PayoutRow = {
  id: string
  status: string
  psbt: string | null
  tx_hex: string | null
  txid: string | null
  provider_nonce: string | null
  provider_withdrawal_id: string | null
  provider_deposit_address: string | null
  provider_deposit_cents: number | null
  provider_expires_at: Date | null
  payout_cents: number | null
  network_fee_sats: number | null
}

/** One payout as the steps see it: its row, where it goes, and how the owner of the row moves it. */
export type Payout<R extends PayoutRow> = {
  row: R
  currency: Currency
  /** A Liquid address and the amount (in the currency's service units), or a Pix key the provider pays. */
  to:
    | { kind: 'liquid'; address: string; amount: number }
    | { kind: 'pix'; request: () => Promise<Omit<PayoutRequest, 'nonce'>>; fits: (payout: Pick<ProviderPayout, 'depositAmountInCents' | 'payoutAmountInCents'>) => boolean }
  storeStep: (values: PayoutStep) => Promise<R>
  forgetNonce: (nonce: string) => Promise<void>
  /** Nothing has left: support looks first. */
  hold: (reason: ReviewReason) => Promise<void>
  /** Nothing has left and nothing will (only while no signed transaction is stored). */
  fail: (code: 'provider_refused' | 'payout_expired') => Promise<void>
  sent: () => Promise<void>
  completed: (record: PayoutStep) => Promise<void>
}

/** How far apart Pix-outs turned away by the provider's limit come back (its window is a minute). */
const PIX_OUT_RETRY_SPREAD_MS = 60_000

/** L-BTC kept for the network fee of any one transaction (the fee is the service's). */
export const NETWORK_FEE_RESERVE_SATS = 1_000n

/** Whether the treasury holds `amount` of `currency` (service units) and the network fee. */
export async function treasuryCovers(deps: PayoutDeps, currency: Currency, amount: number): Promise<boolean> {
  const balances = await deps.treasury.balances()
  const needed = toAssetUnits(currency, amount)
  return currency === 'BTC' ? balances.BTC >= needed + NETWORK_FEE_RESERVE_SATS : balances[currency] >= needed && balances.BTC >= NETWORK_FEE_RESERVE_SATS
}

const later = (deps: PayoutDeps, ms: number) => new Date(deps.clock.now().getTime() + ms)

/** Takes the payout as far as it goes now: answers when to look again, or null when it moved to review or failed. */
export async function sendPayout<R extends PayoutRow>(deps: PayoutDeps, payout: Payout<R>): Promise<Date | null> {
  let row = payout.row
  let target: LiquidAddress | null
  let amount: number
  if (payout.to.kind === 'pix') {
    if (row.provider_withdrawal_id === null) {
      const asked = await requestPayout(deps, payout, payout.to)
      if (!('row' in asked)) return asked.next
      row = asked.row
    } else if (row.tx_hex === null && !payout.to.fits({ depositAmountInCents: row.provider_deposit_cents, payoutAmountInCents: row.payout_cents })) {
      // Checked on every run before funding, not only when the reply came: a run after support's
      // approval or retry meets the same reply, and a reply asking for more is never paid.
      await payout.hold('payout_mismatch')
      return null
    }
    if (row.tx_hex === null && row.provider_expires_at !== null && deps.clock.now().getTime() >= row.provider_expires_at.getTime()) {
      await payout.fail('payout_expired')
      return null
    }
    target = parseLiquidAddress(row.provider_deposit_address ?? '', deps.network)
    amount = row.provider_deposit_cents ?? 0
  } else {
    target = parseLiquidAddress(payout.to.address, deps.network)
    amount = payout.to.amount
  }
  if (target === null || amount <= 0) {
    await payout.hold('payout_mismatch')
    return null
  }
  const payment: TreasuryPayment = { currency: payout.currency, units: toAssetUnits(payout.currency, amount), address: target.address, scriptHex: target.scriptHex, blindingKeyHex: target.blindingKeyHex }

  if (row.tx_hex === null || row.txid === null) {
    try {
      if (row.psbt === null) {
        const funded = await deps.treasury.fund(payment)
        row = await payout.storeStep({ psbt: funded.psbt })
      }
      const signed = await deps.treasury.signChecked(row.psbt!, payment)
      // Whoever stores a signed transaction first, it is the one broadcast, now and after any crash.
      row = await payout.storeStep({ tx_hex: signed.hex, txid: signed.txid, network_fee_sats: Number(signed.feeUnits) })
    } catch (error) {
      if (error instanceof TreasuryInsufficientError) {
        await payout.hold('treasury_insufficient')
        return null
      }
      if (error instanceof TreasuryRefusedError) {
        // The node will give the same answer again: support looks, instead of a retry for ever.
        deps.log?.error({ err: error, payoutId: row.id }, 'the treasury node refused the payout; nothing sent')
        await payout.hold('treasury_refused')
        return null
      }
      if (error instanceof TreasuryCheckError) {
        deps.log?.error({ err: error, payoutId: row.id }, 'the treasury built a transaction that does not pay the payout; not broadcast')
        await payout.hold('payout_mismatch')
        return null
      }
      throw error
    }
  }

  const broadcast = await deps.treasury.broadcast({ hex: row.tx_hex!, txid: row.txid! })
  if (broadcast !== 'broadcast') {
    await payout.hold('broadcast_rejected')
    return null
  }
  await payout.sent()
  return later(deps, deps.followEveryMs)
}

/**
 * POST /withdraw for a Pix-out, at most once: the nonce is stored first; a nonce already stored
 * means an earlier run may have reached the provider, so the payout is looked up, never posted
 * again. Answers the row with the provider's payout stored, or when to try again (null: it moved
 * to review or failed).
 */
async function requestPayout<R extends PayoutRow>(deps: PayoutDeps, payout: Payout<R>, to: Extract<Payout<R>['to'], { kind: 'pix' }>): Promise<{ row: R } | { next: Date | null }> {
  const { row } = payout
  let answer: ProviderPayout | null
  if (row.provider_nonce !== null) {
    try {
      answer = await deps.provider.findPayoutByNonce(row.provider_nonce)
    } catch (error) {
      if (error instanceof ProviderUnavailableError) return { next: later(deps, deps.followEveryMs) }
      throw error
    }
    if (answer === null) {
      await payout.hold('payout_reply_lost')
      return { next: null }
    }
  } else {
    const nonce = randomBytes(16).toString('hex')
    const request = await to.request()
    const stored = await payout.storeStep({ provider_nonce: nonce })
    if (stored.provider_nonce !== nonce) return { next: deps.clock.now() }
    try {
      answer = await deps.provider.createPayout({ ...request, nonce } as PayoutRequest)
    } catch (error) {
      if (error instanceof ProviderBusyError) {
        // "Not now": nothing was done (our own share of the limit, or the provider's 429), so the nonce goes unused.
        // Spread over the next minute: a backlog turned away together would otherwise all come back
        // together every few seconds, each run storing and forgetting a nonce, while only 10 a
        // minute can go (bench/withdrawals.ts: 150 Pix-outs took 7,346 runs, 1,836 spread).
        await payout.forgetNonce(nonce)
        return { next: later(deps, error.retryAfterSeconds * 1000 + randomInt(0, PIX_OUT_RETRY_SPREAD_MS)) }
      }
      if (error instanceof ProviderRejectedError) {
        deps.log?.warn({ payoutId: row.id, reason: error.message }, 'the provider refused the payout')
        await payout.fail('provider_refused')
        return { next: null }
      }
      // Lost on the way back, or failed on the provider's side: the next run looks it up by the nonce.
      if (error instanceof ProviderUnavailableError) return { next: later(deps, deps.followEveryMs) }
      throw error
    }
  }
  const address = answer.depositAddress === null ? null : parseLiquidAddress(answer.depositAddress, deps.network)
  const recorded = await payout.storeStep({
    provider_withdrawal_id: answer.withdrawalId,
    provider_deposit_address: answer.depositAddress,
    provider_deposit_cents: answer.depositAmountInCents,
    provider_expires_at: answer.expiration,
    ...providerRecord(answer),
  })
  if (address === null || !to.fits(answer)) {
    deps.log?.error({ payoutId: row.id, payout: answer }, 'the provider asked for another amount or gave no address we can pay; nothing sent')
    await payout.hold('payout_mismatch')
    return { next: null }
  }
  return { row: recorded }
}

/** What the provider says of a payout, kept on its row. */
export function providerRecord(answer: ProviderPayout): PayoutStep {
  return { provider_status: answer.statusText, ...(answer.receiptUrl ? { provider_receipt_url: answer.receiptUrl } : {}), ...(answer.payoutAmountInCents !== null ? { payout_cents: answer.payoutAmountInCents } : {}) }
}

/** The money left: follow it, until 2 confirmations (Liquid) or the provider's word (Pix). */
export async function followPayout<R extends PayoutRow>(deps: PayoutDeps, payout: Payout<R>): Promise<Date | null> {
  const { row } = payout
  if (payout.to.kind === 'pix') {
    const answer = await deps.provider.payoutStatus(row.provider_withdrawal_id!)
    return (await applyProviderPayout(payout, answer)) ? null : later(deps, deps.followEveryMs)
  }
  const seen = await deps.treasury.confirmations(row.txid!)
  if (seen === null) {
    // The node forgot it (a restored wallet): the same transaction, again.
    await deps.treasury.broadcast({ hex: row.tx_hex!, txid: row.txid! })
    return later(deps, deps.followEveryMs)
  }
  if (seen < 0) deps.log?.error({ payoutId: row.id, txid: row.txid }, 'a payout transaction conflicts with another in the chain')
  if (seen >= deps.confirmations) {
    await payout.completed({ confirmations: seen })
    return null
  }
  await payout.storeStep({ confirmations: Math.max(0, seen) })
  return later(deps, deps.followEveryMs)
}

/**
 * The provider's word on a Pix-out (its webhook, or our polling): kept; `sent` completes the
 * payout; a payout that failed after our DePix left stays `sent` for support (the money may come
 * back to the treasury: then support records it). Answers whether the payout is settled.
 */
export async function applyProviderPayout<R extends PayoutRow>(payout: Pick<Payout<R>, 'row' | 'storeStep' | 'completed'>, answer: ProviderPayout): Promise<boolean> {
  const record = providerRecord(answer)
  if (answer.status === 'sent' && payout.row.status === 'sent') {
    await payout.completed(record)
    return true
  }
  await payout.storeStep(record)
  return answer.status === 'error' || answer.status === 'canceled' || answer.status === 'refunded' || (answer.status === 'sent' && payout.row.status === 'completed')
}
