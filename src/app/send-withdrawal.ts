// The worker that pays a withdrawal, run by the send_withdrawal job; a request never sends money.
// Every step's result is written before the next step is taken, so a run that dies anywhere is
// resumed by the next from what was written, and a withdrawal never gets a second payout:
//   Pix: our nonce is stored before POST /withdraw, which is made once; after a lost reply the
//   payout is looked up by that nonce, never posted again (not found: support decides). Then the
//   provider's DePix deposit is paid from the treasury as a Liquid withdrawal is.
//   Liquid: the funded transaction, then the signed one (hex and txid) are stored before it is
//   broadcast; after a crash the same hex is broadcast again. Before broadcast, what the node says
//   the transaction pays is checked against the withdrawal.
// Then it follows the payment: 2 confirmations (Liquid), or the provider's word (Pix).
import { randomBytes } from 'node:crypto'
import { toAssetUnits } from '../domain/withdrawal.ts'
import type { ReviewReason, FailureCode } from '../domain/withdrawal.ts'
import { ProviderBusyError, ProviderRejectedError, ProviderUnavailableError, type PaymentProvider } from '../provider/provider.ts'
import type { ProviderPayout } from '../domain/provider-report.ts'
import type { Withdrawal } from '../store/schema.ts'
import { parseLiquidAddress, type LiquidAddress, type LiquidNetwork } from '../treasury/liquid-address.ts'
import { TreasuryCheckError, TreasuryInsufficientError, type Treasury, type TreasuryPayment } from '../treasury/treasury.ts'
import { moveWithdrawal, type WithdrawalDeps } from './move-withdrawal.ts'

export type SendWithdrawalDeps = WithdrawalDeps & {
  treasury: Treasury
  provider: PaymentProvider
  network: LiquidNetwork
  /** Confirmations after which a Liquid withdrawal is completed. */
  confirmations: number
  /** How often a payout on its way is looked at (a Liquid block is about a minute). */
  followEveryMs: number
  log?: { warn: (details: object, message: string) => void; error: (details: object, message: string) => void }
}

/** L-BTC kept for the network fee of any one transaction (the fee is the service's). */
export const NETWORK_FEE_RESERVE_SATS = 1_000n

/** Runs what is next for the withdrawal; answers when to look again, or null when there is nothing more to do. */
export async function sendWithdrawal(deps: SendWithdrawalDeps, id: string): Promise<Date | null> {
  let withdrawal = await deps.store.withdrawals.findById(id)
  if (!withdrawal) return null
  if (withdrawal.status === 'confirmed') {
    if (!(await treasuryCovers(deps, withdrawal))) {
      await hold(deps, withdrawal, 'treasury_insufficient')
      return null
    }
    const started = await moveWithdrawal(deps, id, { event: async (_store, current) => (current.status === 'confirmed' ? { kind: 'start_sending' } : null) })
    if (started.kind !== 'moved') return null
    withdrawal = started.withdrawal
  }
  if (withdrawal.status === 'sending') return continueSending(deps, withdrawal)
  if (withdrawal.status === 'sent') return followSent(deps, withdrawal)
  return null
}

async function treasuryCovers(deps: SendWithdrawalDeps, withdrawal: Withdrawal): Promise<boolean> {
  const balances = await deps.treasury.balances()
  const needed = toAssetUnits(withdrawal.currency, withdrawal.net_amount)
  return withdrawal.currency === 'BTC' ? balances.BTC >= needed + NETWORK_FEE_RESERVE_SATS : balances[withdrawal.currency] >= needed && balances.BTC >= NETWORK_FEE_RESERVE_SATS
}

/** Nothing has left: support looks first. Only from confirmed or sending, as the state machine allows. */
async function hold(deps: SendWithdrawalDeps, withdrawal: Withdrawal, reason: ReviewReason): Promise<void> {
  deps.log?.warn({ withdrawalId: withdrawal.id, reason }, 'withdrawal held for support')
  await moveWithdrawal(deps, withdrawal.id, { event: async () => ({ kind: 'hold', reason }) })
}

/** Nothing has left and nothing will: the amount goes back to available. */
async function fail(deps: SendWithdrawalDeps, withdrawal: Withdrawal, code: FailureCode): Promise<void> {
  await moveWithdrawal(deps, withdrawal.id, { event: async (_store, current) => (current.tx_hex === null ? { kind: 'fail', code } : null) })
}

const later = (deps: SendWithdrawalDeps, ms: number) => new Date(deps.clock.now().getTime() + ms)

