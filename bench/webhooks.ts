// Webhook figures for npm run bench (issue 11): how long a provider confirmation takes to reach
// the merchant's receiver, alone and beside ten receivers that hang for the whole time-out, and
// how fast the runner drains 10,000 queued webhooks. The service runs its job runner as in
// production (woken by LISTEN/NOTIFY); the receivers are local HTTP servers.
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import { generateCpf } from '@brazilian-utils/brazilian-utils'
import type { Service } from '../src/service.ts'

export type WebhookFigures = { alone: Latency; besideHanging: Latency; drain: { events: number; seconds: number; perSecond: number } }
type Latency = { samples: number; p50: number; p99: number }

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as { port: number }).port)))
}

export async function measureWebhooks(service: Service, serviceUrl: string, token: string): Promise<WebhookFigures> {
  const arrivals = new Map<string, () => void>()
  const receiver = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      response.end('ok')
      arrivals.get(JSON.parse(body).payment_id)?.()
    })
  })
  const port = await listen(receiver, '127.0.0.1')
  const hanging: Server[] = []
  service.jobs.start()
  /** A R$ 10,00 charge with this webhook_url, through the API. */
  const chargeWithWebhook = async (email: string, webhookUrl: string) => {
    const payer = generateCpf()
    const created = await fetch(`${serviceUrl}/api/create-payment`, {
      method: 'POST', headers: { 'x-api-token': token, 'content-type': 'application/json' },
      body: JSON.stringify({ value: '10.00', email, tax_number: payer, payer_name: 'Bench Payer', webhook_url: webhookUrl }),
    }).then((response) => response.json() as Promise<{ id: string }>)
    return { id: created.id, payer, depositId: (await service.store.charges.findById(created.id))!.provider_deposit_id }
  }
  /** The provider's confirmation of that charge, as its webhook. */
  const confirm = async (charge: { depositId: string; payer: string }) => {
    const answer = await fetch(`${serviceUrl}/provider/webhooks/deposit`, {
      method: 'POST', headers: { authorization: `Basic ${service.providerWebhookSecret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ qrId: charge.depositId, status: 'depix_sent', valueInCents: 1000, payerName: 'P', payerTaxNumber: charge.payer }),
    })
    await answer.arrayBuffer()
  }
  try {
    const confirmOnce = async (email: string): Promise<number> => {
      const charge = await chargeWithWebhook(email, `http://127.0.0.1:${port}/hook`)
      const arrived = new Promise<void>((resolve) => arrivals.set(charge.id, resolve))
      const started = performance.now()
      await confirm(charge)
      await arrived
      return performance.now() - started
    }
    const latency = async (rounds: number, email: string): Promise<Latency> => {
      const samples: number[] = []
      for (let i = 0; i < rounds; i++) samples.push(await confirmOnce(email))
      samples.sort((a, b) => a - b)
      return { samples: samples.length, p50: Math.round(percentile(samples, 50) * 10) / 10, p99: Math.round(percentile(samples, 99) * 10) / 10 }
    }
    const alone = await latency(200, 'latency@example.com')

    // Ten receivers that never answer, each with events queued, holding their attempts open.
    for (let i = 0; i < 10; i++) {
      const server = createServer(() => {})
      hanging.push(server)
      const hangPort = await listen(server, `127.0.0.${i + 2}`)
      for (let j = 0; j < 3; j++) await confirm(await chargeWithWebhook(`hanging${i}@example.com`, `http://127.0.0.${i + 2}:${hangPort}/hook`))
    }
    const besideHanging = await latency(200, 'latency-hanging@example.com')
    for (const server of hanging) {
      server.closeAllConnections()
      server.close()
    }

    // 10,000 events queued at once (as after an outage), to ten receivers, drained by the runner.
    await service.jobs.stop()
    const drainPorts: number[] = []
    const drainServers: Server[] = []
    let delivered = 0
    let allDelivered!: () => void
    const done = new Promise<void>((resolve) => (allDelivered = resolve))
    const events = 10_000
    for (let i = 0; i < 10; i++) {
      const server = createServer((_request, response) => {
        response.end('ok')
        if (++delivered === events) allDelivered()
      })
      drainServers.push(server)
      drainPorts.push(await listen(server, `127.0.0.${i + 2}`))
    }
    // One charge per receiver, a thousand queued events on each.
    const now = service.clock.now()
    for (let i = 0; i < 10; i++) {
      const created = await chargeWithWebhook('drain@example.com', `http://127.0.0.${i + 2}:${drainPorts[i]}/hook`)
      const rows = Array.from({ length: events / 10 }, () => `msg_${randomBytes(16).toString('hex')}`)
      await service.database.db.insertInto('webhook_events').values(rows.map((id) => ({ id, charge_id: created.id, event: 'payment.confirmed', body: '{"bench":true}', state: 'pending' as const, created_at: now }))).execute()
      await service.database.db.insertInto('jobs').values(rows.map((id) => ({ kind: 'deliver_webhook', payload: JSON.stringify({ eventId: id, destination: `127.0.0.${i + 2}:${drainPorts[i]}` }), run_at: now, created_at: now }))).execute()
    }
    const started = performance.now()
    service.jobs.start()
    await done
    const seconds = (performance.now() - started) / 1000
    for (const server of drainServers) server.close()
    return { alone, besideHanging, drain: { events, seconds: Math.round(seconds * 10) / 10, perSecond: Math.round(events / seconds) } }
  } finally {
    await service.jobs.stop()
    receiver.close()
    for (const server of hanging) server.close()
  }
}
