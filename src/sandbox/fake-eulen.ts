// A faithful fake of Eulen's DePix API (docs/rules.md#eulen-api) for sandbox mode: same paths,
// envelope, Bearer auth and error shape, valid BR Codes, a stable EUID per tax number, and
// provider webhooks with Basic auth. It listens on its own loopback port so the service reaches
// it over HTTP through the very adapter that talks to the real provider.
import { createHash, randomBytes } from 'node:crypto'
import Fastify, { type FastifyReply } from 'fastify'
import { CompiledQuery, type Kysely } from 'kysely'
import type { Clock } from '../clock.ts'
import { randomHexSource } from '../random-hex.ts'
import QRCode from 'qrcode'
import { createBucket, type Limit } from '../provider/rate-limits.ts'
import { buildDynamicBrCode } from './brcode.ts'
import { migrateFakeEulen, type FakeDepositsTable, type FakeEndUsersTable, type FakeEulenTables, type FakePayoutsTable } from './fake-eulen-store.ts'
import type { OutgoingPayment } from './fake-elements.ts'

const MAX_UNIDENTIFIED_CENTS = 1_000
const MAX_NEW_TAX_NUMBER_CENTS = 50_000
const MAX_DAILY_CENTS = 500_000
const DEFAULT_TIMEOUT_SECONDS = 1_200

export type FakeEulenOptions = {
  db: Kysely<any>
  clock: Clock
  token: string
  host?: string
  /** Its own port when it runs standalone (npm run fakes); a free one otherwise. */
  port?: number
  /** Refuse a tax number it does not know sent without the payer's full name, as Eulen does. */
  requireEndUserName?: boolean
  /** Eulen's floor on delayDepixInHours for merchant charges (since June 2026); 0 = none. */
  minimumDelayHours?: number
  /** Hold callers to Eulen's published limits (429 with its sentence) instead of answering everything. */
  enforceRateLimits?: boolean
  /** The partner (our account at Eulen) whose id MED webhooks carry as partnerId. */
  partnerId?: string
}

export type AsyncReplies = 'off' | 'enveloped' | 'bare'

/** A deposit about to be stored, as POST /deposit made it. */
type NewDeposit = {
  id: string
  amountCents: number
  merchantId: string | null
  name: string | null
  qrCopyPaste: string
  delayHours: number
  expiration: Date
  now: Date
}