async function continueSending(deps: SendWithdrawalDeps, start: Withdrawal): Promise<Date | null> {
  let withdrawal = start
  const destination = await deps.store.withdrawals.findDestination(withdrawal.destination_id, withdrawal.account_id)
  if (!destination) throw new Error(`withdrawal ${withdrawal.id} has no destination`)
  let target: LiquidAddress | null
  if (withdrawal.destination_type === 'pix') {
    if (withdrawal.provider_withdrawal_id === null) {
      const asked = await requestPayout(deps, withdrawal, destination.value)
      if (!('withdrawal' in asked)) return asked.next
      withdrawal = asked.withdrawal
    }
    if (withdrawal.tx_hex === null && withdrawal.provider_expires_at !== null && deps.clock.now().getTime() >= withdrawal.provider_expires_at.getTime()) {
      await fail(deps, withdrawal, 'payout_expired')
      return null
    }
    target = parseLiquidAddress(withdrawal.provider_deposit_address ?? '', deps.network)
  } else {
    target = parseLiquidAddress(destination.value, deps.network)
  }
  if (target === null) {
    await hold(deps, withdrawal, 'payout_mismatch')
    return null
  }
  const payment: TreasuryPayment = { currency: withdrawal.currency, units: toAssetUnits(withdrawal.currency, withdrawal.net_amount), address: target.address, scriptHex: target.scriptHex, blindingKeyHex: target.blindingKeyHex }

  if (withdrawal.tx_hex === null || withdrawal.txid === null) {
    try {
      if (withdrawal.psbt === null) {
        const funded = await deps.treasury.fund(payment)
        withdrawal = await deps.store.withdrawals.storeStep(withdrawal.id, { psbt: funded.psbt })
      }
      const signed = await deps.treasury.signChecked(withdrawal.psbt!, payment)
      // Whoever stores a signed transaction first, it is the one broadcast, now and after any crash.
      withdrawal = await deps.store.withdrawals.storeStep(withdrawal.id, { tx_hex: signed.hex, txid: signed.txid })
    } catch (error) {
      if (error instanceof TreasuryInsufficientError) {
        await hold(deps, withdrawal, 'treasury_insufficient')
        return null
      }
      if (error instanceof TreasuryCheckError) {
        deps.log?.error({ err: error, withdrawalId: withdrawal.id }, 'the treasury built a transaction that does not pay the withdrawal; not broadcast')
        await hold(deps, withdrawal, 'payout_mismatch')
        return null
      }
      throw error
    }
  }

  const broadcast = await deps.treasury.broadcast({ hex: withdrawal.tx_hex!, txid: withdrawal.txid! })
  if (broadcast !== 'broadcast') {
    await hold(deps, withdrawal, 'broadcast_rejected')
    return null
  }
  await moveWithdrawal(deps, withdrawal.id, { event: async (_store, current) => (current.status === 'sending' ? { kind: 'sent' } : null) })
  return later(deps, deps.followEveryMs)
}

/**
 * POST /withdraw for a Pix-out, at most once: the nonce is stored first; a nonce already stored
 * means an earlier run may have reached the provider, so the payout is looked up, never posted
 * again. Answers the withdrawal with the provider's payout stored, or when to try again (null:
 * it moved to review or failed).
 */
