// Whether the provider counts as reachable for readiness, from the deployment's last check of it.
// Eulen's /ping allows one call a minute for the whole provider account, so the check belongs to
// the deployment, not to an instance: every instance reads the same last check (when and what it
// found), and at most one of them asks again, once a minute (docs/operations.md, "Readiness").

/** How often the deployment asks the provider's /ping: its published limit is one call a minute. */
export const PROVIDER_CHECK_EVERY_MS = 60_000

/** A check older than this says nothing about the provider now: nobody could ask it since. */
export const PROVIDER_CHECK_STALE_MS = 5 * 60_000

/** How long an instance that set out to ask keeps the others from asking (a provider call's longest time-out, 30 s). */
export const PROVIDER_CHECK_CLAIM_MS = 30_000

/** The deployment's last answer from the provider's /ping: ok, or why not. */
export type ProviderCheck = { checkedAt: Date; ok: boolean; detail: string | null }

export type ProviderReadiness = {
  ready: boolean
  /** Why the provider does not count as reachable; null when it does. */
  reason: 'never_checked' | 'failed' | 'stale' | null
  check: ProviderCheck | null
  /** Whole seconds since the check, never negative (instances' clocks differ a little); null without one. */
  ageSeconds: number | null
}

/** Whether the last check is old enough (or missing) for the deployment to ask the provider again. */
export function providerCheckDue(check: ProviderCheck | null, now: Date): boolean {
  return check === null || now.getTime() - check.checkedAt.getTime() >= PROVIDER_CHECK_EVERY_MS
}

/** The provider is reachable when the last check, at most PROVIDER_CHECK_STALE_MS old, found it answering. */
export function providerReadiness(check: ProviderCheck | null, now: Date): ProviderReadiness {
  if (check === null) return { ready: false, reason: 'never_checked', check, ageSeconds: null }
  const ageMs = Math.max(0, now.getTime() - check.checkedAt.getTime())
  const ageSeconds = Math.floor(ageMs / 1000)
  if (ageMs > PROVIDER_CHECK_STALE_MS) return { ready: false, reason: 'stale', check, ageSeconds }
  if (!check.ok) return { ready: false, reason: 'failed', check, ageSeconds }
  return { ready: true, reason: null, check, ageSeconds }
}
