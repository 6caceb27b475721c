// Mail waiting in the outbox carries a sign-in code: it is sealed (secrets/seal.ts), so the
// database alone never reveals a usable code. Mail sealed under another secret cannot be opened
// and is given up; its code was never delivered, so it costs the owner nothing.
import { createSealer, type Secrets } from '../secrets/seal.ts'
import type { Mail } from './mailer.ts'

export type MailSeal = { seal(mail: Mail): string; open(sealed: string): Mail | null }

export function createMailSeal(secrets: Secrets): MailSeal {
  const sealer = createSealer(secrets, 'mail-outbox')
  return {
    seal: (mail) => sealer.seal(JSON.stringify(mail)),
    open(sealed) {
      const text = sealer.open(sealed)
      return text === null ? null : (JSON.parse(text) as Mail)
    },
  }
}