export type FakeDeposit = {
  qrId: string
  status: string
  customerMessage: string | null
  delayUntil: string | null
  valueInCents?: number
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

/** A deposit's id: every sandbox create-payment makes one. */
const newDepositId = randomHexSource(16)

function ok(reply: FastifyReply, response: unknown) {
  return reply.code(200).send({ response, async: false })
}

function refuse(reply: FastifyReply, status: number, errorMessage: string) {
  return reply.code(status).send({ response: { errorMessage }, async: false })
}

const customerMessages: Record<string, string> = {
  pending: 'Aguardando pagamento.',
  delayed: 'Pagamento recebido; DePix será enviado ao fim do prazo.',
  under_review: 'Pagamento em análise.',
  depix_sent: 'DePix enviado.',
  will_refund: 'O pagamento será devolvido.',
  refunded: 'Pagamento devolvido.',
  canceled: 'Depósito cancelado.',
  expired: 'QR expirado.',
  error: 'Erro no processamento.',
}

function toStatusObject(row: FakeDepositsTable): FakeDeposit {
  return {
    qrId: row.id,
    status: row.status,
    customerMessage: customerMessages[row.status] ?? null,
    delayUntil: row.delay_until === null ? null : row.delay_until.toISOString().replace('Z', '+00:00'),
    ...(row.amount_reported ? { valueInCents: row.paid_cents ?? row.amount_cents } : {}),
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

/**
 * storeForKnownEndUser's statement (in startFakeEulen), a constant text rather than one built for
 * each deposit, as every sandbox create-payment runs it. Parameters: the deposit's id, amount,
 * merchant id, name, BR Code, delay in hours, expiration and time of creation, the tax number,
 * and the most a new tax number may pay.
 */
const storeForKnownText = `
  insert into fake_eulen_deposits (id, amount_cents, status, merchant_id, end_user_euid, end_user_tax_number, end_user_name, qr_copy_paste, delay_hours, expiration, created_at, updated_at)
  select $1::text, $2::int8, 'pending', $3::text, case when paid_count > 0 then euid end, tax_number, $4::text, $5::text, $6::int4, $7::timestamptz, $8::timestamptz, $8::timestamptz
  from fake_eulen_end_users
  where tax_number = $9 and (paid_count > 0 or $2::int8 <= $10::int8)
    and set_config('synchronous_commit', 'off', true) = 'off'
  returning end_user_euid`

export async function startFakeEulen(options: FakeEulenOptions) {
  const db = options.db as Kysely<FakeEulenTables>
  await migrateFakeEulen(options.db)
  const { clock } = options

  const findEndUser = (taxNumber: string) => db.selectFrom('fake_eulen_end_users').selectAll().where('tax_number', '=', taxNumber).executeTakeFirst()

  /**
   * Stores a deposit for a tax number the fake has seen, within what that end user may pay, in
   * the statement that reads the end user (one round trip, as most sandbox payers were seen
   * before); undefined when it stored nothing, and the deposit then takes the long way, which
   * says why. Its commit does not wait for the disk: the fake stands for Eulen's machines, and the
   * service's own commit of the charge, next on the same log, waits for it. A lone statement can
   * set synchronous_commit only in its WHERE clause; the casts give the SELECT list's parameters
   * their types (docs/performance.md, "Creating a charge").
   */
  const storeForKnownEndUser = async (deposit: NewDeposit, taxNumber: string) => (await db.executeQuery<{ end_user_euid: string | null }>(CompiledQuery.raw(storeForKnownText, [
    deposit.id, deposit.amountCents, deposit.merchantId, deposit.name, deposit.qrCopyPaste, deposit.delayHours, deposit.expiration, deposit.now, taxNumber, MAX_NEW_TAX_NUMBER_CENTS,
  ]))).rows[0]

  /** The end user of a tax number, made on first sight; `known` when the caller already read it. */
  async function endUser(taxNumber: string, name: string | null, known?: FakeEndUsersTable | null) {
    const found = known === undefined ? await findEndUser(taxNumber) : known
    if (found) return found
    const euid = euidForTaxNumber(taxNumber)
    // Any conflict, not only the tax number's: two first charges of one new payer at once both
    // insert, and the loser may meet the euid's unique index (made from the tax number) first.
    await db
      .insertInto('fake_eulen_end_users')
      .values({ tax_number: taxNumber, euid, name, paid_count: 0 })
      .onConflict((oc) => oc.doNothing())
      .execute()
    return db.selectFrom('fake_eulen_end_users').selectAll().where('tax_number', '=', taxNumber).executeTakeFirstOrThrow()
  }

  // Closing drops the connections still open: a deposit reply held for a test (below) and then
  // abandoned by its client kept a keep-alive socket counted as busy, and close() waited 70 s for it.
  const app = Fastify({ logger: false, forceCloseConnections: true })
  let selfUrl = ''

  // Tests hold POST /deposit replies after the deposit is stored, to kill a client mid-call.
  let replyGate: { until: Promise<void>; stored: () => void } | null = null

  app.addHook('onRequest', async (request, reply) => {
    if (request.headers.authorization !== `Bearer ${options.token}`) {
      return refuse(reply, 401, 'Token de acesso inválido ou ausente.')
    }
  })

  const partnerId = options.partnerId ?? 'EU000000000000000'
  app.get('/ping', async (_request, reply) => ok(reply, { msg: 'Pong!', claims: { sub: partnerId, scope: ['deposit', 'withdraw'], env: 'sandbox' } }))

  // Eulen's published limits (docs/rules.md#provider-limits), when asked: a burst beyond them is 429.
  const published: Record<string, Limit> = {
    '/ping': { perMinute: 1, burst: 1 },
    '/deposit': { perMinute: 15, burst: 50 },
    '/deposit-status': { perMinute: 60, burst: 50 },
    '/deposits': { perMinute: 12, burst: 10 },
    '/withdraw': { perMinute: 10, burst: 50 },
    '/withdraw-status': { perMinute: 60, burst: 50 },
  }
  const buckets = new Map(Object.entries(published).map(([path, limit]) => [path, createBucket(limit, () => performance.now())]))
  if (options.enforceRateLimits) {
    app.addHook('onRequest', async (request, reply) => {
      const wait = buckets.get(request.url.split('?')[0]!)?.take() ?? 0
      if (wait > 0) return refuse(reply.header('retry-after', String(wait)), 429, 'Limite de requisições excedido. Tente novamente mais tarde.')
    })
  }

  // Replies the way older API versions did, on request: {async: true, urlResponse, expiration},
  // the result served in the envelope or, as some deployments serve it, bare.
  let asyncReplies: AsyncReplies = 'off'
  const asyncResults = new Map<string, unknown>()
  app.get<{ Params: { key: string } }>('/async/:key', async (request, reply) => {
    const result = asyncResults.get(request.params.key)
    if (result === undefined) return refuse(reply, 404, 'Resultado não encontrado.')
    return asyncReplies === 'bare' ? reply.code(200).send(result) : ok(reply, result)
  })

  // Eulen's 429 on /deposit, on request, whatever the published limits say.
  let depositsRateLimited = false

  // The QR image the deposit reply points to, so qrImageUrl is reachable as the reference says.
  app.get<{ Params: { file: string } }>('/qr/:file', async (request, reply) => {
    const row = await db.selectFrom('fake_eulen_deposits').select('qr_copy_paste').where('id', '=', request.params.file.replace(/\.png$/, '')).executeTakeFirst()
    if (!row) return refuse(reply, 404, 'QR não encontrado.')
    return reply.type('image/png').send(await QRCode.toBuffer(row.qr_copy_paste, { type: 'png', margin: 2, scale: 6 }))
  })

  app.post('/deposit', async (request, reply) => {
    if (depositsRateLimited) return refuse(reply.header('retry-after', '30'), 429, 'Limite de requisições excedido. Tente novamente mais tarde.')
    const body = (request.body ?? {}) as Record<string, unknown>
    const amount = body.amountInCents
    if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 1 || amount > 10_000_000) {
      return refuse(reply, 400, 'amountInCents deve ser um inteiro entre 1 e 10000000.')
    }
    // A partner's own deposit for an end user carries no merchantId; a merchant charge must name a valid one.
    if (body.merchantId !== undefined && (typeof body.merchantId !== 'string' || !/^EU\d{15}$/.test(body.merchantId))) {
      return refuse(reply, 400, 'merchantId inválido.')
    }
    const merchantCharge = typeof body.merchantId === 'string'
    const delay = body.delayDepixInHours
    if (delay !== undefined && (typeof delay !== 'number' || !Number.isInteger(delay) || delay < 1 || delay > 720)) {
      return refuse(reply, 400, 'delayDepixInHours deve ser um inteiro entre 1 e 720.')
    }
    const delayHours = typeof delay === 'number' ? delay : 0
    if (merchantCharge && delayHours < (options.minimumDelayHours ?? 0)) {
      return refuse(reply, 520, `delayDepixInHours mínimo para lojistas é ${options.minimumDelayHours} h.`)
    }
    const euid = typeof body.euid === 'string' ? body.euid : null
    const taxNumber = typeof body.endUserTaxNumber === 'string' ? body.endUserTaxNumber : null
    const name = typeof body.endUserFullName === 'string' ? body.endUserFullName : null
    const now = clock.now()
    const timeout = typeof body.timeout === 'number' && body.timeout >= 1_200 && body.timeout <= 86_400 ? body.timeout : DEFAULT_TIMEOUT_SECONDS
    const id = newDepositId()
    const deposit: NewDeposit = {
      id,
      amountCents: amount,
      merchantId: typeof body.merchantId === 'string' ? body.merchantId : null,
      name,
      qrCopyPaste: buildDynamicBrCode({
        location: `pix.sandbox.depix.invalid/cob/${id}`,
        amountCents: amount,
        merchantName: 'DEPIX SANDBOX',
        merchantCity: 'SAO PAULO',
      }),
      delayHours,
      expiration: new Date(now.getTime() + timeout * 1000),
      now,
    }
    const storedForKnown = !euid && taxNumber ? await storeForKnownEndUser(deposit, taxNumber) : undefined
    // A tax number that has paid before is an end user the provider knows: it says who.
    let knownEuid = storedForKnown?.end_user_euid ?? null
    if (storedForKnown === undefined) {
      if (euid) {
        const user = await db.selectFrom('fake_eulen_end_users').select('euid').where('euid', '=', euid).executeTakeFirst()
        if (!user) return refuse(reply, 422, 'Usuário final (euid) não encontrado.')
        knownEuid = user.euid
      } else if (taxNumber) {
        const known = await findEndUser(taxNumber)
        if (options.requireEndUserName && !name && !known) {
          return refuse(reply, 400, 'endUserFullName é obrigatório quando endUserTaxNumber é informado.')
        }
        const user = await endUser(taxNumber, name, known ?? null)
        if (user.paid_count === 0 && amount > MAX_NEW_TAX_NUMBER_CENTS) {
          return refuse(reply, 422, 'Valor acima do limite para um pagador sem histórico.')
        }
        knownEuid = user.paid_count > 0 ? user.euid : null
      } else if (amount > MAX_UNIDENTIFIED_CENTS) {
        return refuse(reply, 520, 'Depósitos acima de R$ 10,00 exigem identificação do pagador.')
      }
      await db
        .insertInto('fake_eulen_deposits')
        .values({
          id,
          amount_cents: deposit.amountCents,
          status: 'pending',
          merchant_id: deposit.merchantId,
          end_user_euid: knownEuid,
          end_user_tax_number: taxNumber,
          end_user_name: deposit.name,
          qr_copy_paste: deposit.qrCopyPaste,
          payer_name: null,
          payer_tax_number: null,
          payer_euid: null,
          bank_tx_id: null,
          paid_cents: null,
          amount_reported: true,
          delay_hours: deposit.delayHours,
          delay_until: null,
          blockchain_tx_id: null,
          expiration: deposit.expiration,
          created_at: deposit.now,
          updated_at: deposit.now,
        })
        .execute()
    }
    if (replyGate) {
      replyGate.stored()
      await replyGate.until
    }
    const expiration = deposit.expiration.toISOString().replace('Z', '+00:00')
    const result = {
      id, qrCopyPaste: deposit.qrCopyPaste, qrImageUrl: `${selfUrl}/qr/${id}.png`, expiration, delayInHours: delayHours,
      ...(taxNumber && knownEuid ? { payerEUID: knownEuid } : {}),
    }
    if (asyncReplies === 'off') return ok(reply, result)
    const key = randomHex(8)
    asyncResults.set(key, result)
    return reply.code(200).send({ async: true, urlResponse: `${selfUrl}/async/${key}`, expiration: new Date(Date.now() + 60_000).toISOString() })
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

  // Payouts (DePix → Pix): the DePix is to be sent to a deposit address of ours, on the treasury's
  // network; until watchPayouts names where addresses come from, there are none to give.
  let payoutAddress: (() => string) | null = null
  const toPayoutObject = (row: FakePayoutsTable) => ({
    id: row.id,
    withdrawalId: row.id,
    status: row.status,
    pixKey: row.pix_key,
    ...(row.tax_number ? { taxNumber: row.tax_number } : { euid: row.euid }),
    depositAddress: row.deposit_address,
    depositAmountInCents: row.deposit_cents,
    payoutAmountInCents: row.payout_cents,
    expiration: row.expiration.toISOString().replace('Z', '+00:00'),
    ...(row.received_txid ? { blockchainTxID: row.received_txid } : {}),
    ...(row.receipt_url ? { receiptUrl: row.receipt_url } : {}),
  })
  /** Eulen's payout fee: 1 %, at least R$ 1,00, out of what it receives. */
  const payoutFee = (depositCents: number) => Math.max(100, Math.ceil(depositCents / 100))

  app.post('/withdraw', async (request, reply) => {
    const nonce = request.headers['x-nonce']
    if (typeof nonce !== 'string' || nonce.length < 1 || nonce.length > 128) return refuse(reply, 400, 'Cabeçalho X-Nonce é obrigatório.')
    // The same nonce is the same request: its payout again, never a second one.
    const seen = await db.selectFrom('fake_eulen_payouts').selectAll().where('nonce', '=', nonce).executeTakeFirst()
    if (seen) return ok(reply, toPayoutObject(seen))
    if (!payoutAddress) return refuse(reply, 503, 'Saques indisponíveis no momento.')
    const body = (request.body ?? {}) as Record<string, unknown>
    const pixKey = body.pixKey
    if (typeof pixKey !== 'string' || pixKey.length < 1 || pixKey.length > 77) return refuse(reply, 400, 'pixKey é obrigatório.')
    const taxNumber = typeof body.taxNumber === 'string' && /^\d{11}$|^\d{14}$/.test(body.taxNumber) ? body.taxNumber : null
    const euid = typeof body.euid === 'string' && /^EU\d{15}$/.test(body.euid) ? body.euid : null
    if ((taxNumber === null) === (euid === null)) return refuse(reply, 400, 'Informe taxNumber ou euid, não ambos.')
    const isCents = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0
    const deposit = body.depositAmountInCents
    const payout = body.payoutAmountInCents
    if (isCents(deposit) === isCents(payout) || (deposit !== undefined && !isCents(deposit)) || (payout !== undefined && !isCents(payout))) {
      return refuse(reply, 400, 'Informe depositAmountInCents ou payoutAmountInCents, um só, em centavos.')
    }
    // A sandbox control: the key's bank says it does not exist, as a payer without a CPF key would.
    if (refusePixKeys) return refuse(reply, 422, 'Chave Pix não encontrada.')
    const depositCents = isCents(deposit) ? deposit : Math.max(payout as number + 100, Math.ceil(((payout as number) * 100) / 99))
    const payoutCents = depositCents - payoutFee(depositCents)
    if (depositCents < 200 || depositCents > 600_000 || payoutCents <= 0) return refuse(reply, 520, 'Valor de saque fora dos limites (R$ 2,00 a R$ 6.000,00).')
    const now = clock.now()
    const row = await db
      .insertInto('fake_eulen_payouts')
      .values({
        id: randomHex(16), nonce, pix_key: pixKey, tax_number: taxNumber, euid, deposit_address: payoutAddress(), deposit_cents: depositCents + payoutSurchargeCents, payout_cents: payoutCents,
        status: 'unsent', expiration: new Date(now.getTime() + DEFAULT_TIMEOUT_SECONDS * 1000), received_txid: null, receipt_url: null, created_at: now, updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    if (payoutGate) {
      payoutGate.stored()
      await payoutGate.until
    }
    return ok(reply, toPayoutObject(row))
  })

  app.get('/withdraw-status', async (request, reply) => {
    const query = request.query as Record<string, unknown>
    const select = db.selectFrom('fake_eulen_payouts').selectAll()
    const row = typeof query.id === 'string' ? await select.where('id', '=', query.id).executeTakeFirst()
      : typeof query.nonce === 'string' ? await select.where('nonce', '=', query.nonce).executeTakeFirst()
      : null
    if (row === null) return refuse(reply, 400, 'Parâmetro id é obrigatório.')
    if (!row) return refuse(reply, 404, 'Saque não encontrado.')
    return ok(reply, toPayoutObject(row))
  })

  // A sandbox control: replies ask this much more DePix than the payout needs, as a provider that
  // answered another amount would, so the rule that such a reply is never paid can be tried.
  let payoutSurchargeCents = 0
  // A sandbox control: every new Pix-out is refused as a key not found (the merchant's refund then fails).
  let refusePixKeys = false

  // Tests hold POST /withdraw replies after the payout is stored, to kill the service mid-call.
  let payoutGate: { until: Promise<void>; stored: () => void } | null = null

  const address = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 })
  selfUrl = address

  // Where the provider's webhooks go ("registered out of band"): set once the service listens.
  let webhooks: { baseUrl: string; secret: string } | null = null

  async function sendWebhook(type: 'deposit' | 'med' | 'withdraw', body: Record<string, unknown>): Promise<number> {
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

  async function payoutRow(id: string) {
    return db.selectFrom('fake_eulen_payouts').selectAll().where('id', '=', id).executeTakeFirst()
  }

  async function deposit(id: string) {
    return db.selectFrom('fake_eulen_deposits').selectAll().where('id', '=', id).executeTakeFirst()
  }

  return {
    url: address,
    /** The provider's end user for a tax number (created on first sight), as a real payment would. */
    endUser,
    /** The deposit whose id (qrId) or copy-and-paste code this is, as a payer's bank finds it from the code. */
    async findDeposit(reference: string): Promise<FakeDeposit | undefined> {
      const row = await db.selectFrom('fake_eulen_deposits').selectAll().where((eb) => eb.or([eb('id', '=', reference), eb('qr_copy_paste', '=', reference)])).executeTakeFirst()
      return row && toStatusObject(row)
    },
    setWebhookTarget(baseUrl: string, secret: string) {
      webhooks = { baseUrl, secret }
    },
    /**
     * A payer pays the deposit's QR (or the deposit takes another ending): the provider records
     * the payer, with the EUID it keeps for that tax number, and sends its webhook, `duplicates`
     * more times on request, or not at all when `lost`. Answers with the HTTP status our service
     * gave the last webhook.
     */
    async settle(id: string, payment: { payerName: string; payerTaxNumber: string; outcome: string; duplicates?: number; lost?: boolean; paidCents?: number | null }) {
      const row = await deposit(id)
      if (!row) throw new Error(`no deposit ${id}`)
      const user = await endUser(payment.payerTaxNumber, payment.payerName)
      const now = clock.now()
      // A delayed deposit is paid but held: "delayed" now, depix_sent when the delay ends.
      const outcome = payment.outcome === 'depix_sent' && row.delay_hours > 0 ? 'delayed' : payment.outcome
      const credited = outcome === 'depix_sent'
      await db
        .updateTable('fake_eulen_deposits')
        .set({
          status: outcome,
          delay_until: outcome === 'delayed' ? new Date(now.getTime() + row.delay_hours * 3_600_000) : row.delay_until,
          payer_name: payment.payerName,
          payer_tax_number: payment.payerTaxNumber,
          payer_euid: user.euid,
          paid_cents: payment.paidCents ?? row.paid_cents,
          // paidCents null: the provider's reports leave the amount out.
          amount_reported: payment.paidCents === null ? false : row.amount_reported,
          bank_tx_id: row.bank_tx_id ?? `PIX_E${randomHex(16)}`,
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
    /**
     * A MED reported on a paid deposit, as the provider's med webhook carries it: for what was
     * paid, or for `principalCents` of it (a partial MED).
     */
    async med(id: string, principalCents?: number) {
      const row = await deposit(id)
      if (!row) throw new Error(`no deposit ${id}`)
      return sendWebhook('med', {
        webhookType: 'med',
        qrId: row.id,
        bankTxId: row.bank_tx_id,
        principalValueInCents: principalCents ?? row.paid_cents ?? row.amount_cents,
        euid: row.payer_euid,
        taxNumber: row.payer_tax_number,
        name: row.payer_name,
        partnerId,
        creationDateReport: clock.now().toISOString(),
        ...(row.blockchain_tx_id ? { blockchainTxID: row.blockchain_tx_id } : {}),
      })
    },
    /** Delayed deposits whose delay has ended on the clock are delivered: depix_sent, with its webhook. */
    async deliverDelayed(): Promise<number> {
      const due = await db.selectFrom('fake_eulen_deposits').selectAll().where('status', '=', 'delayed').where('delay_until', '<=', clock.now()).execute()
      for (const row of due) {
        await db.updateTable('fake_eulen_deposits').set({ status: 'depix_sent', blockchain_tx_id: row.blockchain_tx_id ?? randomHex(32), updated_at: clock.now() }).where('id', '=', row.id).where('status', '=', 'delayed').execute()
        if (row.payer_tax_number) await db.updateTable('fake_eulen_end_users').set((eb) => ({ paid_count: eb('paid_count', '+', 1) })).where('tax_number', '=', row.payer_tax_number).execute()
        if (webhooks) await sendWebhook('deposit', { ...toStatusObject((await deposit(row.id))!), webhookType: 'deposit' })
      }
      return due.length
    },
    /**
     * Payouts get their deposit addresses from the treasury's network, and see the DePix the
     * treasury sends there: the right amount before the expiry starts the Pix (`sending`);
     * anything else is an error.
     */
    watchPayouts(treasury: { externalAddress(): string; onOutgoing(listener: (payment: OutgoingPayment) => void): void }) {
      payoutAddress = () => treasury.externalAddress()
      treasury.onOutgoing((payment) => {
        void (async () => {
          const row = await db.selectFrom('fake_eulen_payouts').selectAll().where('deposit_address', '=', payment.address).where('status', '=', 'unsent').executeTakeFirst()
          if (!row) return
          const fits = payment.currency === 'DEPIX' && payment.units === BigInt(row.deposit_cents) * 1_000_000n && clock.now().getTime() < row.expiration.getTime()
          await db.updateTable('fake_eulen_payouts').set({ status: fits ? 'sending' : 'error', received_txid: payment.txid, updated_at: clock.now() }).where('id', '=', row.id).execute()
          if (webhooks) await sendWebhook('withdraw', { ...toPayoutObject((await payoutRow(row.id))!), webhookType: 'withdraw' })
        })().catch(() => {})
      })
    },
    /** The Pix of a payout is paid (`sent`, with a receipt) or not (`error`, `refunded`), with the withdraw webhook. */
    async finishPayout(id: string, outcome: 'sent' | 'error' | 'refunded'): Promise<number> {
      const row = await payoutRow(id)
      if (!row) throw new Error(`no payout ${id}`)
      await db.updateTable('fake_eulen_payouts').set({ status: outcome, receipt_url: outcome === 'sent' ? `${selfUrl}/receipts/${id}.pdf` : null, updated_at: clock.now() }).where('id', '=', id).execute()
      return webhooks ? sendWebhook('withdraw', { ...toPayoutObject((await payoutRow(id))!), webhookType: 'withdraw' }) : 0
    },
    payout: (id: string) => payoutRow(id),
    /** New payouts ask `cents` more DePix than they need (0: exactly what they need). */
    askExtraOnPayouts(cents: number): void {
      payoutSurchargeCents = cents
    },
    /** The Pix-out controls as they stand. */
    payoutControls: () => ({ ask_extra_cents: payoutSurchargeCents, refuse_keys: refusePixKeys }),
    /** Whether new Pix-outs are refused as a key not found. */
    refusePayoutKeys(refuse: boolean): void {
      refusePixKeys = refuse
    },
    /** Every payout, oldest first. */
    payouts: () => db.selectFrom('fake_eulen_payouts').selectAll().orderBy('created_at').orderBy('id').execute(),
    /** How many payouts were made (a second POST with one nonce makes none). */
    async payoutCount(): Promise<number> {
      const row = await db.selectFrom('fake_eulen_payouts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
      return Number(row.n)
    },
    /** Payouts are stored but not answered until `release`. */
    holdPayoutReplies() {
      let release!: () => void
      let stored!: () => void
      const until = new Promise<void>((resolve) => (release = resolve))
      const payoutStored = new Promise<void>((resolve) => (stored = resolve))
      payoutGate = { until, stored }
      return {
        payoutStored,
        release: () => {
          payoutGate = null
          release()
        },
      }
    },
    /** Answer POST /deposit asynchronously from now on, its result in the envelope or bare (or stop), as older API versions did. */
    setAsyncReplies(mode: AsyncReplies) {
      asyncReplies = mode
    },
    /** Answer every POST /deposit with Eulen's 429 from now on (or stop). */
    setDepositsRateLimited(on: boolean) {
      depositsRateLimited = on
    },
    /** How the fake answers now (for the sandbox's provider controls). */
    behaviour() {
      return { asyncReplies, depositsRateLimited }
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
