// The store behind @fastify/session: rows keyed by the SHA-256 of the session id (the cookie
// holds the id; a database leak gives no usable session), ended after 30 minutes idle or 12 hours
// in all, on the wall clock: the limits measure the person at the keyboard, so moving the
// sandbox's clock (a day, to pass a cool-down) does not sign them out (docs/design.md). Deleting
// the row revokes the session wherever its cookie is. The Wallet and the support console each
// keep theirs this way, in rows of their own (store/sessions.ts).
import { createHash } from 'node:crypto'
import type { Session } from 'fastify'
import type { SessionStore } from '@fastify/session'
import type { Clock } from '../clock.ts'
import type { SessionRows } from '../store/sessions.ts'

export const SESSION_IDLE_MS = 30 * 60 * 1000
export const SESSION_ABSOLUTE_MS = 12 * 3600 * 1000

const hashOf = (sessionId: string) => createHash('sha256').update(sessionId).digest('hex')

/** `ownerOf`: whose the session is, written beside it (the account or the operator it signed in). */
export function createSessionStore<Owner>(
  deps: { wallClock: Clock },
  rows: SessionRows<Owner>,
  ownerOf: (session: Session) => Owner | null,
): SessionStore {
  const run = <T>(work: Promise<T>, callback: (error: unknown, value?: T) => void) => {
    work.then((value) => callback(null, value), (error: unknown) => callback(error))
  }
  return {
    get(sessionId, callback) {
      run(
        (async () => {
          const hash = hashOf(sessionId)
          const row = await rows.findSession(hash)
          if (!row) return null
          const now = deps.wallClock.now().getTime()
          if (now - row.last_seen_at.getTime() > SESSION_IDLE_MS || now - row.created_at.getTime() > SESSION_ABSOLUTE_MS) {
            await rows.deleteSession(hash)
            return null
          }
          await rows.touchSession(hash, deps.wallClock.now())
          return row.data as Session
        })(),
        callback,
      )
    },
    set(sessionId, session, callback) {
      run(rows.saveSession(hashOf(sessionId), ownerOf(session), JSON.stringify(session), deps.wallClock.now()), callback)
    },
    destroy(sessionId, callback) {
      run(rows.deleteSession(hashOf(sessionId)), callback)
    },
  }
}
