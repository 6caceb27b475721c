import { test } from 'node:test'
import assert from 'node:assert/strict'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import { ok } from '../support/api.ts'
import { startTestService } from '../support/harness.ts'

function value(text: string, metric: string): number | undefined {
  const line = text.split('\n').find((entry) => entry.startsWith(`${metric} `))
  return line === undefined ? undefined : Number(line.split(' ')[1])
}

test('/metrics (operator token): requests by route, charges by currency, webhook outcomes, job queue', async () => {
  const service = await startTestService()
  try {
    const merchant = await service.merchant('metrics@example.com', '52998224725')
    const payer = generateCpf()
    const created = ok(await service.api.post('/api/create-payment', { value: '10.00', email: 'c@example.com', tax_number: payer, webhook_url: 'http://127.0.0.1:1/h' }, { token: merchant.token }))
    await service.api.post('/api/create-payment', { value: '20.00', email: 'c@example.com', euid: merchant.euid, swap_to: 'BTC' }, { token: merchant.token })
    await service.pay(created.id, payer)
    await service.api.get(`/api/get-payment/${created.id}`, { token: merchant.token })

    assert.equal((await service.request({ method: 'GET', url: '/metrics' })).body.code, 'ops_token_missing')
    const scrape = await service.ops('GET', '/metrics')
    assert.equal(scrape.status, 200)
    const text = String(scrape.body)
    assert.equal(value(text, 'pix_charges_created{currency="DEPIX"}'), 1)
    assert.equal(value(text, 'pix_charges_created{currency="BTC"}'), 1)
    assert.equal(value(text, 'pix_charges_confirmed{currency="DEPIX"}'), 1)
    assert.equal(value(text, 'pix_webhook_attempts{outcome="network_error"}'), 1)
    assert.ok(text.includes('pix_http_request_duration_seconds_count{route="/api/get-payment/:payment_id",method="GET",status="200"} 1'), 'route template, not the raw URL')
    assert.ok(!text.includes(created.id), 'no charge id in labels')
    // Each charge's one job is queued for its expiry; nothing is due yet,
    // except the retry of the failed webhook, due in about 5 s.
    assert.equal(value(text, 'pix_job_queue_oldest_due_seconds'), 0)
    service.sandbox!.clock.advance(3600)
    const later = String((await service.ops('GET', '/metrics')).body)
    assert.equal(value(later, 'pix_job_queue_depth{kind="reconcile_charge"}'), 2)
    assert.ok(value(later, 'pix_job_queue_oldest_due_seconds')! >= 3000)
  } finally {
    await service.close()
  }
})
