// The worker that pays a payout, run by the send_payout job; a request never sends money. Every
// step's result is written before the next is taken, so a run that dies anywhere is resumed by the
// next from what was written, and nothing is ever paid twice (docs/treasury.md, "Payouts"):
//   Start: the owner's facts are read again in the transaction that moves it to sending (the
//   owner still wants it, the destination still takes it, the account may still withdraw, the
//   treasury covers it), the first time and every time support sends it again.
//   Pix: our nonce is stored before POST /withdraw, which is made once; after a lost reply the
//   payout is looked up by that nonce, never posted again (not found: support decides). The
//   provider's reply must ask exactly what we offered, checked on every run before funding. Then
//   the provider's DePix deposit is paid from the treasury as a Liquid payout is.
//   Liquid: the funded transaction, then the signed one (hex, txid and its network fee) are stored
//   before it is broadcast; after a crash the same hex is broadcast again. Before broadcast, what
//   the node says the transaction pays is checked against the payout.
import { randomBytes, randomInt } from 'node:crypto'
import type { Clock } from '../clock.ts'
import type { Currency } from '../domain/money.ts'
import type { PayoutEvent, ReviewReason } from '../domain/payout.ts'
import type { ProviderPayout } from '../domain/provider-report.ts'
import { refundPayoutFits, refundPayoutMaxDeposit } from '../domain/refund-payout.ts'
import { toAssetUnits } from '../domain/withdrawal.ts'
import { ProviderBusyError, ProviderRejectedError, ProviderUnavailableError, type PaymentProvider, type PayoutRequest } from '../provider/provider.ts'
import type { PayoutStep } from '../store/payouts.ts'
import type { Payout } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { parseLiquidAddress, type LiquidAddress, type LiquidNetwork } from '../treasury/liquid-address.ts'
import { TreasuryCheckError, TreasuryInsufficientError, TreasuryRefusedError, type Treasury, type TreasuryPayment } from '../treasury/treasury.ts'
import { completeRefundPayout } from './complete-refund-payout.ts'
import { completeMerchantRefundPayout } from './merchant-refunds.ts'
import { movePayout, type LockedOwner, type PayoutMoveDeps } from './move-money-out.ts'
import { mayWithdraw } from './withdrawal-blockers.ts'

export type SendPayoutDeps = PayoutMoveDeps & {
  treasury: Treasury
  provider: PaymentProvider
  network: LiquidNetwork
  /** Confirmations after which a Liquid payout is completed. */
  confirmations: number
  /** How often a payout on its way is looked at (a Liquid block is about a minute). */
  followEveryMs: number
  log?: { warn: (details: object, message: string) => void; error: (details: object, message: string) => void }
}

/** How far apart Pix-outs turned away by the provider's limit come back (its window is a minute). */
const PIX_OUT_RETRY_SPREAD_MS = 60_000

/** L-BTC kept for the network fee of any one transaction (the fee is the service's). */
export const NETWORK_FEE_RESERVE_SATS = 1_000n

const later = (deps: { clock: Clock }, ms: number) => new Date(deps.clock.now().getTime() + ms)

/** Runs what is next for the payout; answers when to look again, or null when there is nothing more to do. */
export async function sendPayout(deps: SendPayoutDeps, id: string): Promise<Date | null> {
  let payout = await deps.store.payouts.findById(id)
  if (!payout) return null
  const starting = payout.status === 'queued'
  if (starting) {
    const covered = payout.tx_hex !== null || (await treasuryCovers(deps, payout.currency, mostSent(payout)))
    const started = await movePayout(deps, id, {
      event: async ({ store, payout: current, owner, now }) => (current.status === 'queued' ? { kind: 'start', facts: { ...(await ownerFacts(store, owner, current, now)), covered } } : null),
    }, payout)
    if (started.kind !== 'moved') return null
    payout = started.payout
  }
  if (!starting && payout.status === 'sending' && payout.tx_hex === null) {
    // Every run until the transaction is signed reads the owner again: a run turned away by the
    // provider comes back later, and a refund may have been settled, an account blocked, meanwhile.
    const rechecked = await movePayout(deps, id, {
      event: async ({ store, payout: current, owner, now }) => (current.status === 'sending' && current.tx_hex === null ? { kind: 'recheck', facts: await ownerFacts(store, owner, current, now) } : null),
    }, payout)
    if (rechecked.kind !== 'unchanged') return null
  }
  if (payout.status === 'sending') return sendSteps(deps, payout)
  if (payout.status === 'sent') return followSteps(deps, payout)
  return null
}

/** A refund's payout (owed, or a merchant's) pays a payer what is due: the provider's fee comes on top of it. */
function paysPayer(payout: Payout): boolean {
  return payout.refund_id !== null || payout.merchant_refund_id !== null
}

