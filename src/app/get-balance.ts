// GET /api/get-balance: the token's own account, every currency, formatted as docs/rules.md#balances says.
import type { BalanceRecord } from '../contract/api.ts'
import { formatBrl, formatBtc, formatUsdt } from '../domain/money.ts'
import type { Store } from '../store/store.ts'

/** The e-mail comes with the token (an account's e-mail never changes): the read is the balances alone. */
export async function getBalance(deps: { store: Store }, account: { accountId: number; email: string }): Promise<BalanceRecord> {
  const available = await deps.store.ledger.balances(account.accountId, 'available')
  return {
    email: account.email,
    balances: {
      DEPIX: { available_cents: available.DEPIX, available_brl: formatBrl(available.DEPIX) },
      BTC: { available_sats: available.BTC, available_btc: formatBtc(available.BTC) },
      USDt: { available_cents_USDt: available.USDt, available_USDt: formatUsdt(available.USDt) },
    },
  }
}
