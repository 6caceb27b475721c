// What the support console's routes are given of the app's parts.
import type { RouteDeps } from '../web/deps.ts'

export type ConsoleDeps = Pick<RouteDeps, 'store' | 'clock' | 'wallClock' | 'config' | 'provider' | 'quotes' | 'opsTokens' | 'mailSeal' | 'authFailures' | 'treasury' | 'tokenCache'>
