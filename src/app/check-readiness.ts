// What /readyz asks besides the provider (app/check-provider.ts): whether the database answers,
// and whether mail leaves. Mail is judged by the outbox's latest attempt when one was made in the
// last five minutes, else by asking the mail server itself, at most every 30 s.
import type { Clock } from '../clock.ts'
import type { Store } from '../store/store.ts'

const MAIL_CHECK_EVERY_MS = 30_000
/** An attempt to send this recent says more about the mail server than asking it. */
const RECENT_MAIL_MS = 5 * 60_000
/** A mail server that hangs must not hang readiness: this is all it gets. */
const MAIL_SERVER_WAIT_MS = 2_000

export function databaseAnswers(deps: { store: Store }): Promise<boolean> {
  return deps.store.ping()
}

/** The mail check of one instance: it remembers the mail server's last answer between probes. */
export function createMailCheck(deps: { store: Store; clock: Clock; mailServerAnswers: () => Promise<boolean> }): () => Promise<boolean> {
  let serverCheck: { at: number; ok: boolean } | null = null
  return async function mailWorks() {
    const last = await deps.store.mail.lastAttempt()
    if (last && deps.clock.now().getTime() - last.at.getTime() < RECENT_MAIL_MS) return last.ok
    if (!serverCheck || performance.now() - serverCheck.at >= MAIL_CHECK_EVERY_MS) {
      const answered = await Promise.race([deps.mailServerAnswers(), new Promise<boolean>((resolve) => setTimeout(resolve, MAIL_SERVER_WAIT_MS, false).unref())])
      serverCheck = { at: performance.now(), ok: answered }
    }
    return serverCheck.ok
  }
}