/** The most of its currency the payout can take out of the treasury: a refund's provider may add its fee on top. */
function mostSent(payout: Payout): number {
  return paysPayer(payout) ? refundPayoutMaxDeposit(payout.amount) : payout.amount
}

/** Whether the treasury holds `amount` of `currency` (service units) and the network fee. */
export async function treasuryCovers(deps: { treasury: Treasury }, currency: Currency, amount: number): Promise<boolean> {
  const balances = await deps.treasury.balances()
  const needed = toAssetUnits(currency, amount)
  return currency === 'BTC' ? balances.BTC >= needed + NETWORK_FEE_RESERVE_SATS : balances[currency] >= needed && balances.BTC >= NETWORK_FEE_RESERVE_SATS
}

/** The owner's side of the start, read under its locks: a withdrawal still confirmed to a live destination of an account that may withdraw; a refund still owing this much. */
async function ownerFacts(store: Store, owner: LockedOwner | null, payout: Payout, now: Date): Promise<{ ownerWants: boolean; destinationActive: boolean; accountAllowed: boolean }> {
  if (owner === null) return { ownerWants: false, destinationActive: false, accountAllowed: false }
  // A merchant's refund is paid from the account's balance: the account must still be one that may take money out (docs/rules.md#merchant-refund-limits).
  if (owner.kind === 'merchant_refund') {
    const account = owner.refund === undefined ? undefined : await store.accounts.findById(owner.refund.account_id)
    return { ownerWants: owner.refund?.status === 'pending', destinationActive: true, accountAllowed: account !== undefined && (await mayWithdraw(store, account, now)) }
  }
  if (owner.kind === 'refund') {
    const { refund } = owner
    return { ownerWants: refund !== undefined && refund.status === 'owed' && refund.owed_cents >= payout.amount, destinationActive: true, accountAllowed: true }
  }
  // The destination as read with the locks (store/withdrawals.ts).
  const { withdrawal, account, destination } = owner.locked
  return {
    // Confirmed at the start; sending at every run after (it follows its payout).
    ownerWants: withdrawal.status === 'confirmed' || withdrawal.status === 'sending',
    destinationActive: destination.state !== 'canceled',
    accountAllowed: await mayWithdraw(store, account, now),
  }
}

const move = (deps: SendPayoutDeps, payout: Payout, event: PayoutEvent, record?: PayoutStep) =>
  movePayout(deps, payout.id, { event: () => event, ...(record ? { record } : {}) }, payout)

/** Nothing has left: support looks first. */
async function hold(deps: SendPayoutDeps, payout: Payout, reason: ReviewReason): Promise<null> {
  deps.log?.warn({ payoutId: payout.id, reason }, 'payout held for support')
  await move(deps, payout, { kind: 'hold', reason })
  return null
}

/** Whether a provider's reply is one we pay: a withdrawal's asks exactly what it offers; a refund's, no more than the published fee on top of what the payer receives. */
function replyFits(payout: Payout, reply: Pick<ProviderPayout, 'depositAmountInCents' | 'payoutAmountInCents'>): boolean {
  return paysPayer(payout) ? refundPayoutFits(payout.amount, reply) : reply.depositAmountInCents === payout.amount
}

/** What POST /withdraw is asked: a withdrawal offers the DePix it sends; a refund asks that the payer's key receive all that is owed. */
function payoutRequest(payout: Payout, nonce: string): PayoutRequest {
  const to = { nonce, pixKey: payout.pix_key!, taxNumber: payout.tax_number! }
  return paysPayer(payout) ? { ...to, payoutAmountInCents: payout.amount } : { ...to, depositAmountInCents: payout.amount }
}

