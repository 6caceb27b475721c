// A faithful fake of Eulen's DePix API (reference/eulen-api.md) for sandbox mode: same paths,
// envelope, Bearer auth and error shape, valid BR Codes, a stable EUID per tax number, and
// provider webhooks with Basic auth. It listens on its own loopback port so the service reaches
// it over HTTP through the very adapter that talks to the real provider.
import { createHash, randomBytes } from 'node:crypto'
import Fastify, { type FastifyReply } from 'fastify'
import type { Kysely } from 'kysely'
import type { Clock } from '../clock.ts'
import { buildDynamicBrCode } from './brcode.ts'
import { migrateFakeEulen, type FakeDepositsTable, type FakeEulenTables } from './fake-eulen-store.ts'

const MAX_UNIDENTIFIED_CENTS = 1_000
const MAX_NEW_TAX_NUMBER_CENTS = 50_000
const MAX_DAILY_CENTS = 500_000
const DEFAULT_TIMEOUT_SECONDS = 1_200

export type FakeEulenOptions = {
  db: Kysely<any>
  clock: Clock
  token: string
  host?: string
  /** Refuse a tax number sent without the payer's full name, as Eulen does in production. */
  requireEndUserName?: boolean
}

export type FakeDeposit = {
  qrId: string
  status: string
  valueInCents: number
  expiration: string
  payerName: string | null
  payerTaxNumber: string | null
  payerEUID: string | null
  pixKey: string
  bankTxId?: string
  blockchainTxID?: string
}

/** Stable per tax number, so the same person always gets the same EUID. */
export function euidForTaxNumber(taxNumber: string): string {
  const digest = createHash('sha256').update(`euid:${taxNumber}`).digest()
  return `EU${(digest.readBigUInt64BE(0) % 10n ** 15n).toString().padStart(15, '0')}`
}

function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex')
}

function ok(reply: FastifyReply, response: unknown) {
  return reply.code(200).send({ response, async: false })
}

function refuse(reply: FastifyReply, status: number, errorMessage: string) {
  return reply.code(status).send({ response: { errorMessage }, async: false })
}

function toStatusObject(row: FakeDepositsTable): FakeDeposit {
  return {
    qrId: row.id,
    status: row.status,
    valueInCents: row.paid_cents ?? row.amount_cents,
    expiration: row.expiration.toISOString().replace('Z', '+00:00'),
    payerName: row.payer_name,
    payerTaxNumber: row.payer_tax_number,
    payerEUID: row.payer_euid,
    pixKey: 'sandbox@depix.invalid',
    ...(row.bank_tx_id ? { bankTxId: row.bank_tx_id } : {}),
    ...(row.blockchain_tx_id ? { blockchainTxID: row.blockchain_tx_id } : {}),
  }
}

function parseDateParam(value: unknown): Date | null {
  if (typeof value !== 'string' || value === '') return null
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value)
  return Number.isNaN(date.getTime()) ? null : date
}

