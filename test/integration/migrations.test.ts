// Migrations meet databases that already hold data: migration 013 restates the MEDs the old code
// posted (the credited currency into provider_clearing, nothing for the DePix the provider took),
// and afterwards /ops/ledger-check finds the books whole, on both databases.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sql, type Kysely } from 'kysely'
import { checkLedger } from '../../src/app/check-ledger.ts'
import type { Treasury } from '../../src/treasury/treasury.ts'

// Every call to the node fails: these books have no payout, so none may be made.
const noTreasury = new Proxy({}, { get: () => () => Promise.reject(new Error('no treasury here')) }) as Treasury
import { migrateToLatest, migrations } from '../../src/store/migrate.ts'
import { createStore } from '../../src/store/store.ts'
import { openEmptyDatabase } from '../support/harness.ts'

const before = (name: string) => Object.fromEntries(Object.entries(migrations).filter(([key]) => key < name))

test('migration 013 restates the old MED postings: the books are whole afterwards, and a later claw-back posts the new way', async () => {
  const database = await openEmptyDatabase()
  try {
    await migrateToLatest(database.db, { migrations: before('013') })
    const at = new Date('2026-11-01T12:00:00Z')
    const account = (await sql<{ id: string }>`insert into accounts (email, created_at) values ('legacy@example.com', ${at}) returning id::text as id`.execute(database.db)).rows[0]!.id
    // As the old code left them: a BTC and a DEPIX charge, each credited, then MED'd the old way.
    const legacy = [
      { id: 'b'.repeat(32), currency: 'BTC', credited: 2425, quote: 35_000_000 },
      { id: 'd'.repeat(32), currency: 'DEPIX', credited: 900, quote: null },
    ]
    for (const charge of legacy) {
      await sql`insert into charges (id, merchant_account_id, merchant_id, account_id, value_cents, currency, provider_deposit_id, qr_copy_paste, status, provider_status,
                  created_at, expires_at, updated_at, credited_units, quote_cents, confirmed_at)
                values (${charge.id}, ${account}, 'EU000000000000001', ${account}, 1000, ${charge.currency}, ${`dep-${charge.id}`}, '0002', 'refunded', 'depix_sent',
                  ${at}, ${at}, ${at}, ${charge.credited}, ${charge.quote}, ${at})`.execute(database.db)
      const post = async (key: string, kind: string, entries: Array<[string, string | null, string, number]>) => {
        const posting = (await sql<{ id: string }>`insert into ledger_postings (key, charge_id, kind, created_at) values (${key}, ${charge.id}, ${kind}, ${at}) returning id::text as id`.execute(database.db)).rows[0]!.id
        for (const [book, accountId, currency, amount] of entries) {
          await sql`insert into ledger_entries (posting_id, account_id, book, currency, amount) values (${posting}, ${accountId}, ${book}, ${currency}, ${amount})`.execute(database.db)
        }
      }
      await post(`credit:${charge.id}`, 'credit', charge.currency === 'DEPIX'
        ? [['provider_clearing', null, 'DEPIX', -1000], ['fees', null, 'DEPIX', 100], ['available', account, 'DEPIX', 900]]
        : [['provider_clearing', null, 'DEPIX', -1000], ['fees', null, 'DEPIX', 100], ['conversion', null, 'DEPIX', 900], ['conversion', null, 'BTC', -charge.credited], ['available', account, 'BTC', charge.credited]])
      await post(`med:${charge.id}`, 'med_debit', [['available', account, charge.currency, -charge.credited], ['provider_clearing', null, charge.currency, charge.credited]])
    }

    await migrateToLatest(database.db)
    const store = createStore(database.db)
    // No payout in these books: the node is never asked, and a question to it would fail the check.
    const check = await checkLedger({ store, treasury: noTreasury })
    assert.equal(check.ok, true, JSON.stringify(check))
    const books = Object.fromEntries(check.books.map((row) => [`${row.book}:${row.currency}`, row.total]))
    assert.equal(books['provider_clearing:BTC'], 0)
    assert.equal(books['provider_clearing:DEPIX'], 0)
    assert.equal(books['med_losses:DEPIX'], -200)
    for (const charge of legacy) {
      const row = (await store.charges.findById(charge.id))!
      assert.deepEqual([row.taken_back_cents, row.taken_back_units, row.taken_back_all, row.clawback, row.paid_cents, row.paid_source], [1000, charge.credited, true, 'med', 1000, 'charge_value'])
      if (charge.currency === 'BTC') assert.equal(row.quote_micros, 350_000_000_000)
    }
  } finally {
    await database.close()
  }
})

test('a database with every migration run is left alone; one that ran a migration this release does not know is refused, not started on', async () => {
  const database = await openEmptyDatabase()
  try {
    assert.deepEqual(await migrateToLatest(database.db), Object.keys(migrations))
    // Up to date: two plain reads (is the table there, which names it holds). The migrator, which
    // reads the whole catalogue to find its tables, builds its statements with Kysely's builder.
    const statements: string[] = []
    const counted = database.db.withPlugin({ transformQuery: (args) => (statements.push(args.node.kind), args.node), transformResult: async (args) => args.result })
    assert.deepEqual(await migrateToLatest(counted), [], 'nothing to run the second time')
    assert.deepEqual(statements, ['RawNode', 'RawNode'], 'the migrator was not started')
    // An older release started on this database: its list lacks the newest migration, run here.
    const newest = Object.keys(migrations).at(-1)!
    await assert.rejects(migrateToLatest(database.db, { migrations: before(newest) }), new RegExp(newest))
    // As many migrations as were run, but not the same ones: refused too.
    const unknown = { ...before(newest), '999_unknown': { up: async () => {} } }
    await assert.rejects(migrateToLatest(database.db, { migrations: unknown }), new RegExp(newest))
    // A newer release brings one more: it alone is run.
    const newer = { ...migrations, '999_probe': { up: async (db: Kysely<any>) => void (await sql`create table probe (id int4)`.execute(db)) } }
    assert.deepEqual(await migrateToLatest(database.db, { migrations: newer }), ['999_probe'])
    assert.deepEqual((await sql`select count(*)::int4 as n from probe`.execute(database.db)).rows, [{ n: 0 }])
    assert.deepEqual(await migrateToLatest(database.db, { migrations: newer }), [])
  } finally {
    await database.close()
  }
})