async function sendSteps(deps: SendPayoutDeps, start: Payout): Promise<Date | null> {
  let row = start
  let target: LiquidAddress | null
  let amount: number
  if (row.rail === 'pix') {
    if (row.provider_withdrawal_id === null) {
      const asked = await requestPayout(deps, row)
      if (!('row' in asked)) return asked.next
      row = asked.row
    } else if (row.tx_hex === null && !replyFits(row, { depositAmountInCents: row.provider_deposit_cents, payoutAmountInCents: row.payout_cents })) {
      // Checked on every run before funding, not only when the reply came: a run after support
      // sent it again meets the same reply, and a reply asking for more is never paid.
      return hold(deps, row, 'payout_mismatch')
    }
    if (row.tx_hex === null && row.provider_expires_at !== null && deps.clock.now().getTime() >= row.provider_expires_at.getTime()) {
      await move(deps, row, { kind: 'fail', code: 'payout_expired' })
      return null
    }
    target = parseLiquidAddress(row.provider_deposit_address ?? '', deps.network)
    amount = row.provider_deposit_cents ?? 0
  } else {
    target = parseLiquidAddress(row.address ?? '', deps.network)
    amount = row.amount
  }
  if (target === null || amount <= 0) return hold(deps, row, 'payout_mismatch')
  const payment: TreasuryPayment = { currency: row.currency, units: toAssetUnits(row.currency, amount), address: target.address, scriptHex: target.scriptHex, blindingKeyHex: target.blindingKeyHex }

  // The row as the statement that stored the signed transaction answered it, still sending then:
  // as current as a read before the broadcast would be.
  let signedNow = false
  if (row.tx_hex === null || row.txid === null) {
    try {
      if (row.psbt === null) {
        const funded = await deps.treasury.fund(payment)
        const stored = await deps.store.payouts.storeSendingStep(row.id, { psbt: funded.psbt })
        // Moved meanwhile (held, ended): its coins stay locked until the orphan sweep frees them.
        if (stored === undefined) return null
        row = stored
      }
      const signed = await deps.treasury.signChecked(row.psbt!, payment)
      // Whoever stores a signed transaction first, it is the one broadcast, now and after any crash.
      const stored = await deps.store.payouts.storeSendingStep(row.id, { tx_hex: signed.hex, txid: signed.txid, network_fee_sats: Number(signed.feeUnits) })
      if (stored === undefined) return null
      row = stored
      signedNow = true
    } catch (error) {
      if (error instanceof TreasuryInsufficientError) return hold(deps, row, 'treasury_insufficient')
      if (error instanceof TreasuryRefusedError) {
        // The node will give the same answer again: support looks, instead of a retry for ever.
        deps.log?.error({ err: error, payoutId: row.id }, 'the treasury node refused the payout; nothing sent')
        return hold(deps, row, 'treasury_refused')
      }
      if (error instanceof TreasuryCheckError) {
        deps.log?.error({ err: error, payoutId: row.id }, 'the treasury built a transaction that does not pay the payout; not broadcast')
        return hold(deps, row, 'payout_mismatch')
      }
      throw error
    }
  }

  // Only a payout still sending is broadcast: one support held or ended meanwhile is left as it is.
  if (!signedNow && (await deps.store.payouts.findById(row.id))?.status !== 'sending') return null
  const broadcast = await deps.treasury.broadcast({ hex: row.tx_hex!, txid: row.txid! })
  if (broadcast !== 'broadcast') return hold(deps, row, 'broadcast_rejected')
  await move(deps, row, { kind: 'sent' })
  // From here a Liquid payout is followed with every other sent one (app/follow-liquid-payouts.ts).
  return row.rail === 'pix' ? later(deps, deps.followEveryMs) : null
}

/**
 * POST /withdraw for a Pix-out, at most once: the nonce is stored first; a nonce already stored
 * means an earlier run may have reached the provider, so the payout is looked up, never posted
 * again. Answers the row with the provider's payout stored, or when to try again (null: it moved
 * to review or failed).
 */
async function requestPayout(deps: SendPayoutDeps, row: Payout): Promise<{ row: Payout } | { next: Date | null }> {
  let answer: ProviderPayout | null
  if (row.provider_nonce !== null) {
    try {
      answer = await deps.provider.findPayoutByNonce(row.provider_nonce)
    } catch (error) {
      if (error instanceof ProviderUnavailableError) return { next: later(deps, deps.followEveryMs) }
      throw error
    }
    if (answer === null) return { next: await hold(deps, row, 'payout_reply_lost') }
  } else {
    const nonce = randomBytes(16).toString('hex')
    const stored = await deps.store.payouts.storeSendingStep(row.id, { provider_nonce: nonce })
    if (stored === undefined) return { next: null }
    if (stored.provider_nonce !== nonce) return { next: deps.clock.now() }
    try {
      answer = await deps.provider.createPayout(payoutRequest(row, nonce))
    } catch (error) {
      if (error instanceof ProviderBusyError) {
        // "Not now": nothing was done (our own share of the limit, or the provider's 429), so the
        // nonce goes unused. Spread over the next minute: a backlog turned away together would
        // otherwise all come back together (docs/performance.md, "Withdrawals").
        await deps.store.payouts.forgetNonce(row.id, nonce)
        return { next: later(deps, error.retryAfterSeconds * 1000 + randomInt(0, PIX_OUT_RETRY_SPREAD_MS)) }
      }
      if (error instanceof ProviderRejectedError) {
        deps.log?.warn({ payoutId: row.id, reason: error.message }, 'the provider refused the payout')
        await move(deps, row, { kind: 'fail', code: 'provider_refused' })
        return { next: null }
      }
      // Lost on the way back, or failed on the provider's side: the next run looks it up by the nonce.
      if (error instanceof ProviderUnavailableError) return { next: later(deps, deps.followEveryMs) }
      throw error
    }
  }
  const address = answer.depositAddress === null ? null : parseLiquidAddress(answer.depositAddress, deps.network)
  const recorded = await deps.store.payouts.storeStep(row.id, {
    provider_withdrawal_id: answer.withdrawalId,
    provider_deposit_address: answer.depositAddress,
    provider_deposit_cents: answer.depositAmountInCents,
    provider_expires_at: answer.expiration,
    ...providerRecord(answer),
  })
  if (address === null || !replyFits(recorded, answer)) {
    deps.log?.error({ payoutId: row.id, payout: answer }, 'the provider asked for another amount or gave no address we can pay; nothing sent')
    return { next: await hold(deps, recorded, 'payout_mismatch') }
  }
  return { row: recorded }
}

