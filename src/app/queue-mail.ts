// Every message to an owner leaves through the outbox and the job queue (a request never waits on
// the mail server): sealed at rest, sent by the send_mail job queued with it, given up past `sendBefore`.
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { QueuedMail } from '../store/mail.ts'
import type { Store } from '../store/store.ts'

export type MailToQueue = { to: string; subject: string; text: string; code?: string; codeId: number | null; now: Date; sendBefore: Date }

/** The message as the outbox keeps it: for a statement that queues it with the change that causes it (store/mail.ts, withQueuedMail). */
export function sealedMail(deps: { mailSeal: MailSeal }, mail: MailToQueue): QueuedMail {
  const sealed = deps.mailSeal.seal({ to: mail.to, subject: mail.subject, text: mail.text, ...(mail.code === undefined ? {} : { code: mail.code }) })
  return { codeId: mail.codeId, to: mail.to, sealed, now: mail.now, sendBefore: mail.sendBefore }
}

export async function queueMail(deps: { store: Store; mailSeal: MailSeal }, mail: MailToQueue): Promise<void> {
  await deps.store.mail.queue(sealedMail(deps, mail))
}
