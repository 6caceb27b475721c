// The hand-tuned statements (store/database.ts#compiledOnce) are checked in as SQL in
// src/store/sql/: a change of the builder that changes the text fails here until the snapshot is
// written again (SQL_SNAPSHOTS=write), so review sees the SQL itself.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { namedStatementTexts } from '../../src/store/database.ts'
import { ok } from '../support/api.ts'
import { startTestService, type TestService } from '../support/harness.ts'

const folder = new URL('../../src/store/sql/', import.meta.url)
let service: TestService
before(async () => { service = await startTestService() })
after(() => service.close())

test('every named statement\'s SQL is the checked-in snapshot of it, and every snapshot names a statement', async () => {
  // Charges' statements are built per shape when first used: one create of each common shape.
  const seller = await service.merchant('snapshots@example.com', generateCpf())
  for (const key of [undefined, 'snapshot-key-1']) {
    ok(await service.api.post('/api/create-payment', { value: '10.00', email: seller.email, tax_number: generateCpf() }, { token: seller.token, ...(key ? { headers: { 'idempotency-key': key } } : {}) }))
  }
  const texts = namedStatementTexts()
  if (process.env.SQL_SNAPSHOTS === 'write') {
    for (const [name, text] of texts) writeFileSync(new URL(`${name}.sql`, folder), `${text}\n`)
  }
  const files = readdirSync(folder).filter((file) => file.endsWith('.sql')).map((file) => file.slice(0, -'.sql'.length)).sort()
  assert.deepEqual(files, [...texts.keys()].sort(), 'one snapshot per named statement (SQL_SNAPSHOTS=write to write them)')
  for (const [name, text] of texts) {
    assert.equal(readFileSync(new URL(`${name}.sql`, folder), 'utf8'), `${text}\n`, `src/store/sql/${name}.sql differs from what the builder makes (SQL_SNAPSHOTS=write to write it again)`)
  }
})