/** What the provider says of a payout, kept on its row. */
function providerRecord(answer: ProviderPayout): PayoutStep {
  return { provider_status: answer.statusText, ...(answer.receiptUrl ? { provider_receipt_url: answer.receiptUrl } : {}), ...(answer.payoutAmountInCents !== null ? { payout_cents: answer.payoutAmountInCents } : {}) }
}

/** The money left: a Pix-out is followed by its own job until the provider's word (a Liquid payout by app/follow-liquid-payouts.ts). */
async function followSteps(deps: SendPayoutDeps, row: Payout): Promise<Date | null> {
  if (row.rail !== 'pix') return null
  const answer = await deps.provider.payoutStatus(row.provider_withdrawal_id!)
  return (await applyProviderPayout(deps, row, answer)) ? null : later(deps, deps.followEveryMs)
}

/**
 * A sent Liquid payout, given what the node says of its transaction (`seen`, its confirmations;
 * null when the node does not know it): completed at deps.confirmations, else its confirmations
 * kept.
 */
export async function followLiquidPayout(deps: SendPayoutDeps, row: Payout, seen: number | null): Promise<void> {
  if (seen === null) {
    // The node forgot it (a restored wallet): the same transaction, again; only while it is still
    // sent, read now, as a broadcast is (support may have recorded it returned since the list).
    if ((await deps.store.payouts.findById(row.id))?.status !== 'sent') return
    await deps.treasury.broadcast({ hex: row.tx_hex!, txid: row.txid! })
    return
  }
  if (seen < 0) deps.log?.error({ payoutId: row.id, txid: row.txid }, 'a payout transaction conflicts with another in the chain')
  if (seen >= deps.confirmations) {
    await complete(deps, row, { confirmations: seen })
    return
  }
  if (Math.max(0, seen) !== row.confirmations) await deps.store.payouts.storeConfirmations(row.id, Math.max(0, seen))
}

/** Completed: a withdrawal's payout by its own move; a refund's settles the refund through its charge. */
async function complete(deps: PayoutMoveDeps & Pick<SendPayoutDeps, 'log'>, row: Payout, record: PayoutStep): Promise<void> {
  if (row.refund_id !== null) await completeRefundPayout(deps, row, record)
  else if (row.merchant_refund_id !== null) await completeMerchantRefundPayout(deps, row, record)
  else await movePayout(deps, row.id, { event: ({ payout }) => (payout.status === 'sent' ? { kind: 'completed' } : null), record }, row)
}

/**
 * The provider's word on a Pix-out (its webhook, or our polling): kept; paid completes the
 * payout; a payout that failed after our DePix left stays as it is, an alert for support (the
 * money may come back to the treasury: then support records it returned). Answers whether the
 * payout is settled.
 */
export async function applyProviderPayout(deps: PayoutMoveDeps & Pick<SendPayoutDeps, 'log'>, row: Payout, answer: ProviderPayout): Promise<boolean> {
  const record = providerRecord(answer)
  if (answer.state === 'paid' && row.status === 'sent') {
    await complete(deps, row, record)
    return true
  }
  await deps.store.payouts.storeStep(row.id, record)
  return answer.state === 'failed' || (answer.state === 'paid' && row.status === 'completed')
}

/** The provider's withdraw webhook: its payout object, applied to the payout it names; false when none does. */
export async function applyPayoutReport(deps: PayoutMoveDeps & Pick<SendPayoutDeps, 'log'>, answer: ProviderPayout): Promise<boolean> {
  const payout = await deps.store.payouts.findByProviderWithdrawalId(answer.withdrawalId)
  if (!payout) return false
  await applyProviderPayout(deps, payout, answer)
  return true
}
