// The Wallet's "Simular pagamento" in sandbox mode: the owner pays their own purchase at the fake
// provider with their own CPF/CNPJ, and the sandbox waits for the work that payment caused.
import type { JobRunner } from '../jobs/runner.ts'
import type { Charge } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import type { FakeEulen } from './fake-eulen.ts'
import { finishWorkTheSandboxCaused } from './finish-work.ts'

export function ownerPaysOwnPurchase(deps: { fake: FakeEulen; store: Store; jobs: JobRunner }) {
  return async (charge: Charge): Promise<void> => {
    const account = await deps.store.accounts.findById(charge.account_id)
    if (!account?.owner_tax_number) return
    const status = await deps.fake.settle(charge.provider_deposit_id, {
      payerName: account.owner_name ?? 'Titular',
      payerTaxNumber: account.owner_tax_number,
      outcome: 'depix_sent',
    })
    if (status !== 200) throw new Error(`the service answered the provider webhook with HTTP ${status}`)
    await finishWorkTheSandboxCaused(deps.jobs)
  }
}
