// The treasury in production: an Elements Core (elementsd) wallet over JSON-RPC. The calls and
// their answers are listed in docs/treasury.md with what the sandbox's fake copies of each.
// Amounts cross the wire as JSON numbers with 8 decimals: they are read from the reply's own
// text (JSON.parse source access), never through a float.
import { readFile } from 'node:fs/promises'
import { createKeepAliveHttp } from '../net/keep-alive-http.ts'
import { currencies, type Currency } from '../domain/money.ts'
import { TreasuryCheckError, TreasuryRefusedError, TreasuryInsufficientError, TreasuryUnavailableError, type AssetUnits, type Outpoint, type SignedPayment, type Treasury, type TreasuryPayment } from './treasury.ts'

export type ElementsRpcOptions = {
  /** http(s)://host:port of the node's RPC server. */
  url: string
  wallet: string
  auth: { user: string; password: string } | { cookieFile: string }
  /** The asset id (64 hex) of each currency on the node's network. */
  assets: Record<Currency, string>
  timeoutMs: number
}

/** An error the node answered with: its JSON-RPC code and message. */
export class RpcError extends Error {
  override name = 'RpcError'
  readonly code: number
  constructor(code: number, message: string) {
    super(message)
    this.code = code
  }
}

/** "0.00012345" (or 1.5, or 12) as 8-decimal units; null when it is not a plain decimal. */
export function unitsFromDecimal(text: string): AssetUnits | null {
  const match = /^(-?)(\d+)(?:\.(\d{1,8}))?$/.exec(text)
  if (!match) return null
  const units = BigInt(match[2]!) * 100_000_000n + BigInt((match[3] ?? '').padEnd(8, '0'))
  return match[1] === '-' ? -units : units
}

/** 8-decimal units as the decimal text a node takes. */
export function decimalFromUnits(units: AssetUnits): string {
  const sign = units < 0n ? '-' : ''
  const digits = (units < 0n ? -units : units).toString().padStart(9, '0')
  return `${sign}${digits.slice(0, -8)}.${digits.slice(-8)}`
}

type ParseWithSource = (text: string, reviver: (key: string, value: unknown, context: { source?: string }) => unknown) => unknown

/** A reply with every fractional number kept as its decimal text (integers stay numbers). */
export function parseRpcJson(text: string): unknown {
  return (JSON.parse as ParseWithSource)(text, (_key, value, context) =>
    typeof value === 'number' && context.source !== undefined && /[.eE]/.test(context.source) ? context.source : value,
  )
}

/** A JSON object's fields, or none. */
export const record = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {})

/** An amount field: decimal text or an integer number of whole coins. */
function amountOf(value: unknown): AssetUnits | null {
  if (typeof value === 'string') return unitsFromDecimal(value)
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value) * 100_000_000n
  return null
}

/** A coin as the node names one ({txid, vout}, or a PSET input's previous_txid and previous_vout); null when it is not one. */
function outpointOf(value: unknown, txidKey = 'txid', voutKey = 'vout'): Outpoint | null {
  const fields = record(value)
  const txid = fields[txidKey]
  const vout = fields[voutKey]
  return typeof txid === 'string' && /^[0-9a-f]{64}$/.test(txid) && typeof vout === 'number' && Number.isSafeInteger(vout) && vout >= 0 ? { txid, vout } : null
}

/** Every entry of `list` read as a coin, or null when one is not: a partial answer is no answer. */
function outpointsOf(list: unknown, txidKey?: string, voutKey?: string): Outpoint[] | null {
  if (!Array.isArray(list)) return null
  const coins = list.map((entry) => outpointOf(entry, txidKey, voutKey))
  return coins.every((coin) => coin !== null) ? (coins as Outpoint[]) : null
}

