// What each kind of job does: the matching use case or the webhook sender.
import { expireCharge } from '../app/expire-charge.ts'
import { reconcileCharge } from '../app/reconcile-charge.ts'
import { sendQueuedMails } from '../app/send-queued-mail.ts'
import { notifySale } from '../app/notify-sale.ts'
import { sendOperatorDigest } from '../app/operator-digest.ts'
import type { Operator } from '../domain/operators.ts'
import { sendPayout } from '../app/send-payout.ts'
import { followLiquidPayouts } from '../app/follow-liquid-payouts.ts'
import { vacuumDatabase } from '../app/vacuum-database.ts'
import { UNLOCK_EVERY_MS, unlockOrphanedCoins } from '../app/unlock-orphaned-coins.ts'
import { TreasuryUnavailableError, type Treasury } from '../treasury/treasury.ts'
import type { LiquidNetwork } from '../treasury/liquid-address.ts'
import type { Mailer } from '../mail/mailer.ts'
import type { MailSeal } from '../mail/sealed-mail.ts'
import { releaseHold } from '../app/release-hold.ts'
import { SWEEP_EVERY_MS, sweepProviderDeposits } from '../app/sweep-provider-deposits.ts'
import type { Clock } from '../clock.ts'
import type { SweepPlan } from '../domain/reconciliation.ts'
import type { PaymentProvider } from '../provider/provider.ts'
import type { QuoteBook } from '../app/quote-book.ts'
import type { Store } from '../store/store.ts'
import type { WebhookDestinations } from '../webhooks/destination.ts'
import { deliverWebhook } from '../webhooks/sender.ts'
import type { JobHandlers } from './runner.ts'

export function jobHandlers(deps: {
  store: Store
  clock: Clock
  wallClock: Clock
  provider: PaymentProvider
  quotes: QuoteBook
  publicWebhooksOnly: boolean
  webhookDestinations: WebhookDestinations
  /** What the deposit sweep lists, per provider status. */
  sweepPlans: readonly SweepPlan[]
  mailer: Mailer
  mailSeal: MailSeal
  baseUrl: string
  /** Who gets the daily digest of the console's queues. */
  operators: readonly Operator[]
  treasury: Treasury
  network: LiquidNetwork
  confirmations: number
  followEveryMs: number
  log?: { warn: (details: object, message: string) => void; error: (details: object, message: string) => void }
}): JobHandlers {
  /** The orphaned coins this instance's schedule found, and when it first found each. */
  const orphansSeen = new Map<string, number>()
  /** A pass that asks the treasury node, again in `everyMs`: a node down or busy is logged and looked at again at the usual pace. */
  const nodePass = async (pass: () => Promise<unknown>, everyMs: number, failed: string) => {
    try {
      await pass()
    } catch (error) {
      if (!(error instanceof TreasuryUnavailableError)) throw error
      deps.log?.warn({ err: error }, failed)
    }
    return { again: new Date(deps.clock.now().getTime() + everyMs) }
  }
  return {
    // Queued by versions before the charge's one job (create-charge.ts): served for the jobs they
    // left, and for their instances still running during a rolling upgrade.
    async expire_charge(payload) {
      await expireCharge(deps, payload.chargeId)
      return { done: true }
    },
    async release_hold(payload) {
      await releaseHold(deps, payload.chargeId)
      return { done: true }
    },
    async reconcile_charge(payload) {
      const next = await reconcileCharge(deps, payload.chargeId)
      return next === null ? { done: true } : { again: next }
    },
    async sweep_deposits() {
      await sweepProviderDeposits(deps, deps.sweepPlans)
      return { again: new Date(deps.clock.now().getTime() + SWEEP_EVERY_MS) }
    },
    async operator_digest() {
      return { again: (await sendOperatorDigest(deps)).next }
    },
    async vacuum_database() {
      return { again: await vacuumDatabase(deps) }
    },
    unlock_treasury_coins: () => nodePass(() => unlockOrphanedCoins(deps, orphansSeen), UNLOCK_EVERY_MS, 'could not look for orphaned treasury coin locks; will look again'),
    // The mail lane's jobs due together, sent as one batch (app/send-queued-mail.ts).
    send_mail: {
      async batch(jobs) {
        const next = await sendQueuedMails(deps, jobs.map((job) => job.payload.mailId))
        return next.map((at) => (at === null ? { done: true } : { again: at }))
      },
    },
    async notify_sale(payload) {
      await notifySale(deps, payload.chargeId, payload.notice)
      return { done: true }
    },
    async send_payout(payload) {
      const next = await sendPayout(deps, payload.payoutId)
      return next === null ? { done: true } : { again: next }
    },
    follow_liquid_payouts: () => nodePass(() => followLiquidPayouts(deps), deps.followEveryMs, 'could not ask the treasury node about sent payouts; will look again'),
    async deliver_webhook(payload, _job, control) {
      const next = await deliverWebhook(deps, payload.eventId, () => control.requestDone())
      return next === null ? { done: true } : { again: next }
    },
  }
}
