// What an owner hears about a sale (docs/payment-pages.md): a charge paid, held for review, or
// released to the balance. Read from the move the state machine decided, never decided again.
import type { ChargeDecision, ChargeStatus } from './charge.ts'

export const saleNotices = ['paid', 'held', 'released'] as const
export type SaleNotice = (typeof saleNotices)[number]

export function saleNoticeFor(from: ChargeStatus, decision: Extract<ChargeDecision, { outcome: 'moved' }>): SaleNotice | null {
  const announces = (event: string) => decision.effects.some((effect) => effect.kind === 'queue_webhook' && effect.event === event)
  if (announces('balance.released')) return 'released'
  if (announces('payment.confirmed')) return from === 'security_hold' ? 'released' : 'paid'
  if (decision.status === 'security_hold' && from !== 'security_hold') return 'held'
  return null
}
