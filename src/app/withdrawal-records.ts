// What the API and the Wallet show of destinations and withdrawals: keys and addresses partly
// hidden, a destination's state including its cool-down, amounts in the currency's own unit.
import type { DestinationRecord, WithdrawalRecord } from '../contract/api.ts'
import { maskTaxNumber } from '../domain/tax-number.ts'
import type { Payout, Withdrawal, WithdrawalDestination } from '../store/schema.ts'

/** A Pix key (the owner's CPF/CNPJ) masked as documents are; an address by its ends. */
export function maskDestination(destination: Pick<WithdrawalDestination, 'type' | 'value'>): string {
  return destination.type === 'pix' ? maskTaxNumber(destination.value) : `${destination.value.slice(0, 6)}…${destination.value.slice(-6)}`
}

/** How an e-mail names the destination: its label, or the masked key or address. */
export function destinationLabel(destination: Pick<WithdrawalDestination, 'type' | 'value' | 'label'>): string {
  const kind = destination.type === 'pix' ? 'Pix' : 'Liquid'
  return destination.label === null ? `${kind} ${maskDestination(destination)}` : `${destination.label} (${kind} ${maskDestination(destination)})`
}

export function destinationState(destination: WithdrawalDestination, now: Date): DestinationRecord['state'] {
  if (destination.state !== 'confirmed') return 'unconfirmed'
  return destination.usable_at !== null && destination.usable_at.getTime() <= now.getTime() ? 'active' : 'cooling_down'
}

export function toDestinationRecord(destination: WithdrawalDestination, now: Date): DestinationRecord {
  return {
    id: destination.id,
    type: destination.type,
    masked: maskDestination(destination),
    label: destination.label,
    state: destinationState(destination, now),
    usable_at: destination.usable_at?.toISOString() ?? null,
    created_at: destination.created_at.toISOString(),
  }
}

/** `payout`: its newest payout, whose transaction is the withdrawal's (none before it is queued). */
export function toWithdrawalRecord(withdrawal: Withdrawal, destination: WithdrawalDestination, payout: Payout | undefined): WithdrawalRecord {
  return {
    id: withdrawal.id,
    status: withdrawal.status,
    currency: withdrawal.currency,
    amount: withdrawal.amount,
    fee: withdrawal.fee,
    net_amount: withdrawal.net_amount,
    payout_cents: withdrawal.payout_cents,
    destination: { id: destination.id, type: destination.type, masked: maskDestination(destination) },
    txid: payout?.txid ?? null,
    created_at: withdrawal.created_at.toISOString(),
    updated_at: withdrawal.updated_at.toISOString(),
    failure_code: withdrawal.failure_code,
    review_reason: withdrawal.review_reason,
  }
}
