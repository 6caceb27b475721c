// Sandbox controls (docs/rules.md#sandbox): no token, sandbox mode only. One plugin, registered by
// the composition root (service.ts) in sandbox mode and never otherwise. They drive the same use
// cases as production, with the fake provider standing in for the payer's side.
import { Type } from 'typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { issueToken } from '../app/issue-token.ts'
import { openAccount } from '../app/open-account.ts'
import { parseQuotes, showQuote } from '../app/set-quotes.ts'
import { DomainError } from '../domain/errors.ts'
import { parseTaxNumber } from '../domain/tax-number.ts'
import { isChargeId } from '../domain/charge.ts'
import type { Clock } from '../clock.ts'
import type { JobRunner } from '../jobs/runner.ts'
import type { Store } from '../store/store.ts'
import type { TokenCache } from '../store/token-cache.ts'
import { deliverMailTo, finishWorkTheSandboxCaused } from './finish-work.ts'
import type { AdjustableClock } from '../clock.ts'
import type { FakeEulen } from './fake-eulen.ts'
import type { FakeElements } from './fake-elements.ts'
import { minorUnitsIn, toAssetUnits } from '../domain/withdrawal.ts'
import type { FakeTicker } from './fake-ticker.ts'
import type { Outbox } from './outbox.ts'
import { documentAudience } from '../web/audiences.ts'
import { ChargeRecord } from '../contract/api.ts'
import { ErrorBody, QuoteValue } from '../contract/api.ts'
import { toChargeRecord } from '../app/get-charge.ts'

/** What sandbox mode adds to the service: the fake provider, the movable clock, the outbox, the fake tickers. */
export type SandboxParts = { fake: FakeEulen; clock: AdjustableClock; outbox: Outbox | null; ticker: FakeTicker; elements: FakeElements }

export type SandboxRouteDeps = { store: Store; clock: Clock; tokenCache?: TokenCache; jobs: JobRunner; sandbox: SandboxParts }

const Email = Type.String({ format: 'email', maxLength: 254 })
const errors = { 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody }

