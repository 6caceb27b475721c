// The demo merchant `npm start` prints: an identified account and a fresh token on every start
// (tokens are stored hashed, so the previous one cannot be shown again; it is revoked).
import { issueToken } from '../app/issue-token.ts'
import { openAccount } from '../app/open-account.ts'
import type { Clock } from '../clock.ts'
import type { Store } from '../store/store.ts'
import type { FakeEulen } from './fake-eulen.ts'
import type { TokenCache } from '../store/token-cache.ts'

export const DEMO_EMAIL = 'demo@example.com'
const DEMO_TAX_NUMBER = '52998224725'
const DEMO_NAME = 'Demo Merchant'

export async function ensureDemoMerchant(deps: { store: Store; clock: Clock; fake: FakeEulen; tokenCache?: TokenCache }) {
  const { euid } = await deps.fake.endUser(DEMO_TAX_NUMBER, DEMO_NAME)
  const account = await openAccount(deps, { email: DEMO_EMAIL, taxNumber: DEMO_TAX_NUMBER, name: DEMO_NAME, kyc: 'verified', euid })
  const issued = await issueToken(deps, { accountId: account.id })
  return { email: account.email, euid, token: issued.token }
}
