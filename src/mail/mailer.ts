// Outgoing e-mail. Production sends over SMTP with nodemailer; the sandbox without SMTP_URL keeps
// mail in an outbox instead (sandbox/outbox.ts), behind the same interface.
import nodemailer from 'nodemailer'

export type Mail = {
  to: string
  subject: string
  text: string
  /** The one-time code the mail carries, kept apart so the sandbox outbox can show it. */
  code?: string
  /** A Message-ID that stays the same when a message is sent again. */
  messageId?: string
}

export type Mailer = {
  send(mail: Mail): Promise<void>
  /** Whether the mail server answers and takes our credentials (for /readyz). */
  check(): Promise<boolean>
  close(): Promise<void>
}

/** `url` as nodemailer reads it: smtp://user:pass@host:587 (STARTTLS when offered) or smtps://host:465. */
export function createSmtpMailer(options: { url: string; from: string; timeoutMs?: number }): Mailer {
  const timeout = options.timeoutMs ?? 10_000
  const url = new URL(options.url)
  url.searchParams.set('connectionTimeout', String(timeout))
  url.searchParams.set('greetingTimeout', String(timeout))
  url.searchParams.set('socketTimeout', String(timeout))
  // Kept-open connections (nodemailer's pool), one per mail the lane sends at once: a connection,
  // greeting and STARTTLS per message cannot keep up with a burst of payouts, two mails each
  // (docs/performance.md, "Smaller choices, measured").
  if (!url.searchParams.has('pool')) url.searchParams.set('pool', 'true')
  const transport = nodemailer.createTransport(url.href)
  return {
    async send(mail) {
      await transport.sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.text, ...(mail.messageId ? { messageId: mail.messageId } : {}) })
    },
    check() {
      return transport.verify().then(() => true, () => false)
    },
    async close() {
      transport.close()
    },
  }
}
