// Solvency (docs/treasury.md, "The books meet the treasury"): per currency, what the accounts are owed (each
// account's positive available + held + withdrawing, and the refunds owed to payers) beside what
// the treasury wallet holds, and apart from it what accounts owe the service (a MED that took more
// than was left: a receivable, never netted against other accounts' claims). A shortfall is logged
// and counted (/metrics); withdrawals the treasury cannot cover wait in review.
import { currencies, type Currency } from '../domain/money.ts'
import { minorUnitsIn } from '../domain/withdrawal.ts'
import type { Store } from '../store/store.ts'
import type { Treasury } from '../treasury/treasury.ts'

export type TreasuryCheck = Array<{ currency: Currency; owed: number; treasury: number; shortfall: number; receivable: number }>

export async function checkTreasury(deps: { store: Store; treasury: Treasury; log?: { error: (details: object, message: string) => void } }): Promise<TreasuryCheck> {
  const [owedRows, refundsOwed, balances] = await Promise.all([deps.store.ledger.owedToAccounts(), deps.store.refunds.owedTotals(), deps.treasury.balances()])
  const check = currencies.map((currency) => {
    const row = owedRows.find((candidate) => candidate.currency === currency)
    const owed = (row?.owed ?? 0) + (currency === 'DEPIX' ? refundsOwed.cents : 0)
    const treasury = minorUnitsIn(currency, balances[currency])
    return { currency, owed, treasury, shortfall: Math.max(0, owed - treasury), receivable: row?.debts ?? 0 }
  })
  for (const row of check) if (row.shortfall > 0) deps.log?.error({ currency: row.currency, owed: row.owed, treasury: row.treasury, shortfall: row.shortfall }, 'the treasury holds less than the accounts are owed')
  return check
}
