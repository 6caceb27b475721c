// Migrations meet databases that already hold data: migration 013 restates the MEDs the old code
// posted (the credited currency into provider_clearing, nothing for the DePix the provider took),
// and afterwards /ops/ledger-check finds the books whole, on both databases.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sql, type Kysely } from 'kysely'
import { checkLedger } from '../../src/app/check-ledger.ts'
import { migrateToLatest, migrations } from '../../src/store/migrate.ts'
import { createStore } from '../../src/store/store.ts'
import type { Treasury } from '../../src/treasury/treasury.ts'
import { openEmptyDatabase } from '../support/harness.ts'

// Every call to the node fails: these books have no payout, so none may be made.
const noTreasury = new Proxy({}, { get: () => () => Promise.reject(new Error('no treasury here')) }) as Treasury

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

test('migration 028 moves every payout into one table: each withdrawal queued to send, in flight or ended by its payout has one, with its steps; refund payouts keep their ids; queued sends become send_payout jobs', async () => {
  const database = await openEmptyDatabase()
  try {
    await migrateToLatest(database.db, { migrations: before('028') })
    const db = database.db
    const at = new Date('2026-11-20T12:00:00Z')
    const account = (await sql<{ id: string }>`insert into accounts (email, owner_tax_number, created_at) values ('upgrade@example.com', '52998224725', ${at}) returning id::text as id`.execute(db)).rows[0]!.id
    for (const [id, type, value] of [['dst_pix', 'pix', '52998224725'], ['dst_liquid', 'liquid', 'el1qqexample']] as const) {
      await sql`insert into withdrawal_destinations (id, account_id, type, value, state, created_at, cancel_token_hash) values (${id}, ${account}, ${type}, ${value}, 'confirmed', ${at}, ${`hash-${id}`})`.execute(db)
    }
    const withdrawal = async (id: string, destination: 'dst_pix' | 'dst_liquid', status: string, more: Record<string, unknown> = {}) => {
      await sql`insert into withdrawals (id, account_id, destination_id, destination_type, currency, amount, fee, net_amount, brl_cents, status, via, lang, created_at, updated_at, review_reason, failure_code, psbt, tx_hex, txid, provider_nonce, provider_withdrawal_id, provider_deposit_cents, provider_status)
        values (${id}, ${account}, ${destination}, ${destination === 'dst_pix' ? 'pix' : 'liquid'}, 'DEPIX', 10000, 200, 9800, 10000, ${status}, 'api', 'pt-BR', ${at}, ${at},
          ${more.review_reason ?? null}, ${more.failure_code ?? null}, ${more.psbt ?? null}, ${more.tx_hex ?? null}, ${more.txid ?? null}, ${more.nonce ?? null}, ${more.provider_id ?? null}, ${more.deposit ?? null}, ${more.provider_status ?? null})`.execute(db)
    }
    const hex = (n: number) => n.toString(16).padStart(24, '0')
    await withdrawal(`wd_${hex(1)}`, 'dst_liquid', 'confirmed')
    await withdrawal(`wd_${hex(2)}`, 'dst_liquid', 'sending', { psbt: 'cHNidP8-funded' })
    await withdrawal(`wd_${hex(3)}`, 'dst_pix', 'sent', { nonce: 'n3', provider_id: 'p3', deposit: 9800, psbt: 'x', tx_hex: 'ab', txid: 't3', provider_status: 'sending' })
    await withdrawal(`wd_${hex(4)}`, 'dst_liquid', 'in_review', { review_reason: 'over_threshold' })
    await withdrawal(`wd_${hex(5)}`, 'dst_pix', 'in_review', { review_reason: 'payout_mismatch', nonce: 'n5', provider_id: 'p5', deposit: 62_740 })
    await withdrawal(`wd_${hex(6)}`, 'dst_pix', 'failed', { failure_code: 'payout_returned', nonce: 'n6', provider_id: 'p6', deposit: 9800, psbt: 'x', tx_hex: 'cd', txid: 't6' })
    await withdrawal(`wd_${hex(7)}`, 'dst_liquid', 'canceled', { failure_code: 'canceled_by_owner' })
    await sql`insert into jobs (kind, payload, run_at, created_at) values ('send_withdrawal', ${JSON.stringify({ withdrawalId: `wd_${hex(1)}` })}::jsonb, ${at}, ${at}), ('send_withdrawal', ${JSON.stringify({ withdrawalId: `wd_${hex(2)}` })}::jsonb, ${at}, ${at})`.execute(db)
    await sql`insert into charges (id, merchant_account_id, merchant_id, account_id, value_cents, currency, provider_deposit_id, qr_copy_paste, status, provider_status, created_at, expires_at, updated_at)
      values (${'c'.repeat(32)}, ${account}, 'EU000000000000001', ${account}, 1000, 'DEPIX', 'dep-c', '0002', 'will_refund', 'depix_sent', ${at}, ${at}, ${at})`.execute(db)
    await sql`insert into refunds (id, charge_id, amount_cents, owed_cents, payer_tax_number, status, created_by, created_at) values ('ref_1', ${'c'.repeat(32)}, 1000, 1000, '11144477735', 'owed', 'ana', ${at})`.execute(db)
    await sql`insert into refund_payouts (id, refund_id, pix_key, tax_number, amount_cents, status, created_by, note, created_at, updated_at, provider_nonce)
      values ('rpo_1', 'ref_1', '11144477735', '11144477735', 1000, 'sending', 'ana', 'payer asked', ${at}, ${at}, 'n-r1')`.execute(db)
    await sql`insert into jobs (kind, payload, run_at, created_at) values ('send_refund_payout', ${JSON.stringify({ refundPayoutId: 'rpo_1' })}::jsonb, ${at}, ${at})`.execute(db)
    // One that had asked nothing yet (never checked: it starts anew), and one whose Pix came back.
    for (const n of [2, 3]) {
      await sql`insert into charges (id, merchant_account_id, merchant_id, account_id, value_cents, currency, provider_deposit_id, qr_copy_paste, status, provider_status, created_at, expires_at, updated_at)
        values (${String(n).repeat(32)}, ${account}, 'EU000000000000001', ${account}, 1000, 'DEPIX', ${`dep-${n}`}, '0002', 'will_refund', 'depix_sent', ${at}, ${at}, ${at})`.execute(db)
      await sql`insert into refunds (id, charge_id, amount_cents, owed_cents, payer_tax_number, status, created_by, created_at) values (${`ref_${n}`}, ${String(n).repeat(32)}, 1000, 1000, '11144477735', 'owed', 'ana', ${at})`.execute(db)
    }
    await sql`insert into refund_payouts (id, refund_id, pix_key, tax_number, amount_cents, status, created_by, note, created_at, updated_at)
      values ('rpo_2', 'ref_2', '11144477735', '11144477735', 1000, 'sending', 'ana', '', ${at}, ${at})`.execute(db)
    await sql`insert into refund_payouts (id, refund_id, pix_key, tax_number, amount_cents, status, failure_code, created_by, note, created_at, updated_at, provider_nonce, psbt, tx_hex, txid)
      values ('rpo_3', 'ref_3', '11144477735', '11144477735', 1000, 'failed', 'payout_returned', 'ana', '', ${at}, ${at}, 'n-r3', 'p', 'ef', 't-r3')`.execute(db)

    await migrateToLatest(db)

    const payouts = await db.selectFrom('payouts').selectAll().orderBy('id').execute()
    const of = (owner: string) => payouts.filter((payout) => payout.withdrawal_id === owner || payout.refund_id === owner)
    assert.deepEqual(of(`wd_${hex(1)}`).map((p) => [p.status, p.rail, p.address, p.amount]), [['queued', 'liquid', 'el1qqexample', 9800]])
    assert.deepEqual(of(`wd_${hex(2)}`).map((p) => [p.status, p.psbt]), [['sending', 'cHNidP8-funded']])
    assert.deepEqual(of(`wd_${hex(3)}`).map((p) => [p.status, p.pix_key, p.tax_number, p.provider_withdrawal_id, p.txid]), [['sent', '52998224725', '52998224725', 'p3', 't3']])
    assert.deepEqual(of(`wd_${hex(4)}`), [], 'held by its limits before any payout: none yet')
    assert.deepEqual(of(`wd_${hex(5)}`).map((p) => [p.status, p.review_reason, p.provider_deposit_cents]), [['in_review', 'payout_mismatch', 62_740]])
    assert.deepEqual(of(`wd_${hex(6)}`).map((p) => [p.status, p.failure_code]), [['returned', 'payout_returned']])
    assert.deepEqual(of(`wd_${hex(7)}`), [])
    assert.deepEqual(of('ref_1').map((p) => [p.id, p.status, p.amount, p.provider_nonce, p.note]), [['rpo_1', 'sending', 1000, 'n-r1', 'payer asked']])
    assert.deepEqual(of('ref_2').map((p) => [p.id, p.status]), [['rpo_2', 'queued']])
    assert.deepEqual(of('ref_3').map((p) => [p.id, p.status, p.failure_code]), [['rpo_3', 'returned', 'payout_returned']])
    const jobs = await db.selectFrom('jobs').select(['kind', 'payload']).where('kind', 'like', 'send_%').orderBy('id').execute()
    assert.deepEqual(jobs.map((job) => [job.kind, (job.payload as { payoutId: string }).payoutId]), [
      ['send_payout', of(`wd_${hex(1)}`)[0]!.id], ['send_payout', of(`wd_${hex(2)}`)[0]!.id], ['send_payout', 'rpo_1'],
    ])
    // The owners keep only what is theirs.
    const columns = await sql<{ column_name: string }>`select column_name from information_schema.columns where table_name = 'withdrawals'`.execute(db)
    for (const gone of ['psbt', 'tx_hex', 'txid', 'provider_nonce', 'provider_withdrawal_id']) assert.ok(!columns.rows.some((row) => row.column_name === gone), gone)
    assert.equal((await sql<{ n: number }>`select count(*)::int4 as n from information_schema.tables where table_name = 'refund_payouts'`.execute(db)).rows[0]!.n, 0)
  } finally {
    await database.close()
  }
})
