// Sent Liquid payouts are followed to their confirmations together, by one job of the deployment
// (follow_liquid_payouts, every TREASURY_POLL_SECONDS): the node is asked about a page of them in
// one request, and each is then completed, or its confirmations kept, on its own, so one payout's
// failure never holds up another's (docs/treasury.md, "Payouts"). A payout followed by its own
// job cost a claim, a read of the payout, a request to the node and a reschedule at every look
// (docs/performance.md, "Withdrawals").
import { TreasuryUnavailableError } from '../treasury/treasury.ts'
import { followLiquidPayout, type SendPayoutDeps } from './send-payout.ts'

/** Sent payouts asked about in one request to the node. */
export const FOLLOW_PAGE = 200

/**
 * Payouts of a page moved at once, each in its own transaction, as many as the payouts lane's
 * slots (its other jobs run beside them; the database's pool queues what it cannot take). One at a
 * time, a thousand completions took half as long again, and their owners' mails, queued one by
 * one, were sent one to a batch (docs/performance.md, "Withdrawals").
 */
const MOVED_AT_ONCE = 8

/** Looks at every sent Liquid payout once; throws only when the node or the database cannot be asked for the list. */
export async function followLiquidPayouts(deps: SendPayoutDeps): Promise<void> {
  for (let after = ''; ;) {
    const page = await deps.store.payouts.listSentLiquid(after, FOLLOW_PAGE)
    if (page.length === 0) return
    const seen = await deps.treasury.confirmationsOf(page.map((payout) => payout.txid!))
    let next = 0
    const mover = async () => {
      for (let index = next++; index < page.length; index = next++) {
        const payout = page[index]!
        const answer = seen[index] ?? null
        try {
          // The node failed this one's call alone: it is looked at again at the next pass.
          if (answer instanceof Error) throw answer
          await followLiquidPayout(deps, payout, answer)
        } catch (error) {
          // Looked at again at the next pass, as the others are.
          if (error instanceof TreasuryUnavailableError) deps.log?.warn({ err: error, payoutId: payout.id }, 'could not follow a sent payout; will look again')
          else deps.log?.error({ err: error, payoutId: payout.id }, 'could not follow a sent payout; will look again')
        }
      }
    }
    await Promise.all(Array.from({ length: MOVED_AT_ONCE }, mover))
    if (page.length < FOLLOW_PAGE) return
    after = page.at(-1)!.id
  }
}
