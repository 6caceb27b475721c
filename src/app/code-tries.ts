// Tries at the codes that guard money (a destination's, a withdrawal's), limited before the code
// is read: per session, per client address, per account and per subject (that destination or
// withdrawal). A code burns after five wrong tries; these budgets stop a client that guesses as
// fast as it can across codes, sessions and accounts, with 429 rate_limited and Retry-After.
// The budgets are the database's token buckets (store/rate-buckets.ts), as the API token limit's,
// so every instance of a deployment shares them. The Wallet calls this only for a signed-in
// session with a valid CSRF token, so strangers flooding the route never write a bucket
// (docs/design.md, "Codes that guard money").
import { createHash } from 'node:crypto'
import { DomainError } from '../domain/errors.ts'
import { translate, type Lang } from '../i18n/catalogue.ts'
import type { Store } from '../store/store.ts'
import { CODES_PER_ADDRESS_PER_HOUR } from './owner-sign-in.ts'

const perHour = (tries: number) => ({ perMinute: tries / 60, burst: tries })

/** Tries per hour, at once or spread: two codes' worth per session and per subject, the action-code budget's worth per account, and as many as sign-in codes an address may ask for. */
export const CODE_TRY_LIMITS = {
  session: perHour(10),
  address: perHour(CODES_PER_ADDRESS_PER_HOUR),
  account: perHour(20),
  subject: perHour(10),
}

const PREFIX = 'code:'
/** A bucket untouched this long is full again (the slowest refills in an hour): its row may go. */
const IDLE_SECONDS = 3_600
const FORGET_EVERY_MS = 600_000

export type CodeTrySubject = { accountId: number; purpose: 'destination' | 'withdrawal' | 'refund'; id: string }

/** Who tries: the session (its id) and the client address the form came from. */
export type CodeTrier = { sessionId: string; address: string }

export function createCodeTryLimit(deps: { store: Store; log: { warn: (details: object, message: string) => void }; monotonicNow?: () => number }) {
  const now = deps.monotonicNow ?? (() => performance.now())
  let forgotAt = now()
  return {
    /** Takes one try from each budget in turn; the first one spent answers 429 with its wait. */
    async take(trier: CodeTrier, lang: Lang, subject: CodeTrySubject): Promise<void> {
      if (now() - forgotAt > FORGET_EVERY_MS) {
        forgotAt = now()
        deps.store.rateBuckets.forgetIdle(PREFIX, IDLE_SECONDS).catch((error: unknown) => deps.log.warn({ err: error }, 'could not drop idle code-try buckets'))
      }
      // The session's id is a credential: its bucket is named by a hash of it.
      const session = createHash('sha256').update(`code-tries\n${trier.sessionId}`).digest('hex')
      const budgets = [
        [`${PREFIX}session:${session}`, CODE_TRY_LIMITS.session],
        [`${PREFIX}address:${trier.address}`, CODE_TRY_LIMITS.address],
        [`${PREFIX}account:${subject.accountId}`, CODE_TRY_LIMITS.account],
        [`${PREFIX}${subject.purpose}:${subject.id}`, CODE_TRY_LIMITS.subject],
      ] as const
      for (const [key, limit] of budgets) {
        const wait = await deps.store.rateBuckets.take(key, limit)
        if (wait > 0) throw new DomainError('rate_limited', { message: translate(lang, 'tooManyCodeTries', { minutes: String(Math.ceil(wait / 60)) }), retryAfterSeconds: wait, localized: true })
      }
    },
  }
}