async function requestPayout(deps: SendWithdrawalDeps, withdrawal: Withdrawal, pixKey: string): Promise<{ withdrawal: Withdrawal } | { next: Date | null }> {
  let payout: ProviderPayout | null
  if (withdrawal.provider_nonce !== null) {
    try {
      payout = await deps.provider.findPayoutByNonce(withdrawal.provider_nonce)
    } catch (error) {
      if (error instanceof ProviderUnavailableError) return { next: later(deps, deps.followEveryMs) }
      throw error
    }
    if (payout === null) {
      await hold(deps, withdrawal, 'payout_reply_lost')
      return { next: null }
    }
  } else {
    const nonce = randomBytes(16).toString('hex')
    const account = await deps.store.accounts.findById(withdrawal.account_id)
    if (!account?.owner_tax_number) throw new Error(`withdrawal ${withdrawal.id}: the account has no owner tax number`)
    const stored = await deps.store.withdrawals.storeStep(withdrawal.id, { provider_nonce: nonce })
    if (stored.provider_nonce !== nonce) return { next: deps.clock.now() }
    try {
      payout = await deps.provider.createPayout({ nonce, pixKey, taxNumber: account.owner_tax_number, depositAmountInCents: withdrawal.net_amount })
    } catch (error) {
      if (error instanceof ProviderBusyError) {
        // "Not now": nothing was done (our own share of the limit, or the provider's 429), so the nonce goes unused.
        await deps.store.withdrawals.forgetNonce(withdrawal.id, nonce)
        return { next: later(deps, error.retryAfterSeconds * 1000) }
      }
      if (error instanceof ProviderRejectedError) {
        deps.log?.warn({ withdrawalId: withdrawal.id, reason: error.message }, 'the provider refused the payout')
        await fail(deps, withdrawal, 'provider_refused')
        return { next: null }
      }
      // Lost on the way back, or failed on the provider's side: the next run looks it up by the nonce.
      if (error instanceof ProviderUnavailableError) return { next: later(deps, deps.followEveryMs) }
      throw error
    }
  }
  const address = payout.depositAddress === null ? null : parseLiquidAddress(payout.depositAddress, deps.network)
  const fits = payout.depositAmountInCents === withdrawal.net_amount && address !== null
  const recorded = await deps.store.withdrawals.storeStep(withdrawal.id, {
    provider_withdrawal_id: payout.withdrawalId,
    provider_deposit_address: payout.depositAddress,
    provider_deposit_cents: payout.depositAmountInCents,
    provider_expires_at: payout.expiration,
    provider_status: payout.statusText,
    payout_cents: payout.payoutAmountInCents ?? withdrawal.payout_cents,
  })
  if (!fits) {
    deps.log?.error({ withdrawalId: withdrawal.id, payout }, 'the provider asked for another amount or gave no address we can pay; nothing sent')
    await hold(deps, recorded, 'payout_mismatch')
    return { next: null }
  }
  return { withdrawal: recorded }
}

/** The money left: follow it to completion. */
async function followSent(deps: SendWithdrawalDeps, withdrawal: Withdrawal): Promise<Date | null> {
  if (withdrawal.destination_type === 'pix') {
    const payout = await deps.provider.payoutStatus(withdrawal.provider_withdrawal_id!)
    return (await applyPayout(deps, withdrawal, payout)) ? null : later(deps, deps.followEveryMs)
  }
  const seen = await deps.treasury.confirmations(withdrawal.txid!)
  if (seen === null) {
    // The node forgot it (a restored wallet): the same transaction, again.
    await deps.treasury.broadcast({ hex: withdrawal.tx_hex!, txid: withdrawal.txid! })
    return later(deps, deps.followEveryMs)
  }
  if (seen < 0) deps.log?.error({ withdrawalId: withdrawal.id, txid: withdrawal.txid }, 'a withdrawal transaction conflicts with another in the chain')
  if (seen >= deps.confirmations) {
    await moveWithdrawal(deps, withdrawal.id, { event: async (_store, current) => (current.status === 'sent' ? { kind: 'completed' } : null), record: { confirmations: seen } })
    return null
  }
  await deps.store.withdrawals.storeStep(withdrawal.id, { confirmations: Math.max(0, seen) })
  return later(deps, deps.followEveryMs)
}

/**
 * The provider's word on a Pix-out (its webhook, or our polling): kept; `sent` completes the
 * withdrawal; a payout that failed after our DePix left stays `sent` for support (the money may
 * come back to the treasury: then support records it). Answers whether the payout is settled.
 */
export async function applyPayout(deps: SendWithdrawalDeps | WithdrawalDeps, withdrawal: Withdrawal, payout: ProviderPayout): Promise<boolean> {
  const record = { provider_status: payout.statusText, ...(payout.receiptUrl ? { provider_receipt_url: payout.receiptUrl } : {}), ...(payout.payoutAmountInCents !== null ? { payout_cents: payout.payoutAmountInCents } : {}) }
  if (payout.status === 'sent' && withdrawal.status === 'sent') {
    await moveWithdrawal(deps, withdrawal.id, { event: async (_store, current) => (current.status === 'sent' ? { kind: 'completed' } : null), record })
    return true
  }
  await deps.store.withdrawals.storeStep(withdrawal.id, record)
  return payout.status === 'error' || payout.status === 'canceled' || payout.status === 'refunded' || (payout.status === 'sent' && withdrawal.status === 'completed')
}

/** The provider's withdraw webhook: its payout object, applied to the withdrawal it belongs to; false when none does. */
export async function applyPayoutReport(deps: WithdrawalDeps, payout: ProviderPayout): Promise<boolean> {
  const withdrawal = await deps.store.withdrawals.findByProviderWithdrawalId(payout.withdrawalId)
  if (!withdrawal) return false
  await applyPayout(deps, withdrawal, payout)
  return true
}
