// The store behind @fastify/session: rows keyed by the SHA-256 of the session id (the cookie
// holds the id; a database leak gives no usable session), ended after 30 minutes idle or 12 hours
// in all, on the service clock. Deleting the row revokes the session wherever its cookie is.
import { createHash } from 'node:crypto'
import type { Session } from 'fastify'
import type { SessionStore } from '@fastify/session'
import type { Clock } from '../clock.ts'
import type { Store } from '../store/store.ts'

export const SESSION_IDLE_MS = 30 * 60 * 1000
export const SESSION_ABSOLUTE_MS = 12 * 3600 * 1000


const hashOf = (sessionId: string) => createHash('sha256').update(sessionId).digest('hex')

export function createSessionStore(deps: { store: Store; clock: Clock }): SessionStore {
  const run = <T>(work: Promise<T>, callback: (error: unknown, value?: T) => void) => {
    work.then((value) => callback(null, value), (error: unknown) => callback(error))
  }
  return {
    get(sessionId, callback) {
      run(
        (async () => {
          const hash = hashOf(sessionId)
          const row = await deps.store.wallet.findSession(hash)
          if (!row) return null
          const now = deps.clock.now().getTime()
          if (now - row.last_seen_at.getTime() > SESSION_IDLE_MS || now - row.created_at.getTime() > SESSION_ABSOLUTE_MS) {
            await deps.store.wallet.deleteSession(hash)
            return null
          }
          await deps.store.wallet.touchSession(hash, deps.clock.now())
          return row.data as Session
        })(),
        callback,
      )
    },
    set(sessionId, session, callback) {
      const accountId = typeof session.accountId === 'number' ? session.accountId : null
      run(deps.store.wallet.saveSession(hashOf(sessionId), accountId, JSON.stringify(session), deps.clock.now()), callback)
    },
    destroy(sessionId, callback) {
      run(deps.store.wallet.deleteSession(hashOf(sessionId)), callback)
    },
  }
}
