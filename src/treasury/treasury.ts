// What the service needs from the operator's Liquid treasury (docs/rules.md#withdrawals): its
// balances, and a payment of one asset to one address built, signed and checked in steps whose
// results the caller stores before taking the next, so a crash resumes the same transaction and
// never makes a second. In production an Elements Core wallet over JSON-RPC (elements-rpc.ts); in
// sandbox mode and tests the fake speaks the same calls (sandbox/fake-elements.ts).
import type { Currency } from '../domain/money.ts'

/** Amounts as a Liquid transaction carries them: 8 decimals for every asset. */
export type AssetUnits = bigint

export type TreasuryPayment = { currency: Currency; units: AssetUnits; address: string; scriptHex: string; blindingKeyHex: string | null }

export type SignedPayment = { hex: string; txid: string }

/** A signed payment and the L-BTC network fee it pays, from what the node says of it. */
export type CheckedPayment = SignedPayment & { feeUnits: AssetUnits }

/** What a transaction the wallet sent took out of it, from the node's own record: each asset sent away, and the fee. */
export type SentTransaction = { sent: Array<{ currency: Currency | null; units: AssetUnits }>; feeUnits: AssetUnits }
/** A coin of the wallet: the transaction output it is. */
export type Outpoint = { txid: string; vout: number }

export const outpointKey = (coin: Outpoint) => `${coin.txid}:${coin.vout}`

export interface Treasury {
  /** What the wallet can spend now, per currency. */
  balances(): Promise<Record<Currency, AssetUnits>>
  /** A funded, unsigned transaction paying `payment` (its inputs locked in the wallet). */
  fund(payment: TreasuryPayment): Promise<{ psbt: string }>
  /**
   * Blinds and signs the funded transaction and checks, from what the node says of it, that it
   * pays exactly `payment` (asset, amount, script, blinding key) and otherwise only change and
   * the fee; then finalizes it. Throws TreasuryCheckError when it pays anything else.
   */
  signChecked(psbt: string, payment: TreasuryPayment): Promise<CheckedPayment>
  /**
   * Broadcasts the signed transaction; sending it again, or after it confirmed, is not an error.
   * 'conflict': another transaction in the mempool spends its coins (it may still pay later);
   * 'inputs_spent': its coins are spent in the chain, or gone: it can never pay.
   */
  broadcast(signed: SignedPayment): Promise<'broadcast' | 'conflict' | 'inputs_spent'>
  /** Confirmations of a transaction the wallet made; null when the wallet does not know it. */
  confirmations(txid: string): Promise<number | null>
  /**
   * The same for many transactions, asked in one request, each in the order given; a
   * TreasuryUnavailableError for a transaction whose own call the node failed.
   */
  confirmationsOf(txids: string[]): Promise<Array<number | null | TreasuryUnavailableError>>
  /**
   * Whether a signed transaction can never pay: the node would refuse it because its coins are
   * spent in the chain by another, and it is not itself in the chain or the mempool. Asked without
   * broadcasting it (a check that broadcast would send the money it asks about).
   */
  transactionDead(signed: SignedPayment): Promise<boolean>
  /** What the wallet's own record says a transaction sent away and paid in fee; null when the wallet does not know it. */
  sentTransaction(txid: string): Promise<SentTransaction | null>
  /**
   * The coins the wallet holds locked (a funding locks its inputs until they are spent; the node
   * forgets its locks when it restarts): none of them is chosen by another funding.
   */
  lockedCoins(): Promise<Outpoint[]>
  /** Unlocks these coins; answers those unlocked (one unlocked or spent meanwhile is passed over). */
  unlockCoins(coins: Outpoint[]): Promise<Outpoint[]>
  /** The coins a stored funded transaction (psbt) or signed one (hex) spends. */
  inputsOf(stored: { psbt: string } | { hex: string }): Promise<Outpoint[]>
}

/** The wallet cannot fund the payment: it waits for support (treasury_insufficient), never half-sent. */
export class TreasuryInsufficientError extends Error {
  override name = 'TreasuryInsufficientError'
}

/**
 * The node answered and will not do it (an address it will not pay, a parameter it rejects):
 * asking again gets the same answer, so the payout waits for support instead of being retried.
 */
export class TreasuryRefusedError extends Error {
  override name = 'TreasuryRefusedError'
}

/** The node could not be reached or failed; nothing is known to have changed. */
export class TreasuryUnavailableError extends Error {
  override name = 'TreasuryUnavailableError'
}

/** The transaction the node built would pay something other than the withdrawal. */
export class TreasuryCheckError extends Error {
  override name = 'TreasuryCheckError'
}
