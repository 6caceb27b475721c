// The fake provider's own tables, in the service's database but under their own migration
// history, so production never creates them.
import { sql, type Kysely } from 'kysely'
import type { Migration } from 'kysely/migration'
import { migrateToLatest } from '../store/migrate.ts'

export type FakeDepositsTable = {
  id: string
  amount_cents: number
  status: string
  merchant_id: string | null
  end_user_euid: string | null
  end_user_tax_number: string | null
  end_user_name: string | null
  qr_copy_paste: string
  payer_name: string | null
  payer_tax_number: string | null
  payer_euid: string | null
  bank_tx_id: string | null
  /** What the payer actually paid, when a sandbox payment pays another amount than the QR's. */
  paid_cents: number | null
  /** False: the provider's reports leave valueInCents out, as some do (docs/rules.md#amount-arrived). */
  amount_reported: boolean
  delay_hours: number
  delay_until: Date | null
  blockchain_tx_id: string | null
  expiration: Date
  created_at: Date
  updated_at: Date
}

export type FakeEndUsersTable = {
  tax_number: string
  euid: string
  name: string | null
  paid_count: number
}

/** A payout (POST /withdraw): waiting for DePix at its deposit address, paying the Pix, paid or not. */
export type FakePayoutsTable = {
  id: string
  nonce: string
  pix_key: string
  tax_number: string | null
  euid: string | null
  deposit_address: string
  deposit_cents: number
  payout_cents: number
  status: string
  expiration: Date
  received_txid: string | null
  receipt_url: string | null
  created_at: Date
  updated_at: Date
}

export type FakeEulenTables = {
  fake_eulen_deposits: FakeDepositsTable
  fake_eulen_end_users: FakeEndUsersTable
  fake_eulen_payouts: FakePayoutsTable
}

const migrations: Record<string, Migration> = {
  '001_fake_eulen': {
    async up(db) {
      await sql`
        create table fake_eulen_end_users (
          tax_number text primary key,
          euid text not null unique,
          name text,
          paid_count int4 not null default 0
        )`.execute(db)
      await sql`
        create table fake_eulen_deposits (
          id text primary key,
          amount_cents int8 not null,
          status text not null,
          merchant_id text not null,
          end_user_euid text,
          end_user_tax_number text,
          end_user_name text,
          qr_copy_paste text not null,
          payer_name text,
          payer_tax_number text,
          payer_euid text,
          bank_tx_id text,
          blockchain_tx_id text,
          expiration timestamptz not null,
          created_at timestamptz not null,
          updated_at timestamptz not null
        )`.execute(db)
      await sql`create index fake_eulen_deposits_created on fake_eulen_deposits (created_at)`.execute(db)
    },
  },
  '004_delay': {
    async up(db) {
      await sql`alter table fake_eulen_deposits add column delay_hours int4 not null default 0`.execute(db)
      await sql`alter table fake_eulen_deposits add column delay_until timestamptz`.execute(db)
    },
  },
  '002_partner_deposits': {
    async up(db) {
      await sql`alter table fake_eulen_deposits alter column merchant_id drop not null`.execute(db)
    },
  },
  '003_paid_amount': {
    async up(db) {
      await sql`alter table fake_eulen_deposits add column paid_cents int8`.execute(db)
    },
  },
  '005_amount_reported': {
    async up(db) {
      await sql`alter table fake_eulen_deposits add column amount_reported boolean not null default true`.execute(db)
    },
  },
}

migrations['006_payouts'] = {
  async up(db) {
    await sql`
      create table fake_eulen_payouts (
        id text primary key,
        nonce text not null unique,
        pix_key text not null,
        tax_number text,
        euid text,
        deposit_address text not null unique,
        deposit_cents int8 not null,
        payout_cents int8 not null,
        status text not null,
        expiration timestamptz not null,
        received_txid text,
        receipt_url text,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`.execute(db)
  },
}

export async function migrateFakeEulen(db: Kysely<any>): Promise<void> {
  await migrateToLatest(db, { migrations, tableName: 'fake_eulen_migrations' })
}
