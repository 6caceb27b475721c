// What the Wallet's routes are given of the app's parts.
import type { FastifyRequest } from 'fastify'
import type { Holder } from '../domain/second-factor.ts'
import type { RouteDeps } from '../web/deps.ts'

export type WalletDeps = Pick<RouteDeps, 'store' | 'clock' | 'wallClock' | 'config' | 'provider' | 'webhookDestinations' | 'tokenCache' | 'opsTokens' | 'mailSeal' | 'authFailures' | 'simulatePurchase' | 'quotes'>

/** The second-factor checks the Wallet's money pages make (wallet/factor-routes.ts), in the Wallet and the console. */
export type FactorGate = {
  /** Refused with step_up_required unless the owner has no factor or checked one within 5 minutes. */
  stepUp(request: FastifyRequest): Promise<void>
  /** The factor check of the session, for a use case that checks the step-up inside its transaction. */
  stepUpProof(request: FastifyRequest): { holder: Holder; checkedAt: number | null }
  /** Whether the owner must check a factor before the page's form can be sent. */
  needsStepUp(request: FastifyRequest): Promise<boolean>
  /** Which factor the session last checked (`kind:name`), for the audit log. */
  factorUsed(request: FastifyRequest): string | null
}
