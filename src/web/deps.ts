// What the composition root (service.ts) hands the HTTP app, and what each route plugin is given
// of it. Route plugins take only the parts they use (a Pick of RouteDeps), so a reader sees from a
// plugin's type what it can reach.
import type { Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import type { CreateChargeDeps } from '../app/create-charge.ts'
import type { QuoteBook } from '../app/quote-book.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { PaymentProvider } from '../provider/provider.ts'
import type { Charge } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import type { TokenCache } from '../store/token-cache.ts'
import type { WebhookDestinations } from '../webhooks/destination.ts'
import type { Treasury } from '../treasury/treasury.ts'
import type { Secrets } from '../secrets/seal.ts'
import type { AuthFailureLimiter } from './auth-failures.ts'

export type AppDeps = {
  config: Config
  store: Store
  provider: PaymentProvider
  clock: Clock
  /**
   * Wall-clock time, even in the sandbox whose service clock has moved: what measures a person at
   * the keyboard (session idle and absolute limits) or a receiver's own clock (webhook-timestamp).
   */
  wallClock: Clock
  /** Who may receive webhooks (checked when a charge or withdrawal names one). */
  webhookDestinations: WebhookDestinations
  tokenCache?: TokenCache
  /** The provider webhook secret, and during a rotation the previous one as well. */
  providerWebhookSecrets: Secrets
  /** OPS_TOKEN, and during a rotation OPS_TOKEN_PREVIOUS as well: what signs and seals uses the first. */
  opsTokens: Secrets
  /** Seals what waits in the database (the outbox's mail, a token until it is shown). */
  mailSeal: MailSeal
  /** Whether the mail server takes our mail (for /readyz). */
  mailServerAnswers: () => Promise<boolean>
  quotes: QuoteBook
  /** The Liquid treasury (its balances for the solvency view). */
  treasury: Treasury
  /** Sandbox only: the Wallet's "Simular pagamento", the owner paying the own purchase at the fake provider. */
  simulatePurchase?: (charge: Charge) => Promise<void>
}

/** What a route plugin may be given: the app's parts, and the per-address limit on failed authentication. */
export type RouteDeps = AppDeps & { authFailures: AuthFailureLimiter }

/** What create-charge needs, from the app's parts and configuration; the same for every route that charges. */
export function createChargeDeps(deps: Pick<AppDeps, 'store' | 'provider' | 'clock' | 'config' | 'webhookDestinations'>, log: CreateChargeDeps['log']): CreateChargeDeps {
  return {
    store: deps.store,
    provider: deps.provider,
    clock: deps.clock,
    baseUrl: deps.config.baseUrl,
    payerLadder: deps.config.payerLadder,
    publicWebhooksOnly: deps.config.publicWebhooksOnly,
    providerDelayHours: deps.config.providerDelayHours,
    webhookDestinations: deps.webhookDestinations,
    ...(log ? { log } : {}),
  }
}