export async function startFakeEulen(options: FakeEulenOptions) {
  const db = options.db as Kysely<FakeEulenTables>
  await migrateFakeEulen(options.db)
  const { clock } = options

  async function endUser(taxNumber: string, name: string | null) {
    const known = await db.selectFrom('fake_eulen_end_users').selectAll().where('tax_number', '=', taxNumber).executeTakeFirst()
    if (known) return known
    const euid = euidForTaxNumber(taxNumber)
    await db
      .insertInto('fake_eulen_end_users')
      .values({ tax_number: taxNumber, euid, name, paid_count: 0 })
      .onConflict((oc) => oc.column('tax_number').doNothing())
      .execute()
    return db.selectFrom('fake_eulen_end_users').selectAll().where('tax_number', '=', taxNumber).executeTakeFirstOrThrow()
  }

  const app = Fastify({ logger: false })
  // Tests hold POST /deposit replies after the deposit is stored, to kill a client mid-call.
  let replyGate: { until: Promise<void>; stored: () => void } | null = null

  app.addHook('onRequest', async (request, reply) => {
    if (request.headers.authorization !== `Bearer ${options.token}`) {
      return refuse(reply, 401, 'Token de acesso inválido ou ausente.')
    }
  })

  app.get('/ping', async (_request, reply) => ok(reply, { msg: 'Pong!' }))

  app.post('/deposit', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    const amount = body.amountInCents
    if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 1 || amount > 10_000_000) {
      return refuse(reply, 400, 'amountInCents deve ser um inteiro entre 1 e 10000000.')
    }
    // A partner's own deposit for an end user carries no merchantId; a merchant charge must name a valid one.
    if (body.merchantId !== undefined && (typeof body.merchantId !== 'string' || !/^EU\d{15}$/.test(body.merchantId))) {
      return refuse(reply, 400, 'merchantId inválido.')
    }
    const euid = typeof body.euid === 'string' ? body.euid : null
    const taxNumber = typeof body.endUserTaxNumber === 'string' ? body.endUserTaxNumber : null
    const name = typeof body.endUserFullName === 'string' ? body.endUserFullName : null
    let knownEuid: string | null = null
    if (euid) {
      const user = await db.selectFrom('fake_eulen_end_users').select('euid').where('euid', '=', euid).executeTakeFirst()
      if (!user) return refuse(reply, 422, 'Usuário final (euid) não encontrado.')
      knownEuid = user.euid
    } else if (taxNumber) {
      if (options.requireEndUserName && !name) {
        return refuse(reply, 400, 'endUserFullName é obrigatório quando endUserTaxNumber é informado.')
      }
      const user = await endUser(taxNumber, name)
      if (user.paid_count === 0 && amount > MAX_NEW_TAX_NUMBER_CENTS) {
        return refuse(reply, 422, 'Valor acima do limite para um pagador sem histórico.')
      }
      knownEuid = user.euid
    } else if (amount > MAX_UNIDENTIFIED_CENTS) {
      return refuse(reply, 520, 'Depósitos acima de R$ 10,00 exigem identificação do pagador.')
    }
    const now = clock.now()
    const timeout = typeof body.timeout === 'number' && body.timeout >= 1_200 && body.timeout <= 86_400 ? body.timeout : DEFAULT_TIMEOUT_SECONDS
    const id = randomHex(16)
    const qrCopyPaste = buildDynamicBrCode({
      location: `pix.sandbox.depix.invalid/cob/${id}`,
      amountCents: amount,
      merchantName: 'DEPIX SANDBOX',
      merchantCity: 'SAO PAULO',
    })
    await db
      .insertInto('fake_eulen_deposits')
      .values({
        id,
        amount_cents: amount,
        status: 'pending',
        merchant_id: typeof body.merchantId === 'string' ? body.merchantId : null,
        end_user_euid: knownEuid,
        end_user_tax_number: taxNumber,
        end_user_name: name,
        qr_copy_paste: qrCopyPaste,
        payer_name: null,
        payer_tax_number: null,
        payer_euid: null,
        bank_tx_id: null,
        paid_cents: null,
        blockchain_tx_id: null,
        expiration: new Date(now.getTime() + timeout * 1000),
        created_at: now,
        updated_at: now,
      })
      .execute()
    if (replyGate) {
      replyGate.stored()
      await replyGate.until
    }
    return ok(reply, { id, qrCopyPaste, qrImageUrl: `https://pix.sandbox.depix.invalid/qr/${id}.png` })
  })

  app.get('/deposit-status', async (request, reply) => {
    const id = (request.query as Record<string, unknown>).id
    if (typeof id !== 'string') return refuse(reply, 400, 'Parâmetro id é obrigatório.')
    const row = await db.selectFrom('fake_eulen_deposits').selectAll().where('id', '=', id).executeTakeFirst()
    if (!row) return refuse(reply, 404, 'Depósito não encontrado.')
    return ok(reply, toStatusObject(row))
  })

  app.get('/deposits', async (request, reply) => {
    const query = request.query as Record<string, unknown>
    const start = parseDateParam(query.start)
    const end = parseDateParam(query.end)
    if (!start || !end) return refuse(reply, 400, 'Parâmetros start e end são obrigatórios.')
    let select = db.selectFrom('fake_eulen_deposits').selectAll().where('created_at', '>=', start).where('created_at', '<=', end)
    if (typeof query.status === 'string' && query.status !== '') select = select.where('status', '=', query.status)
    const rows = await select.orderBy('created_at').limit(200).execute()
    return ok(reply, rows.map(toStatusObject))
  })

  app.get('/user-info', async (request, reply) => {
    const euid = (request.query as Record<string, unknown>).euid
    if (typeof euid !== 'string') return refuse(reply, 400, 'Parâmetro euid é obrigatório.')
    const user = await db.selectFrom('fake_eulen_end_users').selectAll().where('euid', '=', euid).executeTakeFirst()
    if (!user) return refuse(reply, 404, 'Usuário final não encontrado.')
    const now = clock.now()
    const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
    const volume = await db
      .selectFrom('fake_eulen_deposits')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_cents'), eb.val(0)).as('total'))
      .where('payer_euid', '=', euid)
      .where('status', '=', 'depix_sent')
      .where('updated_at', '>=', dayStart)
      .executeTakeFirstOrThrow()
    return ok(reply, {
      dailyVolumeInCents: Number(volume.total),
      maxDailyInCents: MAX_DAILY_CENTS,
      isBlocked: false,
      dailyLimitResetTime: new Date(dayStart.getTime() + 86_400_000).toISOString(),
    })
  })

  const address = await app.listen({ host: options.host ?? '127.0.0.1', port: 0 })

  // Where the provider's webhooks go ("registered out of band"): set once the service listens.
  let webhooks: { baseUrl: string; secret: string } | null = null

  async function sendWebhook(type: 'deposit' | 'med', body: Record<string, unknown>): Promise<number> {
    if (!webhooks) throw new Error('the fake provider has no webhook target yet')
    const response = await fetch(`${webhooks.baseUrl}/${type}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${webhooks.secret}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    })
    await response.arrayBuffer()
    return response.status
  }

  async function deposit(id: string) {
    return db.selectFrom('fake_eulen_deposits').selectAll().where('id', '=', id).executeTakeFirst()
  }

  return {
    url: address,
    /** The provider's end user for a tax number (created on first sight), as a real payment would. */
    endUser,
    setWebhookTarget(baseUrl: string, secret: string) {
      webhooks = { baseUrl, secret }
    },
    /**
     * A payer pays the deposit's QR (or the deposit takes another ending): the provider records
     * the payer, with the EUID it keeps for that tax number, and sends its webhook, `duplicates`
     * more times on request, or not at all when `lost`. Answers with the HTTP status our service
     * gave the last webhook.
     */
    async settle(id: string, payment: { payerName: string; payerTaxNumber: string; outcome: string; duplicates?: number; lost?: boolean; paidCents?: number }) {
      const row = await deposit(id)
      if (!row) throw new Error(`no deposit ${id}`)
      const user = await endUser(payment.payerTaxNumber, payment.payerName)
      const now = clock.now()
      const credited = payment.outcome === 'depix_sent'
      await db
        .updateTable('fake_eulen_deposits')
        .set({
          status: payment.outcome,
          payer_name: payment.payerName,
          payer_tax_number: payment.payerTaxNumber,
          payer_euid: user.euid,
          paid_cents: payment.paidCents ?? row.paid_cents,
          bank_tx_id: row.bank_tx_id ?? `PIX_E${randomHex(15)}`,
          blockchain_tx_id: credited ? (row.blockchain_tx_id ?? randomHex(32)) : row.blockchain_tx_id,
          updated_at: now,
        })
        .where('id', '=', id)
        .execute()
      if (credited) {
        await db.updateTable('fake_eulen_end_users').set((eb) => ({ paid_count: eb('paid_count', '+', 1) })).where('tax_number', '=', payment.payerTaxNumber).execute()
      }
      // `lost`: the provider's webhook never arrives, as happens in production.
      if (payment.lost) return 200
      const body = { ...toStatusObject((await deposit(id))!), webhookType: 'deposit' }
      let status = 0
      for (let i = 0; i <= (payment.duplicates ?? 0); i++) status = await sendWebhook('deposit', body)
      return status
    },
    /** A MED reported on a paid deposit, as the provider's med webhook carries it. */
    async med(id: string) {
      const row = await deposit(id)
      if (!row) throw new Error(`no deposit ${id}`)
      return sendWebhook('med', {
        webhookType: 'med',
        qrId: row.id,
        bankTxId: row.bank_tx_id,
        principalValueInCents: row.amount_cents,
        euid: row.payer_euid,
        taxNumber: row.payer_tax_number,
        name: row.payer_name,
        partnerId: row.merchant_id,
        creationDateReport: clock.now().toISOString(),
        ...(row.blockchain_tx_id ? { blockchainTxID: row.blockchain_tx_id } : {}),
      })
    },
    /** Deposits are stored but not answered until `release`; `depositStored` says one arrived. */
    holdDepositReplies() {
      let release!: () => void
      let stored!: () => void
      const until = new Promise<void>((resolve) => (release = resolve))
      const depositStored = new Promise<void>((resolve) => (stored = resolve))
      replyGate = { until, stored }
      return {
        depositStored,
        release: () => {
          replyGate = null
          release()
        },
      }
    },
    close: () => app.close(),
  }
}

export type FakeEulen = Awaited<ReturnType<typeof startFakeEulen>>
