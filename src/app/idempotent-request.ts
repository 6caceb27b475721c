// One Idempotency-Key claim for every POST that makes money move (a charge, a withdrawal;
// docs/api-contract.md): the key is stored with the id its record will have before anything
// else happens, so a retry after a lost answer finds the same record and never makes a second.
// Same key, other body: idempotency_key_reused; still in flight: idempotency_key_in_use; a
// request that died holding the key is taken over, and what it made (if it made anything) is the
// answer.
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import type { Store } from '../store/store.ts'

export type IdempotentRequest<T> = {
  accountId: number
  key: string | undefined
  requestHash: string
  newId: () => string
  /** The record a request that died holding the key may have made under its id. */
  findMade: (id: string) => Promise<T | undefined>
  /** What a taken-over key needs before making anew (a charge looks for a deposit left behind). */
  beforeRemaking?: (claimedAt: Date) => Promise<void>
  /** Makes the record under `id`; `keyAnswered`: the statement that stored it answered the key too. */
  make: (id: string, key: string | undefined) => Promise<{ answer: T; keyAnswered?: boolean }>
}

export async function withIdempotencyKey<T>(deps: { store: Store; clock: Clock; log?: { warn: (details: object, message: string) => void } }, request: IdempotentRequest<T>): Promise<T> {
  const { accountId, key } = request
  if (key === undefined) return (await request.make(request.newId(), undefined)).answer
  const claim = await deps.store.idempotency.claim(accountId, key, request.requestHash, request.newId(), deps.clock.now())
  if (claim.outcome === 'reused') throw new DomainError('idempotency_key_reused')
  if (claim.outcome === 'in_use') throw new DomainError('idempotency_key_in_use', { retryAfterSeconds: claim.retryAfterSeconds })
  if (claim.outcome === 'replay') return claim.body as T
  let made: { answer: T; keyAnswered?: boolean }
  try {
    const found = claim.outcome === 'resumed' ? await request.findMade(claim.subjectId) : undefined
    if (found !== undefined) made = { answer: found }
    else {
      if (claim.outcome === 'resumed') await request.beforeRemaking?.(claim.claimedAt)
      made = await request.make(claim.subjectId, key)
    }
  } catch (error) {
    // Nothing was made: give the key back so a corrected or later retry can use it.
    await deps.store.idempotency.release(accountId, key).catch((releaseError: unknown) => deps.log?.warn({ err: releaseError }, 'could not release an idempotency key'))
    throw error
  }
  if (made.keyAnswered !== true) await deps.store.idempotency.complete(accountId, key, 200, made.answer)
  return made.answer
}
