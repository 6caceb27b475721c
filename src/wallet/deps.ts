// What the Wallet's routes are given of the app's parts.
import type { RouteDeps } from '../web/deps.ts'

export type WalletDeps = Pick<RouteDeps, 'store' | 'clock' | 'wallClock' | 'config' | 'provider' | 'webhookDestinations' | 'tokenCache' | 'opsTokens' | 'mailSeal' | 'authFailures' | 'simulatePurchase' | 'quotes'>
