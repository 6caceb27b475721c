import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startTestService } from '../support/harness.ts'

test('/healthz answers while the process is up; /readyz follows the database and the provider', async () => {
  const service = await startTestService()
  try {
    assert.deepEqual((await service.request({ method: 'GET', url: '/healthz' })).body, { status: 'ok' })
    const ready = await service.request({ method: 'GET', url: '/readyz' })
    assert.equal(ready.status, 200)
    assert.deepEqual(ready.body, { status: 'ready', database: 'ok', provider: 'ok', mail: 'ok' })
  } finally {
    await service.close()
  }
  const down = await startTestService()
  try {
    await down.sandbox!.fake.close()
    const unready = await down.request({ method: 'GET', url: '/readyz' })
    assert.equal(unready.status, 503)
    assert.deepEqual(unready.body, { status: 'unready', database: 'ok', provider: 'unreachable', mail: 'ok' })
    assert.equal((await down.request({ method: 'GET', url: '/healthz' })).status, 200)
  } finally {
    await down.close().catch(() => {})
  }
})
