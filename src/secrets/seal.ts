// What must wait somewhere readable by the database (a sign-in code in the mail outbox, a new API
// token between the POST that made it and the page that shows it once) is sealed with AES-256-GCM
// under a key derived from the deployment's operator secret and the purpose, so the database
// alone never reveals it. A restart with another secret (a sandbox without OPS_TOKEN) cannot open
// what an earlier one sealed, unless that secret is still given as the previous one (a rotation).
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto'

/**
 * A secret being rotated: the current one, then the one it replaces while both are accepted
 * (OPS_TOKEN_PREVIOUS, PROVIDER_WEBHOOK_SECRET_PREVIOUS). New things are made with the first only.
 */
export type Secrets = readonly [current: string, ...previous: string[]]

export type Sealer = {
  seal(text: string): string
  open(sealed: string): string | null
  /** Whether the current secret opens it (not only a previous one): what must outlive a rotation is sealed again until it does. */
  isCurrent(sealed: string): boolean
}

export function createSealer(secrets: Secrets, purpose: string): Sealer {
  // Key objects made once: a raw key handed to each cipher is imported again every time (a seal
  // of an e-mail cost about 70 µs of CPU so, 20 µs with the key object).
  const keys = secrets.map((secret) => createSecretKey(createHmac('sha256', secret).update(purpose).digest()))
  const openWith = (sealed: string, candidates: readonly KeyObject[]): string | null => {
    const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'))
    if (!iv || !tag || !body) return null
    for (const key of candidates) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv)
        decipher.setAuthTag(tag)
        return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')
      } catch {
        // Sealed under another of the secrets, or by none of them: the next one, or nothing.
      }
    }
    return null
  }
  return {
    seal(text) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', keys[0]!, iv)
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()])
      return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.')
    },
    open: (sealed) => openWith(sealed, keys),
    isCurrent: (sealed) => openWith(sealed, keys.slice(0, 1)) !== null,
  }
}