export function createElementsTreasury(options: ElementsRpcOptions): Treasury {
  const endpoint = `${options.url.replace(/\/+$/, '')}/wallet/${encodeURIComponent(options.wallet)}`
  const currencyOfAsset = new Map(currencies.map((currency) => [options.assets[currency], currency]))
  let cookie: string | null = null
  let nextId = 1

  const target = new URL(endpoint)
  const http = createKeepAliveHttp({ timeoutMs: options.timeoutMs })

  /** POSTs `body`; answers the status and the whole reply, or fails (unreachable, lost, or not whole within the time-out). */
  const post = (body: string, authorization: string) => http.call(target, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body })

  async function authorization(reread: boolean): Promise<string> {
    if ('user' in options.auth) return `Basic ${Buffer.from(`${options.auth.user}:${options.auth.password}`).toString('base64')}`
    // The node writes a new cookie each time it starts: read again after a refusal.
    if (cookie === null || reread) cookie = (await readFile(options.auth.cookieFile, 'utf8')).trim()
    return `Basic ${Buffer.from(cookie).toString('base64')}`
  }

  /** POSTs `request` (one call or a batch); answers the reply's JSON, or fails as unavailable. */
  async function exchange(request: unknown, name: string, retried = false): Promise<{ status: number; ok: boolean; reply: unknown }> {
    let response: { status: number; ok: boolean; text: string }
    try {
      response = await post(JSON.stringify(request), await authorization(retried))
    } catch (error) {
      throw new TreasuryUnavailableError(`treasury node unreachable (${name}): ${(error as Error).message}`, { cause: error })
    }
    if (response.status === 401) {
      if (!retried && 'cookieFile' in options.auth) return exchange(request, name, true)
      throw new TreasuryUnavailableError('the treasury node refused our RPC credentials')
    }
    try {
      return { status: response.status, ok: response.ok, reply: parseRpcJson(response.text) }
    } catch {
      throw new TreasuryUnavailableError(`treasury node answered ${name} with HTTP ${response.status} and no JSON`)
    }
  }

  /** A call's result, or its error as an RpcError. */
  function resultOf(answer: Record<string, unknown>): unknown {
    const error = record(answer.error)
    if (answer.error !== null && answer.error !== undefined) throw new RpcError(typeof error.code === 'number' ? error.code : -1, typeof error.message === 'string' ? error.message : 'unknown error')
    return answer.result
  }

  async function rpc(method: string, params: unknown[]): Promise<unknown> {
    const { status, ok, reply } = await exchange({ jsonrpc: '1.0', id: nextId++, method, params }, method)
    const result = resultOf(record(reply))
    if (!ok) throw new TreasuryUnavailableError(`treasury node answered ${method} with HTTP ${status}`)
    return result
  }

  /**
   * Calls in one request (a JSON-RPC batch, which the node answers in one reply): each call's
   * result, or its error as an RpcError, in order. A reply that does not answer each call is the
   * node failing.
   */
  async function rpcBatchAnswers(calls: Array<[method: string, params: unknown[]]>): Promise<unknown[]> {
    if (calls.length === 0) return []
    const ids = calls.map(() => nextId++)
    const name = [...new Set(calls.map(([method]) => method))].join(', ')
    const { status, reply } = await exchange(calls.map(([method, params], i) => ({ jsonrpc: '1.0', id: ids[i], method, params })), name)
    const answers = new Map((Array.isArray(reply) ? reply : []).map((answer) => [record(answer).id, record(answer)]))
    return ids.map((id) => {
      const answer = answers.get(id)
      if (answer === undefined) throw new TreasuryUnavailableError(`treasury node answered a batch of ${name} with HTTP ${status} and without each call's answer`)
      try {
        return resultOf(answer)
      } catch (error) {
        return error
      }
    })
  }

  /**
   * An RPC error from funding or signing is the node refusing this payment (an address it will
   * not pay, a blinding key it cannot use), except while it is starting (-28) or its wallet is
   * locked or busy (-13, -4 other than insufficient funds): those pass, the others never will.
   */
  const refused = (error: unknown): never => {
    if (error instanceof RpcError && error.code !== -28 && error.code !== -13 && error.code !== -4) throw new TreasuryRefusedError(`treasury node refused: ${error.message} (${error.code})`, { cause: error })
    return unavailable(error)
  }

  /** The node failing, as a caller sees it. */
  const nodeFailing = (error: RpcError) => new TreasuryUnavailableError(`treasury node: ${error.message} (${error.code})`, { cause: error })
  /** An RPC error the caller does not expect is the node failing, as far as the caller knows. */
  const unavailable = (error: unknown): never => {
    if (error instanceof RpcError) throw nodeFailing(error)
    throw error
  }

  /** A batch call's answer as an object; a call the node failed is the node failing. */
  const answerOf = (answer: unknown): Record<string, unknown> => (answer instanceof RpcError ? unavailable(answer) : record(answer))

  async function balances(): Promise<Record<Currency, AssetUnits>> {
    const result = record(await rpc('getbalances', []).catch(unavailable))
    const trusted = record(record(result.mine).trusted)
    const balances = Object.fromEntries(currencies.map((currency) => [currency, 0n])) as Record<Currency, AssetUnits>
    for (const [key, value] of Object.entries(trusted)) {
      // The node labels L-BTC "bitcoin", other assets by their id (or a label from -assetdir).
      const currency = key === 'bitcoin' ? 'BTC' : currencyOfAsset.get(key)
      const units = amountOf(value)
      if (currency !== undefined && units !== null) balances[currency] = units
    }
    return balances
  }

  async function fundOnce(payment: TreasuryPayment): Promise<{ psbt: string }> {
    try {
      const result = record(await rpc('walletcreatefundedpsbt', [[], [{ [payment.address]: decimalFromUnits(payment.units), asset: options.assets[payment.currency] }], 0, { lockUnspents: true }]))
      if (typeof result.psbt !== 'string') throw new TreasuryUnavailableError('walletcreatefundedpsbt answered no psbt')
      return { psbt: result.psbt }
    } catch (error) {
      // Elements answers -4 "Insufficient funds" when funding a PSBT (-6 from sendtoaddress).
      if (error instanceof RpcError && (error.code === -4 || error.code === -6) && /insufficient funds/i.test(error.message)) throw new TreasuryInsufficientError(error.message)
      return refused(error)
    }
  }

  /** Whether the wallet's balance, which counts the coins locked by funded transactions not yet broadcast, covers the payment (the fee aside). */
  async function balanceCovers(payment: TreasuryPayment): Promise<boolean> {
    const held = await balances()
    return payment.currency === 'BTC' ? held.BTC > payment.units : held[payment.currency] >= payment.units && held.BTC > 0n
  }

  /**
   * A funded transaction locks its coins until it is broadcast: the runner pays eight at once, and
   * a wallet holding fewer coins of an asset (L-BTC for the fee, most often) than payouts in flight
   * answers "Insufficient funds" though it holds enough. While the balance covers the payment (it
   * still counts locked coins), funding is tried again as those payouts are broadcast, for as long
   * as one call may last; then the wallet is short and support looks (docs/performance.md,
   * "Smaller choices, measured").
   */
  async function fundWhenUnlocked(payment: TreasuryPayment): Promise<{ psbt: string }> {
    const deadline = Date.now() + options.timeoutMs
    for (let wait = 25; ; wait = Math.min(wait * 2, 500)) {
      try {
        return await fundOnce(payment)
      } catch (error) {
        if (!(error instanceof TreasuryInsufficientError) || Date.now() + wait > deadline || !(await balanceCovers(payment))) throw error
        await new Promise((resolve) => setTimeout(resolve, wait))
      }
    }
  }
  let funding: Promise<unknown> = Promise.resolve()

  return {
    balances,

    fund(payment) {
      // One funding at a time in this process, in the order asked, so a payout that waits for
      // coins (below) is not overtaken by the payouts started after it.
      const funded = funding.then(() => fundWhenUnlocked(payment))
      funding = funded.catch(() => {})
      return funded
    },

    async signChecked(psbt, payment) {
      const processed = record(await rpc('walletprocesspsbt', [psbt, true, 'ALL', true, false]).catch(refused))
      if (typeof processed.psbt !== 'string') throw new TreasuryUnavailableError('walletprocesspsbt answered no psbt')
      // Finalizing changes nothing in the wallet, so it goes with the check's decode in one
      // request, and the transaction's txid with the check's change lookups in another: three
      // round trips to the node instead of five. Nothing leaves before the check has passed.
      // Each answer is read in the order the calls were once made one by one, so a transaction that
      // fails the check is held as one whatever a later call of its batch answered.
      const [decoded, finalized] = await rpcBatchAnswers([['decodepsbt', [processed.psbt]], ['finalizepsbt', [processed.psbt, true]]]).catch(unavailable)
      const check = checkPays(answerOf(decoded), payment)
      const final = answerOf(finalized)
      const finalHex = final.complete === true && typeof final.hex === 'string' ? final.hex : null
      const lookups: Array<[string, unknown[]]> = check.change.map((address) => ['getaddressinfo', [address]])
      if (finalHex !== null) lookups.push(['decoderawtransaction', [finalHex]])
      const answers = await rpcBatchAnswers(lookups).catch(unavailable)
      check.change.forEach((address, i) => {
        if (answerOf(answers[i]).ismine !== true) throw new TreasuryCheckError(`the transaction pays ${address} that is neither the destination nor the treasury's change`)
      })
      if (finalHex === null) throw new TreasuryCheckError('the treasury could not sign every input of the transaction')
      const txid = answerOf(answers[check.change.length]).txid
      if (typeof txid !== 'string') throw new TreasuryUnavailableError('decoderawtransaction answered no txid')
      return { hex: finalHex, txid, feeUnits: check.feeUnits }
    },

    async broadcast(signed: SignedPayment) {
      try {
        await rpc('sendrawtransaction', [signed.hex])
        return 'broadcast'
      } catch (error) {
        if (!(error instanceof RpcError)) throw error
        // Already mined: the node says so (-27); spent inputs may also mean ours confirmed.
        if (error.code === -27) return 'broadcast'
        if (error.code === -25 || error.code === -26) {
          const seen = await confirmations(signed.txid)
          if (seen !== null && seen > 0) return 'broadcast'
          return error.code === -25 && /missingorspent/.test(error.message) ? 'inputs_spent' : 'conflict'
        }
        return unavailable(error)
      }
    },

    confirmations,

    async confirmationsOf(txids) {
      const answers = await rpcBatchAnswers(txids.map((txid) => ['gettransaction', [txid]])).catch(unavailable)
      // A call the node failed fails only its own transaction's answer: the others were answered.
      return answers.map((answer) => {
        if (!(answer instanceof RpcError)) return confirmationsIn(answer)
        if (answer.code === -5) return null
        return nodeFailing(answer)
      })
    },

    async transactionDead(signed) {
      const seen = await confirmations(signed.txid)
      if (seen !== null && seen >= 0) return false
      const answers = await rpc('testmempoolaccept', [[signed.hex]]).catch(unavailable)
      const answer = record(Array.isArray(answers) ? answers[0] : undefined)
      return answer.allowed === false && typeof answer['reject-reason'] === 'string' && /missingorspent/.test(answer['reject-reason'])
    },

    async sentTransaction(txid) {
      let result: Record<string, unknown>
      try {
        result = record(await rpc('gettransaction', [txid]))
      } catch (error) {
        if (error instanceof RpcError && error.code === -5) return null
        return unavailable(error)
      }
      // Elements lists each output the wallet sent away as a `send` detail with a negative amount
      // and the asset's id; the fee is a negative amount, or a map from asset label to one.
      const sent = (Array.isArray(result.details) ? result.details.map(record) : [])
        .filter((detail) => detail.category === 'send')
        .map((detail) => ({ currency: typeof detail.asset === 'string' ? currencyOfAsset.get(detail.asset) ?? null : null, units: -(amountOf(detail.amount) ?? 0n) }))
      const fee = typeof result.fee === 'object' && result.fee !== null ? record(result.fee).bitcoin : result.fee
      return { sent, feeUnits: -(amountOf(fee) ?? 0n) }
    },

    async lockedCoins() {
      const coins = outpointsOf(await rpc('listlockunspent', []).catch(unavailable))
      if (coins === null) throw new TreasuryUnavailableError('listlockunspent answered something other than a list of coins')
      return coins
    },

    async unlockCoins(coins) {
      if (coins.length === 0) return []
      const unlock = (some: Outpoint[]) => rpc('lockunspent', [true, some.map(({ txid, vout }) => ({ txid, vout }))])
      try {
        await unlock(coins)
        return coins
      } catch (error) {
        if (!(error instanceof RpcError) || error.code !== -8) return unavailable(error)
      }
      // The node checks every coin before it unlocks any (-8: one is no longer locked, or was spent
      // meanwhile): one at a time, the others are unlocked and those passed over.
      const unlocked: Outpoint[] = []
      for (const coin of coins) {
        try {
          await unlock([coin])
          unlocked.push(coin)
        } catch (error) {
          if (!(error instanceof RpcError) || error.code !== -8) return unavailable(error)
        }
      }
      return unlocked
    },

    async inputsOf(stored) {
      let coins: Outpoint[] | null
      if ('hex' in stored) {
        coins = outpointsOf(record(await rpc('decoderawtransaction', [stored.hex]).catch(unavailable)).vin)
      } else {
        // A PSET (version 2) lists its inputs with the coins they spend; a version 0 PSBT carries its unsigned transaction.
        const decoded = record(await rpc('decodepsbt', [stored.psbt]).catch(unavailable))
        coins = decoded.tx !== undefined ? outpointsOf(record(decoded.tx).vin) : outpointsOf(decoded.inputs, 'previous_txid', 'previous_vout')
      }
      // A transaction spends at least one coin: an answer without one is not read as "claims nothing".
      if (coins === null || coins.length === 0) throw new TreasuryUnavailableError('the treasury node did not say which coins a stored transaction spends')
      return coins
    },
  }

  async function confirmations(txid: string): Promise<number | null> {
    try {
      return confirmationsIn(await rpc('gettransaction', [txid]))
    } catch (error) {
      if (error instanceof RpcError && error.code === -5) return null
      return unavailable(error)
    }
  }

  /** gettransaction's answer read for its confirmations; null when it has none. */
  function confirmationsIn(answer: unknown): number | null {
    const { confirmations } = record(answer)
    return typeof confirmations === 'number' ? confirmations : null
  }

  /**
   * From decodepsbt's answer: exactly one output pays the payment (asset, amount, script, blinding
   * key), the rest are the fee and change, and none needs blinding or has a bad proof. Answers
   * the fee the transaction pays and the addresses the node must own (its change).
   */
  function checkPays(decoded: Record<string, unknown>, payment: TreasuryPayment): { feeUnits: AssetUnits; change: string[] } {
    const outputs = Array.isArray(decoded.outputs) ? decoded.outputs.map(record) : []
    let paying = 0
    let feeUnits = 0n
    /** The outputs that must be the wallet's own change, by address (null: an output without one). */
    const change: Array<string | null> = []
    for (const output of outputs) {
      if (output.status !== undefined) throw new TreasuryCheckError(`an output of the transaction is not ready: ${String(output.status)}`)
      const script = record(output.script)
      if (script.type === 'fee' || script.hex === '') {
        // The fee is paid in L-BTC: what the books post as the network's (network_fees).
        feeUnits += amountOf(output.amount) ?? 0n
        continue
      }
      const pays = script.hex === payment.scriptHex
      if (pays) {
        const amount = amountOf(output.amount)
        if (output.asset !== options.assets[payment.currency] || amount !== payment.units) throw new TreasuryCheckError(`the output to the destination carries ${String(output.amount)} of ${String(output.asset)}, not the withdrawal`)
        if (payment.blindingKeyHex !== null && output.blinding_pubkey !== payment.blindingKeyHex) throw new TreasuryCheckError('the output to the destination is not blinded to its key')
        paying++
        continue
      }
      change.push(typeof script.address === 'string' ? script.address : null)
    }
    if (paying !== 1) throw new TreasuryCheckError(`the transaction pays the destination ${paying} times`)
    if (change.includes(null)) throw new TreasuryCheckError('the transaction pays a script that is neither the destination nor the treasury\'s change')
    return { feeUnits, change: change as string[] }
  }
}
