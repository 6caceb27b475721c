// A fake Elements Core wallet for sandbox mode and tests, reached over HTTP JSON-RPC exactly as
// the production adapter reaches elementsd (docs/treasury.md lists the calls and what this copies):
// Basic auth, /wallet/<name>, {result, error, id} with HTTP 500 on an error, amounts as 8-decimal
// JSON numbers, -4 "Insufficient funds", a resend-safe sendrawtransaction with -27/-25/-26, and
// -5 for a transaction it does not know. It keeps coins per asset, refuses to fund beyond them,
// locks the coins a funding takes (listlockunspent, lockunspent: a locked coin is never funded
// again until it is unlocked or spent, as in the node), blinds at walletprocesspsbt (so processing twice gives another transaction), and confirms on
// mined sandbox blocks. Its PSETs and transactions are its own JSON, opaque to the service as
// real ones are; what the service reads of them comes back through decodepsbt, as from a node.
import { createHash, randomBytes } from 'node:crypto'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import Fastify from 'fastify'
import { currencies, type Currency } from '../domain/money.ts'
import { decimalFromUnits, record, unitsFromDecimal } from '../treasury/elements-rpc.ts'
import { newLiquidAddress, parseLiquidAddress, type LiquidNetwork } from '../treasury/liquid-address.ts'

/** What the fake charges for every transaction, in L-BTC satoshis (an explicit fee output, as on Liquid). */
export const FAKE_NETWORK_FEE_SATS = 100n

/** The sandbox's blinding key: a valid point (the curve's generator), so every library accepts its addresses. */
const SANDBOX_BLINDING_KEY = Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex')

export type FakeElementsOptions = {
  network: LiquidNetwork
  wallet: string
  user: string
  password: string
  /** The asset id of each currency (L-BTC's is the network's policy asset). */
  assets: Record<Currency, string>
  /** Kept here across restarts (sandbox mode); in memory only when absent (tests). */
  stateFile?: string
  host?: string
  /** Its own port when it runs standalone (npm run fakes); a free one otherwise. */
  port?: number
}

type Coin = { id: string; asset: Currency; units: bigint; scriptHex: string; height: number | null; locked: boolean; spentBy: string | null }
type Output = { scriptHex: string; address: string; blindingKeyHex: string | null; asset: Currency; units: bigint; fee?: true }
type Pset = { inputs: string[]; outputs: Output[]; blinded: boolean; signed: boolean; salt: string }
type Tx = { txid: string; hex: string; inputs: string[]; outputs: Output[]; height: number | null }

/** A payment the wallet sent to an address it does not own: what the fake provider watches for. */
export type OutgoingPayment = { txid: string; address: string; scriptHex: string; currency: Currency; units: bigint }

class RpcFailure extends Error {
  readonly code: number
  constructor(code: number, message: string) {
    super(message)
    this.code = code
  }
}

/** JSON that keeps bigints (as "bigint:<digits>"), for the fake's state, PSETs and transactions. */
const withBigints = (_key: string, value: unknown) => (typeof value === 'bigint' ? `bigint:${value}` : value)
const readBigints = (_key: string, value: unknown) => (typeof value === 'string' && value.startsWith('bigint:') ? BigInt(value.slice(7)) : value)

/** A coin's id ("<txid>:<vout>") as the node names a coin. */
const outpoint = (id: string) => ({ txid: id.split(':')[0]!, vout: Number(id.split(':')[1]) })

