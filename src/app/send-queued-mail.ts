// A job sends one message of the outbox (the Wallet's codes): handed to the mail server once, or
// retried with back-off until its code expires; a request never waits on the mail server.
import type { Clock } from '../clock.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { Mailer } from '../mail/mailer.ts'
import type { Store } from '../store/store.ts'

/** Waits between attempts: soon at first (a blip), then less often; a code lives 10 minutes. */
export function mailRetryDelayMs(attempts: number): number {
  return Math.min(5_000 * 2 ** attempts, 120_000)
}

/** Sends the message if it still waits; answers when to try again, or null when it is settled. */
export async function sendQueuedMail(
  deps: { store: Store; clock: Clock; mailer: Mailer; mailSeal: MailSeal; log?: { warn: (details: object, message: string) => void } },
  mailId: number,
): Promise<Date | null> {
  const row = await deps.store.mail.find(mailId)
  if (!row || row.state !== 'pending') return null
  const now = deps.clock.now()
  const mail = deps.mailSeal.open(row.sealed)
  if (mail === null || now.getTime() >= row.send_before.getTime()) {
    await deps.store.mail.settle(mailId, { state: 'failed', now, error: mail === null ? 'sealed with another key' : 'not sent before its code expired' })
    return null
  }
  try {
    // The message id is the outbox row's: a retry after a reply lost on the way back carries the same one.
    await deps.mailer.send({ ...mail, messageId: `<outbox-${row.id}-${row.created_at.getTime()}@pix-charge-service>` })
  } catch (error) {
    await deps.store.mail.recordFailure(mailId, (error as Error).message ?? String(error), deps.clock.now())
    deps.log?.warn({ err: error, mailId }, 'the mail server did not take a message; it will be tried again')
    return new Date(deps.clock.now().getTime() + mailRetryDelayMs(row.attempts))
  }
  await deps.store.mail.settle(mailId, { state: 'sent', now: deps.clock.now() })
  return null
}
