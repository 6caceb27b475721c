// Double-entry postings: every balance change is a posting whose entries sum to zero in each
// currency. Customer books carry an account; the service's own books do not.
import { creditedAmount, fixedFeeOf, type Currency } from './money.ts'

export type Book = 'available' | 'held' | 'provider_clearing' | 'fees' | 'conversion'

export type Entry = { book: Book; accountId: number | null; currency: Currency; amount: number }

export type Posting = { key: string; kind: 'credit' | 'release' | 'med_debit'; entries: Entry[] }

export function isBalanced(entries: readonly Entry[]): boolean {
  const sums = new Map<Currency, number>()
  for (const entry of entries) {
    if (!Number.isSafeInteger(entry.amount)) return false
    sums.set(entry.currency, (sums.get(entry.currency) ?? 0) + entry.amount)
  }
  return [...sums.values()].every((sum) => sum === 0)
}

function balanced(posting: Posting): Posting {
  if (!isBalanced(posting.entries)) throw new Error(`posting ${posting.key} does not balance`)
  return posting
}

/**
 * A confirmed payment: the provider owes us what arrived in DEPIX (clearing), the fixed fee
 * goes to fees, the rest to the account (available, or held for a third-party payment), converted
 * through the conversion book when credited as BTC or USDt.
 */
export function creditPosting(charge: {
  id: string
  accountId: number
  valueCents: number
  currency: Currency
  quoteCents: number | null
  held: boolean
}): { posting: Posting; credited: number } {
  const book: Book = charge.held ? 'held' : 'available'
  const fee = fixedFeeOf(charge.valueCents)
  const net = charge.valueCents - fee
  const credited = creditedAmount(charge.valueCents, charge.currency, charge.quoteCents)
  const entries: Entry[] = [
    { book: 'provider_clearing', accountId: null, currency: 'DEPIX', amount: -charge.valueCents },
    { book: 'fees', accountId: null, currency: 'DEPIX', amount: fee },
  ]
  if (charge.currency === 'DEPIX') {
    entries.push({ book, accountId: charge.accountId, currency: 'DEPIX', amount: net })
  } else {
    entries.push(
      { book: 'conversion', accountId: null, currency: 'DEPIX', amount: net },
      { book: 'conversion', accountId: null, currency: charge.currency, amount: -credited },
      { book, accountId: charge.accountId, currency: charge.currency, amount: credited },
    )
  }
  return { posting: balanced({ key: `credit:${charge.id}`, kind: 'credit', entries }), credited }
}

/** The end of a third-party hold: held becomes available. */
export function releasePosting(charge: { id: string; accountId: number; currency: Currency; credited: number }): Posting {
  return balanced({
    key: `release:${charge.id}`,
    kind: 'release',
    entries: [
      { book: 'held', accountId: charge.accountId, currency: charge.currency, amount: -charge.credited },
      { book: 'available', accountId: charge.accountId, currency: charge.currency, amount: charge.credited },
    ],
  })
}

/** A MED after credit takes back what the payment credited, from where it sits; may go negative. */
export function medDebitPosting(charge: { id: string; accountId: number; currency: Currency; credited: number; held: boolean }): Posting {
  return balanced({
    key: `med:${charge.id}`,
    kind: 'med_debit',
    entries: [
      { book: charge.held ? 'held' : 'available', accountId: charge.accountId, currency: charge.currency, amount: -charge.credited },
      { book: 'provider_clearing', accountId: null, currency: charge.currency, amount: charge.credited },
    ],
  })
}
