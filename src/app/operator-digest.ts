// Operators learn of work (docs/rules.md#console): once a day, when any console queue is not
// empty, each operator gets one e-mail with the counts and the link. One job per deployment
// (`operator_digest`) runs it; the day's digest is recorded in the audit log in the transaction
// that queues the mail, so a run that is repeated (a crash before rescheduling) sends nothing twice.
import type { Clock } from '../clock.ts'
import type { Operator } from '../domain/operators.ts'
import { catalogues, fill, type Lang } from '../i18n/catalogue.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import { consoleQueues, type ConsoleQueue } from '../domain/support-queues.ts'
import type { Store } from '../store/store.ts'
import { queueMail } from './queue-mail.ts'
import { queueCounts } from './support-queues.ts'

/** 08:00 in São Paulo (UTC-3, no daylight saving since 2019). */
const DIGEST_UTC_HOUR = 11
const DAY_MS = 86_400_000

/** The next 08:00 São Paulo strictly after `now`. */
export function nextDigestAt(now: Date): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), DIGEST_UTC_HOUR)
  return new Date(today > now.getTime() ? today : today + DAY_MS)
}

const queueText: Record<ConsoleQueue, 'queueHolds' | 'queueRefunds' | 'queueWithdrawals' | 'queueUnknownDeposits' | 'queueProviderRefusals' | 'queueStuck'> = {
  holds: 'queueHolds', refunds: 'queueRefunds', withdrawals: 'queueWithdrawals', unknown_deposits: 'queueUnknownDeposits',
  provider_refusals: 'queueProviderRefusals', stuck_reconciliations: 'queueStuck',
}

/** The digest's text: the non-empty queues, in the operators' language (Portuguese). */
export function digestMail(lang: Lang, counts: Record<ConsoleQueue, number>, consoleUrl: string): { subject: string; text: string } {
  const texts = catalogues[lang].console
  const busy = consoleQueues.filter((queue) => counts[queue] > 0)
  const total = busy.reduce((sum, queue) => sum + counts[queue], 0)
  const lines = busy.map((queue) => `- ${texts[queueText[queue]]}: ${counts[queue]}`).join('\n')
  return { subject: fill(texts.digestSubject, { total: String(total) }), text: fill(texts.digestText, { lines, url: consoleUrl }) }
}

/** Sends today's digest if a queue has work and it was not sent yet; answers when to run next. */
export async function sendOperatorDigest(deps: { store: Store; clock: Clock; mailSeal: MailSeal; operators: readonly Operator[]; baseUrl: string }): Promise<{ sent: number; next: Date }> {
  const now = deps.clock.now()
  const next = nextDigestAt(now)
  if (deps.operators.length === 0) return { sent: 0, next }
  const counts = await queueCounts(deps)
  if (consoleQueues.every((queue) => counts[queue] === 0)) return { sent: 0, next }
  const day = `digest:${new Date(now.getTime() - 3 * 3_600_000).toISOString().slice(0, 10)}`
  const mail = digestMail('pt-BR', counts, `${deps.baseUrl}/console`)
  const sent = await deps.store.transaction(async (store) => {
    if ((await store.console.auditOf([day])).length > 0) return 0
    for (const operator of deps.operators) {
      await queueMail({ store, mailSeal: deps.mailSeal }, { to: operator.email, ...mail, codeId: null, now, sendBefore: new Date(now.getTime() + 12 * 3_600_000) })
    }
    await store.audit.record({ actor: 'service', action: 'console.digest', subject: day, details: { counts, operators: deps.operators.map((operator) => operator.email) }, at: now })
    return deps.operators.length
  })
  return { sent, next }
}
