// GET /api/get-balance: the token's own account, every currency, as spec 2.3 formats it.
import { DomainError } from '../domain/errors.ts'
import { formatBrl, formatBtc, formatUsdt } from '../domain/money.ts'
import type { Store } from '../store/store.ts'

export type BalanceRecord = {
  email: string
  balances: {
    DEPIX: { available_cents: number; available_brl: string }
    BTC: { available_sats: number; available_btc: string }
    USDt: { available_cents_USDt: number; available_USDt: string }
  }
}

export async function getBalance(deps: { store: Store }, request: { accountId: number }): Promise<BalanceRecord> {
  const account = await deps.store.ledger.accountBalances(request.accountId, 'available')
  if (!account) throw new DomainError('account_not_found')
  const { email, balances: available } = account
  return {
    email,
    balances: {
      DEPIX: { available_cents: available.DEPIX, available_brl: formatBrl(available.DEPIX) },
      BTC: { available_sats: available.BTC, available_btc: formatBtc(available.BTC) },
      USDt: { available_cents_USDt: available.USDt, available_USDt: formatUsdt(available.USDt) },
    },
  }
}
