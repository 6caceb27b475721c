// Jobs send the messages of the outbox (the Wallet's codes, the owners' notices): each handed to
// the mail server once, or retried with back-off until its code expires; a request never waits on
// the mail server. The mail lane takes the send_mail jobs due together: their messages are read in
// one statement, sent one after another over the kept-open connection, and those the server took
// are marked sent in one statement (docs/performance.md, "Withdrawals").
import type { Clock } from '../clock.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { Mailer } from '../mail/mailer.ts'
import type { Store } from '../store/store.ts'

/** Waits between attempts: soon at first (a blip), then less often; a code lives 10 minutes. */
export function mailRetryDelayMs(attempts: number): number {
  return Math.min(5_000 * 2 ** attempts, 120_000)
}

/**
 * Sends the messages that still wait; answers, for each id in order, when to try it again, or
 * null when it is settled. A message the server took and the process dies before marking is sent
 * again by the job's next run (at least once, the message id unchanged).
 */
export async function sendQueuedMails(
  deps: { store: Store; clock: Clock; mailer: Mailer; mailSeal: MailSeal; log?: { warn: (details: object, message: string) => void } },
  mailIds: readonly number[],
): Promise<Array<Date | null>> {
  const rows = new Map((await deps.store.mail.findMany(mailIds)).map((row) => [row.id, row]))
  const taken: number[] = []
  const next: Array<Date | null> = []
  for (const mailId of mailIds) {
    const row = rows.get(mailId)
    const now = deps.clock.now()
    if (!row || row.state !== 'pending') {
      next.push(null)
      continue
    }
    const mail = deps.mailSeal.open(row.sealed)
    if (mail === null || now.getTime() >= row.send_before.getTime()) {
      await deps.store.mail.markFailed(mailId, mail === null ? 'sealed with another key' : 'not sent before its code expired')
      next.push(null)
      continue
    }
    try {
      // The message id is the outbox row's: a retry after a reply lost on the way back carries the same one.
      await deps.mailer.send({ ...mail, messageId: `<outbox-${row.id}-${row.created_at.getTime()}@pix-charge-service>` })
    } catch (error) {
      await deps.store.mail.recordFailure(mailId, (error as Error).message ?? String(error), deps.clock.now())
      deps.log?.warn({ err: error, mailId }, 'the mail server did not take a message; it will be tried again')
      next.push(new Date(deps.clock.now().getTime() + mailRetryDelayMs(row.attempts)))
      continue
    }
    taken.push(mailId)
    next.push(null)
  }
  await deps.store.mail.markSent(taken, deps.clock.now())
  return next
}
