// A fake Elements treasury for tests that start the service in production mode: a real JSON-RPC
// server the production adapter is pointed at, with the environment that points it there.
import { randomBytes } from 'node:crypto'
import { loadConfig } from '../../src/config.ts'
import { startFakeElements, type FakeElements } from '../../src/sandbox/fake-elements.ts'
import { createElementsTreasury } from '../../src/treasury/elements-rpc.ts'
import type { Treasury } from '../../src/treasury/treasury.ts'

/** `client`: the production adapter pointed at it, for a test that reads the books against the node without a service. */
export async function startTestTreasury(): Promise<{ elements: FakeElements; env: Record<string, string>; client: Treasury }> {
  const { assets } = loadConfig({}).treasury
  // A password like a generated one: production warns of a weak one, and the tests check those warnings.
  const password = randomBytes(24).toString('base64url')
  const elements = await startFakeElements({ network: 'elementsregtest', wallet: 'treasury', user: 'rpc', password, assets })
  // Many coins, as a treasury that has received many deposits: a payout whose funded transaction
  // was lost in a crash leaves its coins locked in the node until it restarts, and the others pay.
  elements.setBalance('DEPIX', 100_000_000_000_000n, 20)
  elements.setBalance('BTC', 1_000_000_000n, 20)
  elements.setBalance('USDt', 10_000_000_000_000n, 20)
  return {
    elements,
    client: createElementsTreasury({ url: elements.url, wallet: 'treasury', auth: { user: 'rpc', password }, assets, timeoutMs: 10_000 }),
    env: { LIQUID_NETWORK: 'elementsregtest', ELEMENTS_RPC_URL: elements.url, ELEMENTS_RPC_USER: 'rpc', ELEMENTS_RPC_PASSWORD: password, ELEMENTS_WALLET: 'treasury' },
  }
}

/**
 * Kills the spawned service at the first call of `method` the node takes (`before` doing it or
 * `after`), the call lost with it, and answers `request`'s answer. The kill waits for that answer:
 * the payout worker may reach the node before the request that queued the payout is answered (on
 * a busy machine), and the test must learn what it made. The caller clears the hook.
 */
export function killAtNodeCall<T>(elements: FakeElements, method: string, phase: 'before' | 'after', kill: () => Promise<void>, request: () => Promise<T>): Promise<T> {
  let armed = true
  let asked: Promise<T> | undefined
  elements.setHook(async (called, when) => {
    if (!armed || called !== method || when !== phase) return
    armed = false
    await asked
    await kill()
    return 'drop'
  })
  asked = request()
  return asked
}
