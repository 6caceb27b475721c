// Coins the treasury node locked for a funding whose transaction was never stored (the run died
// between walletcreatefundedpsbt and storing its PSBT) stay locked in the node until it restarts:
// no funding can use them, and with few coins every payout after waits as treasury_insufficient.
// They are found by comparing the node's locked coins with the coins spent by the transactions
// stored for live payouts, and unlocked: at start, and on a schedule (docs/treasury.md).
import type { Clock } from '../clock.ts'
import type { Store } from '../store/store.ts'
import { outpointKey, type Outpoint, type Treasury } from '../treasury/treasury.ts'

export type CoinUnlockDeps = {
  store: Store
  treasury: Treasury
  clock: Clock
  log?: { warn: (details: object, message: string) => void }
}

/** How often the schedule looks at the node's locked coins. */
export const UNLOCK_EVERY_MS = 5 * 60_000

/**
 * How long the schedule waits before it unlocks a coin it found orphaned: a funding under way in
 * another run (of this instance or another) has locked its coins and not yet stored its PSBT, for
 * the moment of a database write. A coin still orphaned this long after is no such funding's.
 */
export const ORPHAN_GRACE_MS = 60_000

/**
 * Unlocks the node's locked coins that no live payout's stored transaction spends, and answers
 * them. `seen` is the schedule's memory, each orphan and when it was first found: those found at
 * least ORPHAN_GRACE_MS ago are unlocked. Without it (at start, before this instance pays anything)
 * every orphan is unlocked at once.
 *
 * The locked coins are read before the stored transactions: a funding that stores its PSBT in
 * between is then seen as stored. The coins of a payout whose PSBT is stored stay locked whatever
 * its step (funded, signed, broadcast, in review), until it ends.
 */
export async function unlockOrphanedCoins(deps: CoinUnlockDeps, seen: Map<string, number> | null = null): Promise<Outpoint[]> {
  const locked = await deps.treasury.lockedCoins()
  if (locked.length === 0) {
    seen?.clear()
    return []
  }
  const claimed = new Set<string>()
  for (const funding of await deps.store.treasuryLocks.liveFundings()) {
    const stored = funding.txHex !== null ? { hex: funding.txHex } : { psbt: funding.psbt! }
    for (const coin of await deps.treasury.inputsOf(stored)) claimed.add(outpointKey(coin))
  }
  const orphans = locked.filter((coin) => !claimed.has(outpointKey(coin)))
  let due = orphans
  if (seen !== null) {
    const now = deps.clock.now().getTime()
    const orphanKeys = new Set(orphans.map(outpointKey))
    for (const key of seen.keys()) if (!orphanKeys.has(key)) seen.delete(key)
    due = orphans.filter((coin) => {
      const first = seen.get(outpointKey(coin))
      if (first === undefined) seen.set(outpointKey(coin), now)
      return first !== undefined && now - first >= ORPHAN_GRACE_MS
    })
  }
  const unlocked = await deps.treasury.unlockCoins(due)
  for (const coin of unlocked) {
    seen?.delete(outpointKey(coin))
    deps.log?.warn({ txid: coin.txid, vout: coin.vout }, 'unlocked a treasury coin locked by a funding whose transaction was never stored')
  }
  return unlocked
}