const sha256d = (data: Buffer) => createHash('sha256').update(createHash('sha256').update(data).digest()).digest()
const amount = (units: bigint) => (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(decimalFromUnits(units))

export async function startFakeElements(options: FakeElementsOptions) {
  const assetOf = new Map(currencies.map((currency) => [options.assets[currency], currency]))
  const state = load()
  const listeners: Array<(payment: OutgoingPayment) => void> = []
  /** Tests stop the service around a call: before the node does its work, or after it and before the answer. */
  let hook: ((method: string, phase: 'before' | 'after') => Promise<'drop' | void>) | null = null
  const refusing = new Set<string>()
  const calls = new Map<string, number>()
  /** HTTP requests taken, a batch one however many calls it holds. */
  let requests = 0

  function load(): { height: number; coins: Coin[]; txs: Tx[]; mine: string[] } {
    if (options.stateFile) {
      try {
        return JSON.parse(readFileSync(options.stateFile, 'utf8'), readBigints)
      } catch {
        // No state yet: a new wallet.
      }
    }
    return { height: 0, coins: [], txs: [], mine: [] }
  }

  function save(): void {
    if (!options.stateFile) return
    const text = JSON.stringify(state, withBigints)
    writeFileSync(`${options.stateFile}.tmp`, text)
    renameSync(`${options.stateFile}.tmp`, options.stateFile)
  }

  /** A new P2WPKH address: its output script is OP_0 and the 20-byte key hash (parsing the address back would only cost time). */
  function freshAddress(): { address: string; scriptHex: string } {
    const keyHash = randomBytes(20)
    return { address: newLiquidAddress(options.network, keyHash, SANDBOX_BLINDING_KEY), scriptHex: `0014${keyHash.toString('hex')}` }
  }

  /** The wallet's own scripts, as a set (state.mine is the list kept in the state file), and the addresses it made since it started. */
  const ownScripts = new Set(state.mine)
  const ownAddresses = new Map<string, string>()
  function ownAddress(): { address: string; scriptHex: string } {
    const fresh = freshAddress()
    state.mine.push(fresh.scriptHex)
    ownScripts.add(fresh.scriptHex)
    ownAddresses.set(fresh.address, fresh.scriptHex)
    return fresh
  }

  const isMine = (scriptHex: string) => ownScripts.has(scriptHex)
  /**
   * Change goes back to a few of the wallet's addresses, made once and used in turn: a fresh
   * confidential address (blech32 in JavaScript) cost the fake more than the rest of a payout's
   * work, where a node makes one in no time. What the service checks of change is the same.
   */
  const changeAddresses: Array<{ address: string; scriptHex: string }> = []
  let changeTurn = 0
  function changeAddress(): { address: string; scriptHex: string } {
    const turn = changeTurn++ % 8
    changeAddresses[turn] ??= ownAddress()
    return changeAddresses[turn]
  }
  // Coins and transactions by id, and the coins not spent in the order they came: a treasury that
  // paid thousands of payouts is looked up as a node does, not walked through on every call.
  const coinsById = new Map<string, Coin>()
  const txsById = new Map(state.txs.map((tx) => [tx.txid, tx]))
  const unspent = new Set<Coin>()
  function indexCoins(): void {
    coinsById.clear()
    unspent.clear()
    for (const coin of state.coins) {
      coinsById.set(coin.id, coin)
      if (coin.spentBy === null) unspent.add(coin)
    }
  }
  indexCoins()
  function addCoin(coin: Coin): void {
    state.coins.push(coin)
    coinsById.set(coin.id, coin)
    unspent.add(coin)
  }
  const unspentCoins = () => [...unspent]
  const spendable = (asset: Currency) => unspentCoins().filter((coin) => coin.asset === asset && !coin.locked)
  const txById = (txid: string) => txsById.get(txid)
  const assetLabel = (currency: Currency) => (currency === 'BTC' ? 'bitcoin' : options.assets[currency])

  function balances(): Record<string, unknown> {
    const trusted: Record<string, unknown> = {}
    for (const currency of currencies) {
      const total = unspentCoins().filter((coin) => coin.asset === currency).reduce((sum, coin) => sum + coin.units, 0n)
      if (currency === 'BTC' || total > 0n) trusted[assetLabel(currency)] = amount(total)
    }
    return { mine: { trusted, untrusted_pending: { bitcoin: amount(0n) }, immature: { bitcoin: amount(0n) } } }
  }

  /** Coins of `asset` worth at least `need`, oldest first; null when the wallet has not enough. */
  function select(asset: Currency, need: bigint): Coin[] | null {
    const chosen: Coin[] = []
    let total = 0n
    for (const coin of spendable(asset)) {
      if (total >= need) break
      chosen.push(coin)
      total += coin.units
    }
    return total >= need ? chosen : null
  }

  function encodePset(pset: Pset): string {
    return Buffer.from(JSON.stringify({ fake: 'pset', ...pset }, withBigints)).toString('base64')
  }

  function decodePset(text: unknown): Pset {
    if (typeof text !== 'string') throw new RpcFailure(-8, 'psbt must be a string')
    try {
      const pset = JSON.parse(Buffer.from(text, 'base64').toString('utf8'), readBigints)
      if (pset.fake !== 'pset') throw new Error('not a pset')
      return pset as Pset
    } catch {
      throw new RpcFailure(-22, 'TX decode failed')
    }
  }

  function decodeTx(hex: unknown): Tx {
    if (typeof hex !== 'string' || !/^[0-9a-f]+$/.test(hex)) throw new RpcFailure(-22, 'TX decode failed')
    try {
      const tx = JSON.parse(Buffer.from(hex, 'hex').toString('utf8'), readBigints)
      return { ...tx, hex, txid: Buffer.from(sha256d(Buffer.from(hex, 'hex'))).reverse().toString('hex'), height: null }
    } catch {
      throw new RpcFailure(-22, 'TX decode failed')
    }
  }

  function outputJson(output: Output, blinded: boolean) {
    return {
      amount: amount(output.units),
      asset: options.assets[output.asset],
      script: output.fee ? { asm: '', hex: '', type: 'fee' } : { hex: output.scriptHex, address: output.address, type: 'witness_v0_keyhash' },
      ...(output.blindingKeyHex ? { blinding_pubkey: output.blindingKeyHex, ...(blinded ? {} : { status: 'needs blinding' }) } : {}),
    }
  }

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getblockcount: () => state.height,
    getbalances: () => balances(),
    getnewaddress: () => ownAddress().address,
    getaddressinfo([address]) {
      // The service asks about each change output the wallet made: its own addresses are known
      // without parsing (parsing gives the same).
      const own = typeof address === 'string' ? ownAddresses.get(address) : undefined
      if (own !== undefined) return { address, scriptPubKey: own, ismine: true, confidential_key: SANDBOX_BLINDING_KEY.toString('hex') }
      const parsed = typeof address === 'string' ? parseLiquidAddress(address, options.network) : null
      if (!parsed) throw new RpcFailure(-5, 'Invalid address')
      return { address, scriptPubKey: parsed.scriptHex, ismine: isMine(parsed.scriptHex), confidential_key: parsed.blindingKeyHex ?? '' }
    },
    validateaddress([address]) {
      const parsed = typeof address === 'string' ? parseLiquidAddress(address, options.network) : null
      return parsed ? { isvalid: true, address, scriptPubKey: parsed.scriptHex, confidential_key: parsed.blindingKeyHex ?? '' } : { isvalid: false }
    },
    walletcreatefundedpsbt([, outputs, , funding]) {
      if (!Array.isArray(outputs) || outputs.length !== 1) throw new RpcFailure(-8, 'the fake pays one output at a time')
      const entry = outputs[0] as Record<string, unknown>
      const address = Object.keys(entry).find((key) => key !== 'asset' && key !== 'blinder_index')
      const asset = typeof entry.asset === 'string' ? entry.asset : options.assets.BTC
      if (!/^[0-9a-f]{64}$/.test(asset)) throw new RpcFailure(-8, 'Unable to parse asset hex')
      const parsed = address === undefined ? null : parseLiquidAddress(address, options.network)
      if (!parsed) throw new RpcFailure(-5, `Invalid Bitcoin address: ${address}`)
      const currency = assetOf.get(asset)
      const units = unitsFromDecimal(String(entry[address!]))
      if (units === null || units <= 0n) throw new RpcFailure(-3, 'Invalid amount')
      const paying = currency === undefined ? null : select(currency, currency === 'BTC' ? units + FAKE_NETWORK_FEE_SATS : units)
      const feeCoins = currency === 'BTC' ? [] : select('BTC', FAKE_NETWORK_FEE_SATS)
      if (currency === undefined || paying === null || feeCoins === null) throw new RpcFailure(-4, 'Insufficient funds')
      const inputs = [...paying, ...feeCoins]
      const change = (asset: Currency, spent: bigint) => {
        const total = inputs.filter((coin) => coin.asset === asset).reduce((sum, coin) => sum + coin.units, 0n)
        const rest = total - spent
        if (rest <= 0n) return []
        const own = changeAddress()
        return [{ scriptHex: own.scriptHex, address: own.address, blindingKeyHex: SANDBOX_BLINDING_KEY.toString('hex'), asset, units: rest }]
      }
      const pset: Pset = {
        inputs: inputs.map((coin) => coin.id),
        outputs: [
          { scriptHex: parsed.scriptHex, address: parsed.address, blindingKeyHex: parsed.blindingKeyHex, asset: currency, units },
          ...(currency === 'BTC' ? change('BTC', units + FAKE_NETWORK_FEE_SATS) : [...change(currency, units), ...change('BTC', FAKE_NETWORK_FEE_SATS)]),
          { scriptHex: '', address: '', blindingKeyHex: null, asset: 'BTC', units: FAKE_NETWORK_FEE_SATS, fee: true },
        ],
        blinded: false,
        signed: false,
        salt: '',
      }
      if (record(funding).lockUnspents === true) for (const coin of inputs) coin.locked = true
      save()
      return { psbt: encodePset(pset), fee: amount(FAKE_NETWORK_FEE_SATS), changepos: -1 }
    },
    walletprocesspsbt([psbt, sign]) {
      const pset = decodePset(psbt)
      // Blinding picks fresh random factors: the same PSET processed twice is another transaction.
      const processed: Pset = { ...pset, blinded: true, signed: sign !== false, salt: randomBytes(16).toString('hex') }
      return { psbt: encodePset(processed), complete: processed.signed }
    },
    decodepsbt([psbt]) {
      const pset = decodePset(psbt)
      return { inputs: pset.inputs.map((id) => ({ previous_txid: id.split(':')[0], previous_vout: Number(id.split(':')[1]) })), outputs: pset.outputs.map((output) => outputJson(output, pset.blinded)), fees: { bitcoin: amount(FAKE_NETWORK_FEE_SATS) } }
    },
    finalizepsbt([psbt]) {
      const pset = decodePset(psbt)
      if (!pset.signed || !pset.blinded) return { psbt, complete: false }
      const hex = Buffer.from(JSON.stringify({ inputs: pset.inputs, outputs: pset.outputs, salt: pset.salt }, withBigints)).toString('hex')
      return { hex, complete: true }
    },
    decoderawtransaction([hex]) {
      const tx = decodeTx(hex)
      return { txid: tx.txid, vin: tx.inputs.map((id) => ({ txid: id.split(':')[0], vout: Number(id.split(':')[1]) })), vout: tx.outputs.map((output, n) => ({ n, ...(output.blindingKeyHex ? { valuecommitment: '08'.padEnd(66, '0') } : { value: amount(output.units), asset: options.assets[output.asset] }) })) }
    },
    sendrawtransaction([hex]) {
      const tx = decodeTx(hex)
      const known = txById(tx.txid)
      if (known) {
        if (known.height !== null) throw new RpcFailure(-27, 'Transaction already in block chain')
        return tx.txid
      }
      for (const id of tx.inputs) {
        const coin = coinsById.get(id)
        if (!coin) throw new RpcFailure(-25, 'bad-txns-inputs-missingorspent')
        if (coin.spentBy !== null) {
          const spender = txById(coin.spentBy)
          if (spender?.height != null) throw new RpcFailure(-25, 'bad-txns-inputs-missingorspent')
          throw new RpcFailure(-26, 'txn-mempool-conflict')
        }
      }
      for (const id of tx.inputs) {
        const coin = coinsById.get(id)!
        coin.spentBy = tx.txid
        coin.locked = false
        unspent.delete(coin)
      }
      tx.outputs.forEach((output, vout) => {
        if (!output.fee && isMine(output.scriptHex)) addCoin({ id: `${tx.txid}:${vout}`, asset: output.asset, units: output.units, scriptHex: output.scriptHex, height: null, locked: false, spentBy: null })
      })
      state.txs.push(tx)
      txsById.set(tx.txid, tx)
      save()
      for (const output of tx.outputs) {
        if (output.fee || isMine(output.scriptHex)) continue
        for (const listener of listeners) listener({ txid: tx.txid, address: output.address, scriptHex: output.scriptHex, currency: output.asset, units: output.units })
      }
      return tx.txid
    },
    testmempoolaccept([hexes]) {
      // As sendrawtransaction would judge each, without taking it.
      return (Array.isArray(hexes) ? hexes : []).map((hex) => {
        const tx = decodeTx(hex)
        if (txById(tx.txid)) return { txid: tx.txid, allowed: false, 'reject-reason': 'txn-already-known' }
        for (const id of tx.inputs) {
          const coin = coinsById.get(id)
          if (!coin || (coin.spentBy !== null && txById(coin.spentBy)?.height != null)) return { txid: tx.txid, allowed: false, 'reject-reason': 'bad-txns-inputs-missingorspent' }
          if (coin.spentBy !== null) return { txid: tx.txid, allowed: false, 'reject-reason': 'txn-mempool-conflict' }
        }
        return { txid: tx.txid, allowed: true }
      })
    },
    gettransaction([txid]) {
      // As the node parses a hash: 64 hex digits, or -8.
      if (typeof txid !== 'string' || !/^[0-9a-fA-F]{64}$/.test(txid)) throw new RpcFailure(-8, `txid must be of length 64 and hexadecimal (not '${String(txid)}')`)
      const tx = txById(txid)
      if (!tx) throw new RpcFailure(-5, 'Invalid or non-wallet transaction id')
      // As Elements records a wallet's own send: each output paid away, and the fee, as negative amounts.
      const details = tx.outputs.flatMap((output, vout) => (output.fee || isMine(output.scriptHex) ? [] : [{ address: output.address, category: 'send', amount: amount(-output.units), asset: options.assets[output.asset], vout }]))
      const fee = tx.outputs.filter((output) => output.fee).reduce((sum, output) => sum + output.units, 0n)
      return { txid: tx.txid, confirmations: tx.height === null ? 0 : state.height - tx.height + 1, hex: tx.hex, amount: { bitcoin: amount(0n) }, fee: { bitcoin: amount(-fee) }, details }
    },
    listlockunspent() {
      return unspentCoins().filter((coin) => coin.locked).map((coin) => outpoint(coin.id))
    },
    lockunspent([unlock, outputs]) {
      if (typeof unlock !== 'boolean') throw new RpcFailure(-3, 'Expected type bool for unlock')
      // Without a list, unlocking frees every coin (locking nothing changes nothing).
      if (outputs === undefined || outputs === null) {
        if (unlock) for (const coin of state.coins) coin.locked = false
        save()
        return true
      }
      if (!Array.isArray(outputs)) throw new RpcFailure(-3, 'Expected type array for transactions')
      // Every coin is checked before any changes, as the node does: one refusal refuses them all.
      const chosen = outputs.map((entry) => {
        const { txid, vout } = record(entry)
        if (typeof txid !== 'string' || !/^[0-9a-f]{64}$/.test(txid)) throw new RpcFailure(-8, 'txid must be of length 64 and hexadecimal')
        if (typeof vout !== 'number' || !Number.isInteger(vout) || vout < 0) throw new RpcFailure(-8, 'Invalid parameter, vout cannot be negative')
        const coin = coinsById.get(`${txid}:${vout}`)
        if (!coin) throw new RpcFailure(-8, 'Invalid parameter, unknown transaction')
        if (coin.spentBy !== null) throw new RpcFailure(-8, 'Invalid parameter, expected unspent output')
        if (unlock && !coin.locked) throw new RpcFailure(-8, 'Invalid parameter, expected locked output')
        if (!unlock && coin.locked) throw new RpcFailure(-8, 'Invalid parameter, output already locked')
        return coin
      })
      for (const coin of chosen) coin.locked = !unlock
      save()
      return true
    },
    generatetoaddress([blocks]) {
      const n = typeof blocks === 'number' && Number.isInteger(blocks) && blocks > 0 ? blocks : 1
      return mine(n)
    },
  }

  function mine(blocks: number): string[] {
    const hashes: string[] = []
    for (let i = 0; i < blocks; i++) {
      state.height++
      for (const tx of state.txs) if (tx.height === null) tx.height = state.height
      for (const coin of state.coins) if (coin.height === null) coin.height = state.height
      hashes.push(randomBytes(32).toString('hex'))
    }
    save()
    return hashes
  }

  const app = Fastify({ logger: false, forceCloseConnections: true })
  const expected = `Basic ${Buffer.from(`${options.user}:${options.password}`).toString('base64')}`
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body))
  /** A call's answer as the node gives it: its HTTP status and body, or 'lost' (a test dropped it). */
  type Answer = { status: number; body: { result: unknown; error: { code: number; message: string } | null; id: unknown } } | 'lost'
  async function answer(call: { id?: unknown; method?: unknown; params?: unknown }, path: string): Promise<Answer> {
    const id = call.id ?? null
    const method = typeof call.method === 'string' ? call.method : ''
    const failed = (status: number, code: number, message: string): Answer => ({ status, body: { result: null, error: { code, message }, id } })
    const handler = Object.hasOwn(methods, method) ? methods[method] : undefined
    if (!handler) return failed(404, -32601, 'Method not found')
    if (path !== '/' && path !== `/wallet/${encodeURIComponent(options.wallet)}`) return failed(500, -18, 'Requested wallet does not exist or is not loaded')
    calls.set(method, (calls.get(method) ?? 0) + 1)
    try {
      // 'drop': the call is lost on the way, before the node did anything, or its answer after.
      if (hook && (await hook(method, 'before')) === 'drop') return 'lost'
      // The sandbox's "the node refuses": funding as a node that will not pay the address, a
      // broadcast as one the network rejects.
      if (refusing.has(method)) throw method === 'sendrawtransaction' ? new RpcFailure(-26, 'bad-txns-refused-by-sandbox') : new RpcFailure(-8, 'the sandbox node refuses to fund this payment')
      const result = handler(Array.isArray(call.params) ? call.params : [])
      if (hook && (await hook(method, 'after')) === 'drop') return 'lost'
      return { status: 200, body: { result, error: null, id } }
    } catch (error) {
      if (!(error instanceof RpcFailure)) throw error
      return failed(500, error.code, error.message)
    }
  }

  app.post('/*', async (request, reply) => {
    if (request.headers.authorization !== expected) return reply.code(401).header('www-authenticate', 'Basic realm="jsonrpc"').send('')
    requests++
    let call: unknown
    try {
      call = JSON.parse(String(request.body))
    } catch {
      return reply.code(500).type('application/json').send({ result: null, error: { code: -32700, message: 'Parse error' }, id: null })
    }
    const path = request.url.split('?')[0]!
    const lost = () => {
      reply.hijack()
      request.raw.socket.destroy()
    }
    // A batch (a JSON array of calls), as the node takes one: each answered in turn, the whole
    // with HTTP 200 and each call's error in its own answer; one call lost loses the reply.
    if (Array.isArray(call)) {
      const answers = []
      for (const each of call) {
        const answered = await answer(record(each), path)
        if (answered === 'lost') return lost()
        answers.push(answered.body)
      }
      return reply.type('application/json').send(JSON.stringify(answers))
    }
    const answered = await answer(record(call), path)
    if (answered === 'lost') return lost()
    return reply.code(answered.status).type('application/json').send(JSON.stringify(answered.body))
  })
  const url = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 })

  return {
    url,
    network: options.network,
    /**
     * A confidential address of the node's network that belongs to nobody the fake knows (an owner's
     * outside wallet): what a sandbox walk-through or a rehearsal withdraws to.
     */
    outsideAddress(): string {
      return freshAddress().address
    },
    /**
     * Sets what the wallet holds of `currency`: its spendable coins replaced by `coins` confirmed
     * coins sharing the amount (a treasury that has received many deposits holds many coins).
     */
    setBalance(currency: Currency, units: bigint, coins = 1): void {
      state.coins = state.coins.filter((coin) => coin.asset !== currency || coin.spentBy !== null || coin.locked)
      indexCoins()
      const count = BigInt(coins)
      for (let i = 0n; i < count && units > 0n; i++) {
        const own = ownAddress()
        const share = i === count - 1n ? units - (units / count) * (count - 1n) : units / count
        addCoin({ id: `${randomBytes(32).toString('hex')}:0`, asset: currency, units: share, scriptHex: own.scriptHex, height: state.height, locked: false, spentBy: null })
      }
      save()
    },
    balance(currency: Currency): bigint {
      return unspentCoins().filter((coin) => coin.asset === currency).reduce((sum, coin) => sum + coin.units, 0n)
    },
    /**
     * Locks every spendable coin (of `currency`, or of all), as a funding whose transaction nobody
     * stored leaves them: the wallet still holds them, and no funding can use them. Answers how many.
     */
    lockCoins(currency?: Currency): number {
      const coins = unspentCoins().filter((coin) => !coin.locked && (currency === undefined || coin.asset === currency))
      for (const coin of coins) coin.locked = true
      save()
      return coins.length
    },
    /** The coins locked now, as listlockunspent names them. */
    lockedCoins: () => unspentCoins().filter((coin) => coin.locked).map((coin) => ({ ...outpoint(coin.id), currency: coin.asset, units: coin.units })),
    mine,
    height: () => state.height,
    /** An address of someone else's (the fake provider's deposit addresses). */
    externalAddress: () => freshAddress().address,
    /** Runs for every output the wallet pays to an address it does not own. */
    onOutgoing(listener: (payment: OutgoingPayment) => void): void {
      listeners.push(listener)
    },
    /** Every transaction the wallet broadcast, and how many paid each script. */
    transactions: () => state.txs.map((tx) => ({ txid: tx.txid, height: tx.height, outputs: tx.outputs.filter((output) => !output.fee && !isMine(output.scriptHex)).map((output) => ({ address: output.address, scriptHex: output.scriptHex, currency: output.asset, units: output.units })) })),
    /**
     * Forgets a transaction, as a wallet restored from its seed that has not seen it: the coins it
     * spent are spendable again and its own outputs gone, until it is broadcast again.
     */
    forget(txid: string): void {
      const tx = txById(txid)
      if (!tx) return
      state.txs = state.txs.filter((each) => each !== tx)
      txsById.delete(txid)
      state.coins = state.coins.filter((coin) => !coin.id.startsWith(`${txid}:`))
      for (const coin of state.coins) if (coin.spentBy === txid) coin.spentBy = null
      indexCoins()
      save()
    },
    /** How many times each RPC method was called. */
    calls: () => Object.fromEntries(calls),
    requests: () => requests,
    /** Whether the node refuses to fund payments, and to broadcast transactions (a sandbox control). */
    refuse(refusals: { fund?: boolean; broadcast?: boolean }): { fund: boolean; broadcast: boolean } {
      for (const [name, method] of [['fund', 'walletcreatefundedpsbt'], ['broadcast', 'sendrawtransaction']] as const) {
        const on = refusals[name]
        if (on === true) refusing.add(method)
        if (on === false) refusing.delete(method)
      }
      return { fund: refusing.has('walletcreatefundedpsbt'), broadcast: refusing.has('sendrawtransaction') }
    },
    setHook(next: ((method: string, phase: 'before' | 'after') => Promise<'drop' | void>) | null): void {
      hook = next
    },
    close: () => app.close(),
  }
}

export type FakeElements = Awaited<ReturnType<typeof startFakeElements>>
