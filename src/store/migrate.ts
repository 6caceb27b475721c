// One set of migrations for PGlite and PostgreSQL, listed here rather than read from disk so the
// order is explicit and type-checked.
import { sql, type Kysely } from 'kysely'
import { Migrator, type Migration } from 'kysely/migration'
import * as foundation from './migrations/001_foundation.ts'
import * as lifecycle from './migrations/002_lifecycle.ts'
import * as webhooks from './migrations/003_webhooks.ts'
import * as idempotencyLease from './migrations/004_idempotency_lease.ts'
import * as wallet from './migrations/005_wallet.ts'
import * as reportedAmounts from './migrations/006_reported_amounts.ts'
import * as unknownDeposits from './migrations/007_unknown_deposits.ts'
import * as quoteRecord from './migrations/008_quote_record.ts'
import * as accountBalances from './migrations/009_account_balances.ts'
import * as rateBuckets from './migrations/010_rate_buckets.ts'
import * as webhookOptIn from './migrations/011_webhook_opt_in.ts'
import * as deliveryDestinations from './migrations/012_delivery_destinations.ts'
import * as clawbacks from './migrations/013_clawbacks.ts'
import * as mailOutbox from './migrations/014_mail_outbox.ts'
import * as withdrawals from './migrations/015_withdrawals.ts'
import * as refundPayouts from './migrations/016_refund_payouts.ts'
import * as consoleTables from './migrations/017_console.ts'
import * as chargeMetadata from './migrations/018_charge_metadata.ts'
import * as databaseUpkeep from './migrations/019_database_upkeep.ts'
import * as chargeAccountsChecked from './migrations/020_charge_accounts_checked.ts'
import * as networkFees from './migrations/021_network_fees.ts'
import * as treasuryLocks from './migrations/023_treasury_locks.ts'
import * as paidAmountProposals from './migrations/024_paid_amount_proposals.ts'
import * as providerChecks from './migrations/025_provider_checks.ts'
import * as secondFactors from './migrations/027_second_factors.ts'
import * as payouts from './migrations/028_payouts.ts'
import * as paymentPages from './migrations/029_payment_pages.ts'
import * as paymentLinks from './migrations/030_payment_links.ts'
import * as statements from './migrations/031_statements.ts'
import * as idempotencySubject from './migrations/033_idempotency_subject.ts'
import * as merchantRefunds from './migrations/034_merchant_refunds.ts'
import * as ownerLanguage from './migrations/035_owner_language.ts'
import * as liquidFollow from './migrations/036_liquid_follow.ts'

/** Every migration of the service's database, by name, in order. */
export const migrations: Record<string, Migration> = {
  '001_foundation': foundation,
  '002_lifecycle': lifecycle,
  '003_webhooks': webhooks,
  '004_idempotency_lease': idempotencyLease,
  '005_wallet': wallet,
  '006_reported_amounts': reportedAmounts,
  '007_unknown_deposits': unknownDeposits,
  '008_quote_record': quoteRecord,
  '009_account_balances': accountBalances,
  '010_rate_buckets': rateBuckets,
  '011_webhook_opt_in': webhookOptIn,
  '012_delivery_destinations': deliveryDestinations,
  '013_clawbacks': clawbacks,
  '014_mail_outbox': mailOutbox,
  '015_withdrawals': withdrawals,
  '016_refund_payouts': refundPayouts,
  '017_console': consoleTables,
  '018_charge_metadata': chargeMetadata,
  '019_database_upkeep': databaseUpkeep,
  '020_charge_accounts_checked': chargeAccountsChecked,
  '021_network_fees': networkFees,
  '023_treasury_locks': treasuryLocks,
  '024_paid_amount_proposals': paidAmountProposals,
  '025_provider_checks': providerChecks,
  '027_second_factors': secondFactors,
  '028_payouts': payouts,
  '029_payment_pages': paymentPages,
  '030_payment_links': paymentLinks,
  '031_statements': statements,
  '033_idempotency_subject': idempotencySubject,
  '034_merchant_refunds': merchantRefunds,
  '035_owner_language': ownerLanguage,
  '036_liquid_follow': liquidFollow,
}

/**
 * Runs the migrations not yet run, and answers their names; `tables` names another set (the
 * sandbox's own tables). On PostgreSQL Kysely's migrator holds an advisory lock while it runs, so
 * instances (and `npm run migrate`) starting together migrate one at a time: the first applies
 * what is new, the others then find nothing left to apply.
 */
export async function migrateToLatest(db: Kysely<any>, tables: { migrations: Record<string, Migration>; tableName?: string } = { migrations }): Promise<string[]> {
  if (await allRun(db, tables.tableName ?? 'kysely_migration', Object.keys(tables.migrations))) return []
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => tables.migrations },
    ...(tables.tableName ? { migrationTableName: tables.tableName, migrationLockTableName: `${tables.tableName}_lock` } : {}),
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${(error as Error).message}`, { cause: error })
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName)
}

/**
 * Whether the migrations recorded as run are exactly these: then there is nothing to do, and
 * Kysely's migrator is not started. It finds its own two tables by reading every column of
 * every table (twice per set of migrations at every start; docs/performance.md, "Memory and
 * start-up").
 * Anything else (the table missing, a migration to run, one recorded that this release does not
 * know) is the migrator's to do or to refuse, as before.
 */
async function allRun(db: Kysely<any>, tableName: string, names: string[]): Promise<boolean> {
  const present = await sql<{ present: boolean }>`select to_regclass(${tableName}) is not null as present`.execute(db)
  if (!present.rows[0]?.present) return false
  const run = new Set((await sql<{ name: string }>`select name from ${sql.table(tableName)}`.execute(db)).rows.map((row) => row.name))
  return run.size === names.length && names.every((name) => run.has(name))
}
