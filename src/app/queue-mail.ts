// Every message to an owner leaves through the outbox and the job queue (a request never waits on
// the mail server): sealed at rest, sent by the send_mail job queued with it, given up past `sendBefore`.
import type { MailSeal } from '../mail/sealed-mail.ts'
import type { Store } from '../store/store.ts'

export async function queueMail(
  deps: { store: Store; mailSeal: MailSeal },
  mail: { to: string; subject: string; text: string; code?: string; codeId: number | null; now: Date; sendBefore: Date },
): Promise<void> {
  const { store } = deps
  const sealed = deps.mailSeal.seal({ to: mail.to, subject: mail.subject, text: mail.text, ...(mail.code === undefined ? {} : { code: mail.code }) })
  await store.mail.queue({ codeId: mail.codeId, to: mail.to, sealed, now: mail.now, sendBefore: mail.sendBefore })
}