export const sandboxRoutes: FastifyPluginAsyncTypebox<SandboxRouteDeps> = async (app, deps) => {
  const { store, sandbox } = deps
  documentAudience(app, 'sandbox')

  app.post(
    '/sandbox/accounts',
    {
      schema: {
        operationId: 'sandboxOpenAccount',
        summary: 'Open an account whose owner is known to the provider',
        description: 'purchase "own" (default) gives the owner an EUID, as a confirmed purchase with their own CPF would; "none" and "unidentified" leave the account without one.',
        body: Type.Object(
          {
            email: Email,
            tax_number: Type.String({ maxLength: 32 }),
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            purchase: Type.Optional(Type.Enum(['own', 'none', 'unidentified'])),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ email: Type.String(), euid: Type.Union([Type.String(), Type.Null()]) }, { examples: [{ email: 'store@example.com', euid: 'EU123456789012345' }] }), ...errors },
      },
      config: { fieldErrorCodes: { email: 'email_invalid', tax_number: 'tax_number_invalid' } },
    },
    async (request) => {
      const taxNumber = parseTaxNumber(request.body.tax_number)
      if (!taxNumber) throw new DomainError('tax_number_invalid', { param: 'tax_number' })
      const purchase = request.body.purchase ?? 'own'
      const name = request.body.name ?? null
      // A confirmed purchase paid with the owner's tax number is what makes the provider know them.
      const euid = purchase === 'own' ? (await sandbox.fake.endUser(taxNumber.value, name)).euid : null
      const account = await openAccount(deps, {
        email: request.body.email.toLowerCase(),
        taxNumber: taxNumber.value,
        name,
        kyc: purchase === 'own' ? 'verified' : purchase,
        euid,
      })
      return { email: account.email, euid: account.euid }
    },
  )

  app.post(
    '/sandbox/accounts/:email/tokens',
    {
      schema: {
        operationId: 'sandboxIssueToken',
        summary: 'Issue an API token for an account',
        description: 'kind "pending" waits for support, "no_merchant_id" has none; the body may be empty.',
        params: Type.Object({ email: Type.String({ maxLength: 254 }) }),
        body: Type.Object(
          {
            kind: Type.Optional(Type.Enum(['current', 'pending', 'no_merchant_id'])),
            expires_at: Type.Optional(Type.String({ format: 'date-time' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            { token: Type.String(), token_id: Type.String(), merchant_id: Type.Union([Type.String(), Type.Null()]) },
            { examples: [{ token: 'pxt_…', token_id: 'tok_0f1e2d3c4b5a6978', merchant_id: 'mer_0f1e2d3c4b5a6978' }] },
          ),
          ...errors,
        },
      },
      config: { bodyMayBeEmpty: true },
    },
    async (request) => {
      const account = await store.accounts.findByEmail(request.params.email.toLowerCase())
      if (!account) throw new DomainError('account_not_found', { param: 'email' })
      const expiresAt = request.body.expires_at ? new Date(request.body.expires_at) : null
      const issued = await issueToken(deps, { accountId: account.id, kind: request.body.kind ?? 'current', expiresAt })
      return { token: issued.token, token_id: issued.tokenId, merchant_id: issued.merchantId }
    },
  )

  // The Wallet's mail when no SMTP server is configured (docs/rules.md#outbox), newest first.
  app.get(
    '/sandbox/outbox',
    {
      schema: {
        operationId: 'sandboxOutbox',
        summary: "The Wallet's mail to an address (no SMTP server set)",
        querystring: Type.Object({ email: Type.String({ maxLength: 254 }) }, { additionalProperties: false }),
        response: {
          200: Type.Object(
            { mails: Type.Array(Type.Object({ to: Type.String(), subject: Type.String(), text: Type.String(), code: Type.Union([Type.String(), Type.Null()]), sent_at: Type.String() })) },
            { examples: [{ mails: [{ to: 'store@example.com', subject: 'Seu código de acesso: 123456', text: '…', code: '123456', sent_at: '2026-11-23T12:00:00.000Z' }] }] },
          ),
          ...errors,
        },
      },
    },
    async (request) => {
      if (!sandbox.outbox) throw new DomainError('not_found', { message: 'SMTP_URL is set: mail goes to the SMTP server, not the outbox.' })
      // Mail leaves from the job queue: what is queued or being sent to the address is delivered
      // first (bounded), so a code asked for is here even when a background lane took its mail.
      const email = request.query.email.trim().toLowerCase()
      await deliverMailTo(deps, email)
      return { mails: await sandbox.outbox.list(email) }
    },
  )

  app.put(
    '/sandbox/quotes',
    {
      schema: {
        operationId: 'sandboxSetPrices',
        summary: 'Set the BRL prices the sandbox tickers answer',
        description:
          'Both tickers (the primary and the second one that checks it) answer these prices, and the service takes them as the last accepted ones, as if the market had moved there gradually. ' +
          '`jump: true` moves the tickers only, so the band check (docs/rules.md#quotes) sees the jump: a payment confirmed now waits in security_hold (quote_unavailable). `source` moves one ticker alone, to make the two disagree.',
        body: Type.Object(
          {
            BTC: Type.Optional(QuoteValue),
            USDt: Type.Optional(QuoteValue),
            jump: Type.Optional(Type.Boolean()),
            source: Type.Optional(Type.Enum(['both', 'primary', 'check'])),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ BTC: Type.Union([Type.String(), Type.Null()]), USDt: Type.Union([Type.String(), Type.Null()]) }, { examples: [{ BTC: '350000.00', USDt: '5.40' }] }), ...errors },
      },
    },
    // The prices the sandbox's public tickers answer; conversions fetch them at confirmation.
    async (request) => {
      const given = parseQuotes(request.body).filter((entry): entry is ['BTC' | 'USDt', number] => entry[1] !== null)
      const source = request.body.source ?? 'both'
      const prices = sandbox.ticker.setPrices(Object.fromEntries(given), source === 'both' ? undefined : source === 'primary' ? 'binance' : 'mercadobitcoin')
      if (!request.body.jump && source !== 'check') {
        for (const [currency, micros] of given) await store.quotes.accept(currency, micros, 'sandbox', deps.clock.now())
      }
      return { BTC: showQuote(prices.BTC), USDt: showQuote(prices.USDt) }
    },
  )

  app.put(
    '/sandbox/provider',
    {
      schema: {
        operationId: 'sandboxProviderBehaviour',
        summary: 'Make the fake provider behave as Eulen sometimes does',
        description:
          '`deposit_rate_limited: true` answers every POST /deposit with Eulen\'s 429 (merchants get 503 provider_unavailable with Retry-After). ' +
          '`async_replies` answers POST /deposit asynchronously, its result served in the envelope (`enveloped`) or bare (`bare`); `off` answers at once.',
        body: Type.Object(
          { deposit_rate_limited: Type.Optional(Type.Boolean()), async_replies: Type.Optional(Type.Enum(['off', 'enveloped', 'bare'])) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ deposit_rate_limited: Type.Boolean(), async_replies: Type.String() }, { examples: [{ deposit_rate_limited: false, async_replies: 'off' }] }),
          ...errors,
        },
      },
    },
    async (request) => {
      if (request.body.deposit_rate_limited !== undefined) sandbox.fake.setDepositsRateLimited(request.body.deposit_rate_limited)
      if (request.body.async_replies !== undefined) sandbox.fake.setAsyncReplies(request.body.async_replies)
      const behaviour = sandbox.fake.behaviour()
      return { deposit_rate_limited: behaviour.depositsRateLimited, async_replies: behaviour.asyncReplies }
    },
  )

  app.post(
    '/sandbox/clock',
    {
      schema: {
        operationId: 'sandboxAdvanceClock',
        summary: 'Move the sandbox clock forward',
        description: 'Expiries (10 min), webhook retries, 7-day holds and provider delays that fall due run before the answer.',
        body: Type.Object({ advance_seconds: Type.Integer({ minimum: 0, maximum: 31_536_000 }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ now: Type.String() }, { examples: [{ now: '2026-11-23T12:10:01.000Z' }] }), ...errors },
      },
    },
    async (request) => {
      const now = sandbox.clock.advance(request.body.advance_seconds)
      // The provider's side of time first (delays that ended deliver their DePix), then ours.
      await sandbox.fake.deliverDelayed()
      await finishWorkTheSandboxCaused(deps.jobs)
      return { now: now.toISOString() }
    },
  )

  const PaymentParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
  const chargeOf = async (id: string) => {
    const charge = isChargeId(id) ? await store.charges.findById(id) : undefined
    if (!charge) throw new DomainError('payment_not_found', { param: 'id' })
    return charge
  }

  app.post(
    '/sandbox/payments/:id/pay',
    {
      schema: {
        operationId: 'sandboxPay',
        summary: 'Pay a QR as a payer would',
        description:
          'outcome picks what the provider reports (depix_sent by default); paid_cents pays another amount, and null leaves the amount out of the provider\'s reports; ' +
          'duplicates repeats the webhook; lost changes the provider\'s status without sending its webhook, as when one is lost (reconciliation finds it).',
        params: PaymentParams,
        body: Type.Object(
          {
            payer_name: Type.String({ minLength: 1, maxLength: 100 }),
            payer_tax_number: Type.String({ maxLength: 32 }),
            outcome: Type.Optional(Type.Enum(['depix_sent', 'under_review', 'pending', 'delayed', 'approved', 'error', 'will_refund', 'refunded', 'canceled', 'expired'])),
            duplicates: Type.Optional(Type.Integer({ minimum: 0, maximum: 5 })),
            paid_cents: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 10_000_000 }), Type.Null()], { description: 'Pay another amount than the QR asks (docs/rules.md#amount-arrived); null: the provider does not say' })),
            lost: Type.Optional(Type.Boolean({ description: 'The provider\'s webhook never arrives' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: ChargeRecord, ...errors },
      },
      config: { fieldErrorCodes: { payer_tax_number: 'tax_number_invalid' } },
    },
    async (request) => {
      const taxNumber = parseTaxNumber(request.body.payer_tax_number)
      if (!taxNumber) throw new DomainError('tax_number_invalid', { param: 'payer_tax_number' })
      const charge = await chargeOf(request.params.id)
      // "pending" at the provider is a paid QR still waiting: the provider calls that "delayed".
      const outcome = request.body.outcome === 'pending' ? 'delayed' : (request.body.outcome ?? 'depix_sent')
      const status = await sandbox.fake.settle(charge.provider_deposit_id, {
        payerName: request.body.payer_name,
        payerTaxNumber: taxNumber.value,
        outcome,
        ...(request.body.duplicates === undefined ? {} : { duplicates: request.body.duplicates }),
        ...(request.body.paid_cents === undefined ? {} : { paidCents: request.body.paid_cents }),
        ...(request.body.lost ? { lost: true } : {}),
      })
      if (status !== 200) throw new Error(`the service answered the provider webhook with HTTP ${status}`)
      await finishWorkTheSandboxCaused(deps.jobs)
      return toChargeRecord((await store.charges.findById(charge.id))!)
    },
  )

  app.post(
    '/sandbox/payments/:id/med',
    {
      schema: {
        operationId: 'sandboxMed',
        summary: 'Open a refund dispute (MED) on a payment',
        description: 'As the provider MED webhook: blocks the payer and the receiving e-mail, takes back a credited payment; principal_cents takes back only that part (a partial MED). The body may be empty.',
        params: PaymentParams,
        body: Type.Object({ principal_cents: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000 })) }, { additionalProperties: false }),
        response: { 200: ChargeRecord, ...errors },
      },
      config: { bodyMayBeEmpty: true },
    },
    async (request) => {
      const charge = await chargeOf(request.params.id)
      const status = await sandbox.fake.med(charge.provider_deposit_id, request.body.principal_cents)
      if (status !== 200) throw new Error(`the service answered the MED webhook with HTTP ${status}`)
      await finishWorkTheSandboxCaused(deps.jobs)
      return toChargeRecord((await store.charges.findById(charge.id))!)
    },
  )

  // The treasury and the provider's payouts: set what the treasury holds, lock its coins as a
  // funding nobody stored leaves them, mine blocks, and pay (or fail) the Pix of a payout.
  const Units = Type.Integer({ minimum: 0, maximum: 2_100_000_000_000_000 })
  const treasuryView = () => ({
    DEPIX: minorUnitsIn('DEPIX', sandbox.elements.balance('DEPIX')), BTC: minorUnitsIn('BTC', sandbox.elements.balance('BTC')), USDt: minorUnitsIn('USDt', sandbox.elements.balance('USDt')),
    height: sandbox.elements.height(), locked_coins: sandbox.elements.lockedCoins().length,
  })
  const TreasuryView = Type.Object(
    { DEPIX: Type.Integer(), BTC: Type.Integer(), USDt: Type.Integer(), height: Type.Integer(), locked_coins: Type.Integer({ description: 'Coins the wallet holds locked: by payouts funded and not yet broadcast, or by POST /sandbox/treasury/lock.' }) },
    { description: 'What the treasury wallet holds, in balances\' units (centavos, satoshis, 10^-6 USDt), the chain height, and how many of its coins are locked.', examples: [{ DEPIX: 100000000, BTC: 1000000000, USDt: 100000000000, height: 12, locked_coins: 0 }] },
  )

  app.get('/sandbox/liquid-address', {
    schema: {
      operationId: 'sandboxLiquidAddress',
      summary: 'A Liquid address to withdraw to',
      description: 'A new confidential address of the sandbox\'s network (elementsregtest unless LIQUID_NETWORK says otherwise) that belongs to nobody: add it as a destination in the Wallet, as an owner adds the address of their own wallet.',
      response: {
        200: Type.Object({ address: Type.String(), network: Type.String() }, { examples: [{ address: 'el1qqfumuen7l8wthtz45p3ftn58pvrs9xlumvkuu2xet8egzkcklqtespc8qurswpc8qurswpc8qurswpc8qurswnp99krjj0slq', network: 'elementsregtest' }] }),
        ...errors,
      },
    },
  }, async () => ({ address: sandbox.elements.outsideAddress(), network: sandbox.elements.network }))

  app.get('/sandbox/treasury', { schema: { operationId: 'sandboxTreasury', summary: 'What the sandbox treasury holds', response: { 200: TreasuryView, ...errors } } }, async () => treasuryView())

  app.put(
    '/sandbox/treasury',
    {
      schema: {
        operationId: 'sandboxSetTreasury',
        summary: 'Set what the sandbox treasury holds',
        description: 'In balances\' units; a currency left out keeps its balance. Below what accounts are owed, withdrawals wait in review (treasury_insufficient).',
        body: Type.Object({ DEPIX: Type.Optional(Units), BTC: Type.Optional(Units), USDt: Type.Optional(Units) }, { additionalProperties: false }),
        response: { 200: TreasuryView, ...errors },
      },
    },
    async (request) => {
      for (const currency of ['DEPIX', 'BTC', 'USDt'] as const) {
        const amount = request.body[currency]
        if (amount !== undefined) sandbox.elements.setBalance(currency, toAssetUnits(currency, amount))
      }
      return treasuryView()
    },
  )

  app.post(
    '/sandbox/treasury/lock',
    {
      schema: {
        operationId: 'sandboxLockTreasuryCoins',
        summary: 'Lock the sandbox treasury\'s coins, as a crash between funding and storing leaves them',
        description: 'Every spendable coin (of `currency`, or of all) is locked in the node with no payout claiming it: withdrawals wait as treasury_insufficient until the service unlocks them, at its next start or at its scheduled look (every 5 minutes; a coin is unlocked once found orphaned twice, a minute or more apart: POST /sandbox/clock twice).',
        body: Type.Object({ currency: Type.Optional(Type.Enum(['DEPIX', 'BTC', 'USDt'])) }, { additionalProperties: false }),
        response: { 200: TreasuryView, ...errors },
      },
      config: { bodyMayBeEmpty: true },
    },
    async (request) => {
      sandbox.elements.lockCoins(request.body.currency)
      return treasuryView()
    },
  )

  app.post(
    '/sandbox/treasury/mine',
    {
      schema: {
        operationId: 'sandboxMine',
        summary: 'Mine sandbox blocks',
        description: 'Confirms the treasury\'s transactions; Liquid withdrawals with 2 confirmations complete before the answer.',
        body: Type.Object({ blocks: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }, { additionalProperties: false }),
        response: { 200: TreasuryView, ...errors },
      },
      config: { bodyMayBeEmpty: true },
    },
    async (request) => {
      // A withdrawal asked for a moment ago is broadcast first, so these blocks confirm it.
      await finishWorkTheSandboxCaused(deps.jobs)
      sandbox.elements.mine(request.body.blocks ?? 1)
      await store.jobs.bringForward('send_payout', deps.clock.now())
      await store.jobs.bringForward('follow_liquid_payouts', deps.clock.now())
      await finishWorkTheSandboxCaused(deps.jobs)
      return treasuryView()
    },
  )

  app.put(
    '/sandbox/treasury/refusals',
    {
      schema: {
        operationId: 'sandboxTreasuryRefusals',
        summary: 'Make the sandbox treasury node refuse to pay',
        description: 'fund: the node refuses to fund payments (as one that will not pay an address): a Liquid payout waits for support as treasury_refused, never retried for ever. broadcast: the network rejects transactions: the payout waits as broadcast_rejected. false restores it; a field left out keeps its setting.',
        body: Type.Object({ fund: Type.Optional(Type.Boolean()), broadcast: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        response: { 200: Type.Object({ fund: Type.Boolean(), broadcast: Type.Boolean() }, { examples: [{ fund: true, broadcast: false }] }), ...errors },
      },
    },
    async (request) => sandbox.elements.refuse(request.body),
  )

  app.put(
    '/sandbox/provider/payouts',
    {
      schema: {
        operationId: 'sandboxProviderPayouts',
        summary: "How the fake provider answers Pix-outs",
        description: 'ask_extra_cents: each new Pix-out reply asks that many more centavos of DePix than the payout needs, as a provider answering another amount would; such a reply is held for support (payout_mismatch) and never paid. 0 answers exactly. ' +
          'refuse_keys: true refuses every new Pix-out as a key not found (a merchant\'s refund then fails with payer_key_not_found and its amount goes back); false pays them. A field left out keeps its setting.',
        body: Type.Object({ ask_extra_cents: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })), refuse_keys: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        response: { 200: Type.Object({ ask_extra_cents: Type.Integer(), refuse_keys: Type.Boolean() }, { examples: [{ ask_extra_cents: 5000, refuse_keys: false }] }), ...errors },
      },
    },
    async (request) => {
      if (request.body.ask_extra_cents !== undefined) sandbox.fake.askExtraOnPayouts(request.body.ask_extra_cents)
      if (request.body.refuse_keys !== undefined) sandbox.fake.refusePayoutKeys(request.body.refuse_keys)
      return sandbox.fake.payoutControls()
    },
  )

  /** The fake provider's word on a Pix-out whose DePix was sent, as its withdraw webhook; the work it causes done before the answer. */
  const finishPix = async (providerPayoutId: string | null, outcome: 'sent' | 'error' | 'refunded' | undefined, notFound: () => DomainError) => {
    if (providerPayoutId === null) throw notFound()
    const status = await sandbox.fake.finishPayout(providerPayoutId, outcome ?? 'sent')
    if (status !== 200) throw new Error(`the service answered the withdraw webhook with HTTP ${status}`)
    await finishWorkTheSandboxCaused(deps.jobs)
  }

  app.post(
    '/sandbox/refund-payouts/:id/payout',
    {
      schema: {
        operationId: 'sandboxFinishRefundPayout',
        summary: 'Pay (or fail) the Pix of a refund payout',
        description: "As the provider's withdraw webhook: `sent` completes the refund payout and refunds the charge; `error` or `refunded` leave it for support (an alert; support records it returned). The DePix must have been sent first.",
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({ outcome: Type.Optional(Type.Enum(['sent', 'error', 'refunded'])) }, { additionalProperties: false }),
        response: { 200: Type.Object({ id: Type.String(), status: Type.String() }, { examples: [{ id: 'rpo_0f1e2d3c4b5a69788796a5b4', status: 'completed' }] }), ...errors },
      },
      config: { bodyMayBeEmpty: true },
    },
    async (request) => {
      const payout = await store.payouts.findById(request.params.id)
      if (!payout || payout.refund_id === null) throw new DomainError('refund_payout_not_found', { param: 'id' })
      await finishPix(payout.provider_withdrawal_id, request.body.outcome, () => new DomainError('refund_payout_not_found', { param: 'id' }))
      const after = (await store.payouts.findById(payout.id))!
      return { id: after.id, status: after.status }
    },
  )

  app.post(
    '/sandbox/refunds/:id/payout',
    {
      schema: {
        operationId: 'sandboxFinishMerchantRefund',
        summary: "Pay (or fail) the Pix of a merchant's refund",
        description: "As the provider's withdraw webhook: `sent` completes the refund (and refunds the charge once all it paid was given back); `error` or `refunded` leave it for support. The DePix must have been sent first (move the clock, or wait for the worker).",
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({ outcome: Type.Optional(Type.Enum(['sent', 'error', 'refunded'])) }, { additionalProperties: false }),
        response: { 200: Type.Object({ id: Type.String(), status: Type.String() }, { examples: [{ id: 'rf_0f1e2d3c4b5a69788796a5b4', status: 'completed' }] }), ...errors },
      },
      config: { bodyMayBeEmpty: true },
    },
    async (request) => {
      const refund = await store.merchantRefunds.findById(request.params.id)
      if (!refund) throw new DomainError('refund_not_found', { param: 'id' })
      const payout = await store.payouts.latestOf({ merchantRefundId: refund.id })
      await finishPix(payout?.provider_withdrawal_id ?? null, request.body.outcome, () => new DomainError('refund_not_found', { param: 'id' }))
      const after = (await store.merchantRefunds.findById(refund.id))!
      return { id: after.id, status: after.status }
    },
  )

  app.post(
    '/sandbox/withdrawals/:id/payout',
    {
      schema: {
        operationId: 'sandboxFinishPayout',
        summary: 'Pay (or fail) the Pix of a Pix-out',
        description: 'As the provider\'s withdraw webhook: `sent` completes the withdrawal; `error` or `refunded` leave it for support. The DePix must have been sent first.',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({ outcome: Type.Optional(Type.Enum(['sent', 'error', 'refunded'])) }, { additionalProperties: false }),
        response: { 200: Type.Object({ id: Type.String(), status: Type.String() }, { examples: [{ id: 'wd_0f1e2d3c4b5a69788796a5b4', status: 'completed' }] }), ...errors },
      },
      config: { bodyMayBeEmpty: true },
    },
    async (request) => {
      const withdrawal = await store.withdrawals.findById(request.params.id)
      const payout = withdrawal ? await store.payouts.latestOf({ withdrawalId: withdrawal.id }) : undefined
      if (!withdrawal) throw new DomainError('withdrawal_not_found', { param: 'id' })
      await finishPix(payout?.provider_withdrawal_id ?? null, request.body.outcome, () => new DomainError('withdrawal_not_found', { param: 'id' }))
      const after = (await store.withdrawals.findById(withdrawal.id))!
      return { id: after.id, status: after.status }
    },
  )
}
