// A full run logged at trace level: no API token, operator token, webhook secret, provider secret
// or full tax number appears in any log line, and every request line carries its request id.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { loggerOptions } from '../../src/http/app.ts'
import { ok } from '../support/api.ts'
import { startTestService } from '../support/harness.ts'

test('logs carry request ids and never a secret or a full tax number', async () => {
  const lines: string[] = []
  const stream = new Writable({ write(chunk, _encoding, done) { lines.push(...String(chunk).split('\n').filter(Boolean)); done() } })
  const service = await startTestService({ PROVIDER_WEBHOOK_SECRET: 'provider-secret-value' }, { logger: { ...loggerOptions('trace'), stream } })
  const payer = generateCpf()
  const secrets: string[] = ['provider-secret-value', service.opsToken, 'webhook-secret-value', payer, '52998224725']
  try {
    const merchant = await service.merchant('logs@example.com', '52998224725')
    secrets.push(merchant.token)
    const created = ok(await service.api.post('/api/create-payment', {
      value: '10.00', email: 'payer@example.com', tax_number: payer, payer_name: 'Ana', webhook_url: 'http://127.0.0.1:1/hook', webhook_secret: 'webhook-secret-value',
    }, { token: merchant.token, headers: { 'idempotency-key': 'order-77' } }))
    await service.pay(created.id, payer)
    await service.advance(10)
    await service.api.get(`/api/get-payment/${created.id}`, { token: merchant.token })
    await service.api.post('/api/create-payment', { value: '11.00', email: 'payer@example.com', tax_number: payer }, { token: merchant.token })
    await service.ops('GET', '/ops/holds')
    await service.providerWebhook('deposit', { qrId: 'x', status: 'depix_sent', payerTaxNumber: payer }, 'Basic wrong-secret')
    await service.request({ method: 'POST', url: `/sandbox/payments/${created.id}/med`, body: {} })
  } finally {
    await service.close()
  }
  assert.ok(lines.length > 20, 'the run was logged')
  for (const secret of secrets) {
    const leaking = lines.filter((line) => line.includes(secret))
    assert.deepEqual(leaking, [], `a log line contains ${secret.slice(0, 4)}…`)
  }
  const requestLines = lines.map((line) => JSON.parse(line)).filter((entry) => entry.req || entry.res)
  assert.ok(requestLines.length > 0)
  assert.ok(requestLines.every((entry) => /^req_[0-9a-f]{24}$/.test(entry.reqId)))
})
