// Random identifiers in hex, drawn from a buffer the CSPRNG refills many at a time.
import { randomFillSync } from 'node:crypto'

/**
 * A source of random hex strings of `bytes` bytes each, drawn 128 at a time: a call to the
 * CSPRNG per identifier cost more than the identifier (docs/performance.md, "Smaller choices,
 * measured").
 */
export function randomHexSource(bytes: number): () => string {
  const PER_FILL = 128
  const pool = Buffer.alloc(bytes * PER_FILL)
  let next = PER_FILL
  return () => {
    if (next === PER_FILL) {
      randomFillSync(pool)
      next = 0
    }
    const start = bytes * next++
    return pool.toString('hex', start, start + bytes)
  }
}
