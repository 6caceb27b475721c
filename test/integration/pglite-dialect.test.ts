// Integration runner: pglite only (every test here skips on PostgreSQL).
// Kysely on PGlite through src/store/pglite-dialect.ts, which prepares each SQL text once: every
// answer is the one PGlite's own query() gives, the schema can change under prepared texts,
// errors leave the database usable, and a transaction holds PGlite while it is open.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { PGlite } from '@electric-sql/pglite'
import { CompiledQuery, Kysely, sql } from 'kysely'
import { FastPgliteDialect } from '../../src/store/pglite-dialect.ts'
import { migratedPgliteSnapshot, skipOnSecondDatabase as skip } from '../support/harness.ts'

let pglite: PGlite
let db: Kysely<any>
before(async () => {
  pglite = new PGlite({ loadDataDir: await migratedPgliteSnapshot() })
  db = new Kysely<any>({ dialect: new FastPgliteDialect(pglite) })
  await sql`create table things (id int8 primary key, name text unique, at timestamptz, doc jsonb, tags text[], ok boolean, amount numeric, raw bytea)`.execute(db)
})
after(() => db.destroy())

/** A row as PGlite's own query() answers it, for the same text and parameters. */
const byPglite = async (text: string, parameters: unknown[]) => (await pglite.query(text, parameters)).rows

test('values of every kind go in and come back as PGlite itself would have them', { skip }, async () => {
  const row = { id: 7, name: 'first', at: new Date('2026-11-26T12:00:00.000Z'), doc: { a: [1, 'two', null], b: { c: true } }, tags: ['x', 'y z', 'quote"d'], ok: false, amount: '12.50', raw: Buffer.from([0, 1, 255]) }
  // Run twice: the first run prepares the text, the second runs what was prepared.
  for (const id of [7, 8]) await db.insertInto('things').values({ ...row, id, name: `name ${id}` }).execute()
  const text = 'select * from things where id = any($1) and doc @> $2 and at <= $3 order by id'
  const parameters = [[7, 8], { b: { c: true } }, new Date('2026-12-01T00:00:00.000Z')]
  for (let run = 0; run < 2; run++) {
    const rows = (await db.executeQuery(CompiledQuery.raw(text, parameters))).rows
    assert.deepEqual(rows, await byPglite(text, parameters))
    assert.equal(rows.length, 2)
  }
  const [stored] = (await db.selectFrom('things').selectAll().where('id', '=', 7).execute()) as any[]
  assert.deepEqual(stored.doc, row.doc)
  assert.deepEqual(stored.tags, row.tags)
  assert.deepEqual(stored.at, row.at)
  assert.equal(stored.ok, false)
  assert.deepEqual(Buffer.from(stored.raw), row.raw)
  const updated = await db.updateTable('things').set({ ok: true }).where('id', 'in', [7, 8]).executeTakeFirst()
  assert.equal(updated.numUpdatedRows, 2n)
  assert.equal((await db.selectFrom('things').select('id').where('ok', '=', true).execute()).length, 2)
})

test('a prepared text keeps working when the schema changes under it', { skip }, async () => {
  await sql`create table changing (id int4 primary key, value int4)`.execute(db)
  const insert = (id: number, value: unknown) => db.insertInto('changing').values({ id, value }).execute()
  const all = () => db.selectFrom('changing').selectAll().orderBy('id').execute()
  await insert(1, 10)
  assert.deepEqual(await all(), [{ id: 1, value: 10 }])
  // The same texts, after the column became jsonb and another column came: the parameter is sent
  // as JSON, and the rows have the new column.
  await sql`alter table changing alter column value type jsonb using to_jsonb(value), add column note text`.execute(db)
  await insert(2, { nested: [1, 2] })
  assert.deepEqual(await all(), [{ id: 1, value: 10, note: null }, { id: 2, value: { nested: [1, 2] }, note: null }])

  // A change rolled back: what was prepared inside the transaction, for the changed schema, is
  // forgotten with it.
  await assert.rejects(db.transaction().execute(async (trx) => {
    await sql`alter table changing alter column value type text using value::text, drop column note`.execute(trx)
    await trx.insertInto('changing').values({ id: 3, value: 'text now' }).execute()
    assert.deepEqual(await trx.selectFrom('changing').selectAll().where('id', '=', 3).execute(), [{ id: 3, value: 'text now' }])
    throw new Error('rolled back')
  }), /rolled back/)
  await insert(4, [4])
  assert.deepEqual((await all()).at(-1), { id: 4, value: [4], note: null })
})

test('a failed statement raises its SQLSTATE and leaves the database usable, in a transaction or not', { skip }, async () => {
  await db.insertInto('things').values({ id: 20, name: 'taken' }).execute()
  const duplicate = () => db.insertInto('things').values({ id: 21, name: 'taken' }).execute()
  await assert.rejects(duplicate(), { code: '23505' })
  await assert.rejects(duplicate(), { code: '23505' })
  await assert.rejects(sql`select no_such_column from things`.execute(db), { code: '42703' })
  assert.equal((await db.selectFrom('things').select('name').where('id', '=', 20).executeTakeFirstOrThrow()).name, 'taken')

  // A transaction whose statement failed is rolled back: nothing it wrote stays.
  await assert.rejects(db.transaction().execute(async (trx) => {
    await trx.insertInto('things').values({ id: 22, name: 'in the transaction' }).execute()
    await trx.insertInto('things').values({ id: 23, name: 'taken' }).execute()
  }), { code: '23505' })
  // One that caught its failure and went on to commit is rolled back too, and says so.
  await assert.rejects(db.transaction().execute(async (trx) => {
    await trx.insertInto('things').values({ id: 24, name: 'also in it' }).execute()
    await trx.insertInto('things').values({ id: 25, name: 'taken' }).execute().catch(() => {})
  }), { code: '25P02' })
  assert.deepEqual(await db.selectFrom('things').select('id').where('id', 'in', [22, 23, 24, 25]).execute(), [])
  await db.transaction().execute((trx) => trx.insertInto('things').values({ id: 26, name: 'committed' }).execute())
  assert.equal((await db.selectFrom('things').select('name').where('id', '=', 26).executeTakeFirstOrThrow()).name, 'committed')
})

test('an open transaction holds PGlite: a query from outside Kysely waits for its end and sees its writes', { skip }, async () => {
  const inside = Promise.withResolvers<void>()
  const release = Promise.withResolvers<void>()
  const transaction = db.transaction().execute(async (trx) => {
    await trx.insertInto('things').values({ id: 30, name: 'while open' }).execute()
    inside.resolve()
    await release.promise
  })
  await inside.promise
  let outside: unknown[] | null = null
  const waiting = pglite.query('select name from things where id = 30').then((result) => (outside = result.rows))
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(outside, null)
  release.resolve()
  await transaction
  await waiting
  assert.deepEqual(outside, [{ name: 'while open' }])
})

test('texts past the most it prepares still run, unprepared', { skip }, async () => {
  for (let columns = 1; columns <= 1_010; columns++) {
    const text = `select ${Array.from({ length: columns % 7 + 1 }, (_, index) => `$${index + 1}::int4 + ${columns} as c${index}`).join(', ')}`
    const parameters = Array.from({ length: columns % 7 + 1 }, (_, index) => index)
    const rows = (await db.executeQuery(CompiledQuery.raw(text, parameters))).rows
    assert.deepEqual(rows, [Object.fromEntries(parameters.map((index) => [`c${index}`, index + columns]))])
  }
})
