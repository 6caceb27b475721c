// BRL prices of one BTC and one USDt, used when a payment is converted (recorded on the charge).
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import { formatUnits, parseBrlToCents } from '../domain/money.ts'
import type { Store } from '../store/store.ts'

export type QuoteInput = { BTC?: string | number; USDt?: string | number }

export async function setQuotes(deps: { store: Store; clock: Clock }, input: QuoteInput) {
  const now = deps.clock.now()
  const parsed: Array<['BTC' | 'USDt', number]> = []
  for (const currency of ['BTC', 'USDt'] as const) {
    const raw = input[currency]
    if (raw === undefined) continue
    const cents = parseBrlToCents(raw)
    if (cents === null || cents <= 0 || !Number.isFinite(cents)) {
      throw new DomainError('invalid_request', { param: currency, message: `${currency} must be a positive BRL price such as "350000.00".` })
    }
    parsed.push([currency, cents])
  }
  for (const [currency, cents] of parsed) await deps.store.quotes.set(currency, cents, now)
  const quotes = await deps.store.quotes.all()
  const show = (cents: number | undefined) => (cents === undefined ? null : formatUnits(cents, 2))
  return { BTC: show(quotes.BTC), USDt: show(quotes.USDt) }
}
