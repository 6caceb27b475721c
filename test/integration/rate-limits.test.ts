import { test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { startTestService } from '../support/harness.ts'

test('per-token rate limit: 429 rate_limited with Retry-After; other tokens unaffected; 0 switches it off', async () => {
  const limited = await startTestService({ RATE_LIMIT_PER_MINUTE: '3' })
  try {
    const a = await limited.merchant('a@example.com', '52998224725')
    const b = await limited.merchant('b@example.com', '11144477735')
    const read = (token: string) => limited.request({ method: 'GET', url: '/api/get-balance', token })
    for (let i = 0; i < 3; i++) assert.equal((await read(a.token)).status, 200)
    const refused = await read(a.token)
    assert.equal(refused.status, 429)
    assert.equal(refused.body.code, 'rate_limited')
    assert.match(String(refused.headers['retry-after']), /^\d+$/)
    assert.equal(typeof refused.body.request_id, 'string')
    assert.equal((await read(b.token)).status, 200)
  } finally {
    await limited.close()
  }
  const unlimited = await startTestService({ RATE_LIMIT_PER_MINUTE: '0' })
  try {
    const a = await unlimited.merchant('a@example.com', '52998224725')
    for (let i = 0; i < 20; i++) assert.equal((await unlimited.request({ method: 'GET', url: '/api/get-balance', token: a.token })).status, 200)
  } finally {
    await unlimited.close()
  }
})

test('calls to the provider are held to its published limits: the 51st deposit in a burst is a clear 503', async () => {
  const service = await startTestService({ SANDBOX_PROVIDER_LIMITS: 'on', RATE_LIMIT_PER_MINUTE: '0' })
  try {
    const merchant = await service.merchant('burst@example.com', '52998224725')
    const create = () => service.request({ method: 'POST', url: '/api/create-payment', token: merchant.token, body: { value: '10.00', email: 'c@example.com', tax_number: generateCpf() } })
    for (let i = 0; i < 50; i++) assert.equal((await create()).status, 200)
    const refused = await create()
    assert.equal(refused.status, 503)
    assert.equal(refused.body.code, 'provider_unavailable')
    assert.match(String(refused.headers['retry-after']), /^[1-9]\d*$/)
  } finally {
    await service.close()
  }
})
