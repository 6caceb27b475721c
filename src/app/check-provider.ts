// Readiness's view of the provider: the deployment's last check of it, read from the database,
// and asked again by at most one instance once that check is a minute old. The provider's /ping
// allows one call a minute for the whole account, so an instance never asks on its own schedule:
// a restarted or added instance is ready as soon as the deployment's check says so
// (docs/operations.md, "Readiness").
import type { Clock } from '../clock.ts'
import {
  PROVIDER_CHECK_CLAIM_MS, PROVIDER_CHECK_EVERY_MS, providerCheckDue, providerReadiness,
  type ProviderCheck, type ProviderReadiness,
} from '../domain/provider-check.ts'
import { ProviderBusyError, type PaymentProvider } from '../provider/provider.ts'
import type { Store } from '../store/store.ts'

export type CheckProviderDeps = {
  store: Store
  provider: PaymentProvider
  clock: Clock
  log: { warn: (details: object, message: string) => void }
  /** How long readiness waits for a ping it started; a slower answer is recorded when it comes, for the next look. */
  waitMs: number
}

/** The provider's readiness now, asking it first when the deployment's check is due and this instance claims it. */
export async function checkProvider(deps: CheckProviderDeps): Promise<ProviderReadiness> {
  const check = await deps.store.providerChecks.last()
  if (!providerCheckDue(check, deps.clock.now())) return providerReadiness(check, deps.clock.now())
  if (await deps.store.providerChecks.claim(deps.clock.now(), PROVIDER_CHECK_EVERY_MS, PROVIDER_CHECK_CLAIM_MS)) {
    const answered = await within(deps.waitMs, askProvider(deps))
    return providerReadiness(answered ?? check, deps.clock.now())
  }
  const readiness = providerReadiness(check, deps.clock.now())
  if (readiness.ready) return readiness
  // Another instance is asking (instances probed together at their first start): its answer,
  // when it comes within the wait, is the one to give.
  const newer = await within(deps.waitMs, (async () => {
    for (let tries = 0; tries * ANSWER_POLL_MS < deps.waitMs; tries++) {
      await new Promise((resolve) => setTimeout(resolve, ANSWER_POLL_MS))
      const last = await deps.store.providerChecks.last()
      if (last && (!check || last.checkedAt.getTime() !== check.checkedAt.getTime())) return last
    }
    return null
  })())
  return newer ? providerReadiness(newer, deps.clock.now()) : readiness
}

/** How often an instance waiting on another's check looks for its answer. */
const ANSWER_POLL_MS = 100

/** What `work` answers within `ms`, else null (the work goes on). */
async function within<T>(ms: number, work: Promise<T | null>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([work, new Promise<null>((resolve) => (timer = setTimeout(resolve, ms, null)))])
  } finally {
    clearTimeout(timer)
  }
}

/** Pings the provider and records what it answered; null when nothing was asked or the record failed. */
async function askProvider(deps: CheckProviderDeps): Promise<ProviderCheck | null> {
  let check: ProviderCheck
  try {
    await deps.provider.ping()
    check = { checkedAt: deps.clock.now(), ok: true, detail: null }
  } catch (error) {
    if (error instanceof ProviderBusyError) {
      // Not an answer about the provider: the account's ping budget is spent (by a process outside
      // this deployment, or a clock far off). The claim stands, so the next try is in 30 s; until
      // then the last check speaks.
      deps.log.warn({ err: error }, 'readiness could not ask the provider: its one /ping a minute is spent elsewhere; the last check stands')
      return null
    }
    const detail = error instanceof Error ? error.message : String(error)
    deps.log.warn({ provider_check: { detail } }, `the provider did not answer /ping: ${detail}`)
    check = { checkedAt: deps.clock.now(), ok: false, detail }
  }
  try {
    await deps.store.providerChecks.record(check)
    return check
  } catch (error) {
    deps.log.warn({ err: error }, 'the provider check could not be recorded')
    return null
  }
}
