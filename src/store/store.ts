// The store: one repository per aggregate over one Kysely handle. `transaction` hands the
// callback the same repositories bound to a transaction.
import { sql, type Kysely } from 'kysely'
import { accountsRepository } from './accounts.ts'
import { auditRepository } from './audit.ts'
import { jobsRepository } from './jobs.ts'
import { chargesRepository } from './charges.ts'
import { clawbacksRepository } from './clawbacks.ts'
import { consoleRepository } from './console.ts'
import { idempotencyRepository } from './idempotency.ts'
import { identitiesRepository } from './identities.ts'
import { ledgerRepository } from './ledger.ts'
import { mailRepository } from './mail.ts'
import { paidAmountProposalsRepository } from './paid-amount-proposals.ts'
import { quotesRepository } from './quotes.ts'
import type { Database } from './schema.ts'
import { tokensRepository } from './tokens.ts'
import { treasuryLocksRepository } from './treasury-locks.ts'
import { upkeepRepository } from './upkeep.ts'
import { providerChecksRepository } from './provider-checks.ts'
import { rateBucketsRepository } from './rate-buckets.ts'
import { payoutsRepository } from './payouts.ts'
import { paymentLinksRepository } from './payment-links.ts'
import { refundsRepository } from './refunds.ts'
import { merchantRefundsRepository } from './merchant-refunds.ts'
import { secondFactorsRepository } from './second-factors.ts'
import { sessionsRepository } from './sessions.ts'
import { statementRepository } from './statement.ts'
import { reportsRepository } from './reports.ts'
import { sweepsRepository } from './sweeps.ts'
import { unknownDepositsRepository } from './unknown-deposits.ts'
import { walletRepository } from './wallet.ts'
import { webhookEventsRepository } from './webhook-events.ts'
import { withdrawalsRepository } from './withdrawals.ts'

export type Store = {
  accounts: ReturnType<typeof accountsRepository>
  tokens: ReturnType<typeof tokensRepository>
  charges: ReturnType<typeof chargesRepository>
  identities: ReturnType<typeof identitiesRepository>
  idempotency: ReturnType<typeof idempotencyRepository>
  ledger: ReturnType<typeof ledgerRepository>
  quotes: ReturnType<typeof quotesRepository>
  jobs: ReturnType<typeof jobsRepository>
  audit: ReturnType<typeof auditRepository>
  webhookEvents: ReturnType<typeof webhookEventsRepository>
  wallet: ReturnType<typeof walletRepository>
  unknownDeposits: ReturnType<typeof unknownDepositsRepository>
  rateBuckets: ReturnType<typeof rateBucketsRepository>
  providerChecks: ReturnType<typeof providerChecksRepository>
  clawbacks: ReturnType<typeof clawbacksRepository>
  console: ReturnType<typeof consoleRepository>
  sessions: ReturnType<typeof sessionsRepository>
  refunds: ReturnType<typeof refundsRepository>
  merchantRefunds: ReturnType<typeof merchantRefundsRepository>
  payouts: ReturnType<typeof payoutsRepository>
  sweeps: ReturnType<typeof sweepsRepository>
  statement: ReturnType<typeof statementRepository>
  reports: ReturnType<typeof reportsRepository>
  mail: ReturnType<typeof mailRepository>
  withdrawals: ReturnType<typeof withdrawalsRepository>
  upkeep: ReturnType<typeof upkeepRepository>
  treasuryLocks: ReturnType<typeof treasuryLocksRepository>
  paidAmountProposals: ReturnType<typeof paidAmountProposalsRepository>
  factors: ReturnType<typeof secondFactorsRepository>
  paymentLinks: ReturnType<typeof paymentLinksRepository>
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T>
  /** Whether the database answers (readiness). */
  ping(): Promise<boolean>
}

export function createStore(db: Kysely<Database>): Store {
  return {
    accounts: accountsRepository(db),
    tokens: tokensRepository(db),
    charges: chargesRepository(db),
    identities: identitiesRepository(db),
    idempotency: idempotencyRepository(db),
    ledger: ledgerRepository(db),
    quotes: quotesRepository(db),
    jobs: jobsRepository(db),
    audit: auditRepository(db),
    webhookEvents: webhookEventsRepository(db),
    wallet: walletRepository(db),
    unknownDeposits: unknownDepositsRepository(db),
    rateBuckets: rateBucketsRepository(db),
    providerChecks: providerChecksRepository(db),
    clawbacks: clawbacksRepository(db),
    console: consoleRepository(db),
    sessions: sessionsRepository(db),
    refunds: refundsRepository(db),
    merchantRefunds: merchantRefundsRepository(db),
    payouts: payoutsRepository(db),
    sweeps: sweepsRepository(db),
    statement: statementRepository(db),
    reports: reportsRepository(db),
    mail: mailRepository(db),
    withdrawals: withdrawalsRepository(db),
    upkeep: upkeepRepository(db),
    treasuryLocks: treasuryLocksRepository(db),
    paidAmountProposals: paidAmountProposalsRepository(db),
    factors: secondFactorsRepository(db),
    paymentLinks: paymentLinksRepository(db),
    transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
      return db.transaction().execute((trx) => work(createStore(trx)))
    },
    ping: () => sql`select 1`.execute(db).then(() => true, () => false),
  }
}
