// Support operations (docs/rules.md#ops-api): Bearer operator token, compared in constant time;
// every action is written to the audit log with who (X-Operator, else "token"), when and why.
// Named operators work in the console (/console, console/routes.ts), audited with their e-mail.
import { Type } from 'typebox'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { activateToken } from '../../app/activate-token.ts'
import { assignIdentity } from '../../app/assign-identity.ts'
import { checkLedger } from '../../app/check-ledger.ts'
import { checkTreasury } from '../../app/check-treasury.ts'
import { latestAuditEntries } from '../../app/console-views.ts'
import { withdrawalRecord, withdrawalRecords } from '../../app/list-withdrawals.ts'
import { reviewWithdrawal } from '../../app/review-withdrawal.ts'
import { withdrawalsInReview } from '../../app/withdrawals-in-review.ts'
import { heldPayments, refundPayoutsInReview, refundsOwed, supportAlerts, unknownDeposits } from '../../app/support-queues.ts'
import { recordBlock } from '../../app/record-block.ts'
import { payRefundByPix, reviewRefundPayout } from '../../app/pay-refund.ts'
import { recordRefundPaid } from '../../app/record-refund-paid.ts'
import { reviewHold } from '../../app/review-hold.ts'
import { acceptedQuotes, quoteOverrides, setQuoteOverrides } from '../../app/set-quotes.ts'
import { reviewDecisions } from '../../domain/charge.ts'
import { MAX_OVERRIDE_SECONDS } from '../../domain/quotes.ts'
import type { Payout, Refund } from '../../store/schema.ts'
import { DomainError } from '../../domain/errors.ts'
import { maskTaxNumber } from '../../domain/tax-number.ts'
import { findOperator, mayTake } from '../../domain/operators.ts'
import type { RouteDeps } from '../../web/deps.ts'
import { headerMatcher } from '../header-secret.ts'
import type { Metrics } from '../metrics.ts'
import { documentAudience } from '../../web/audiences.ts'
import { errorResponses } from '../schemas.ts'
import { QuoteValue } from '../../contract/api.ts'
import type { ErrorCode } from '../../domain/errors.ts'

const Note = Type.String({ minLength: 1, maxLength: 1000 })

/** An operation's documentation: what it is, and the codes it answers besides the operator checks. */
function operation<S extends object>(operationId: string, summary: string, example: unknown, codes: ErrorCode[], schema: S & { response?: object } = {} as S) {
  const errors = errorResponses(['ops_token_missing', 'ops_token_invalid', 'rate_limited', 'invalid_request', 'internal_error', 'service_unavailable', ...codes])
  return { ...schema, operationId, summary, response: { 200: Type.Unknown({ description: 'Done.', examples: [example] }), ...errors, ...schema.response } }
}
const mask = (value: string | null) => (value === null ? null : maskTaxNumber(value))

export const opsRoutes: FastifyPluginAsyncTypebox<Pick<RouteDeps, 'store' | 'clock' | 'quotes' | 'provider' | 'config' | 'opsTokens' | 'tokenCache' | 'authFailures' | 'treasury' | 'mailSeal'> & { metrics: Metrics }> = async (app, deps) => {
  documentAudience(app, 'operator')
  // What moving a withdrawal or a payout needs: its e-mails are sealed and link to the Wallet.
  const moneyDeps = { store: deps.store, clock: deps.clock, mailSeal: deps.mailSeal, baseUrl: deps.config.baseUrl }
  const isOperator = headerMatcher(deps.opsTokens.map((token) => `Bearer ${token}`))
  const actorOf = (request: FastifyRequest) => {
    const header = request.headers['x-operator']
    return typeof header === 'string' && /^[\x20-\x7e]{1,100}$/.test(header) ? header : 'token'
  }

  app.addHook('onRequest', async (request) =>
    deps.authFailures.guard(request, () => {
      const header = request.headers.authorization
      if (typeof header !== 'string' || header === '') throw new DomainError('ops_token_missing')
      if (!isOperator(header)) throw new DomainError('ops_token_invalid')
    }),
  )

  app.get('/ops/holds', { schema: operation('listHolds', 'Payments held for review (security_hold), oldest first', { holds: [{ payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', reason: 'payer_mismatch', value_in_cents: 1000, paid_in_cents: 1000, clawback: null, decisions: ['release', 'refund'] }] }, []) }, async () => {
    return { holds: (await heldPayments(deps)).map(({ charge, clawbacks, decisions, proposal }) => ({
      payment_id: charge.id,
      reason: charge.hold_reason,
      held_since: charge.updated_at.toISOString(),
      value_in_cents: charge.value_cents,
      paid_in_cents: charge.paid_cents,
      bank_tx_id: charge.bank_tx_id,
      blockchain_tx_id: charge.blockchain_tx_id,
      currency: charge.currency,
      informed_euid: charge.informed_euid,
      informed_tax_number: mask(charge.informed_tax_number),
      payer_name: charge.payer_name,
      payer_tax_number: mask(charge.payer_tax_number),
      payer_euid: charge.payer_euid,
      // The provider took it back (MED, refunded) or announced it will: it can no longer be released.
      clawback: charge.clawback,
      taken_back_cents: charge.taken_back_cents,
      clawbacks: clawbacks.map((report) => ({ kind: report.kind, principal_cents: report.principal_cents, reported_at: report.reported_at.toISOString() })),
      decisions,
      needs_paid_amount: charge.paid_cents === null,
      // An amount typed beyond the tolerance, waiting for an admin other than its author.
      paid_amount_awaiting_confirmation: ((row) => (row === undefined ? null : { decision: row.decision, paid_cents: row.paid_cents, proposed_by: row.proposed_by, proposed_at: row.proposed_at.toISOString() }))(proposal),
    })) }
  })

  app.post(
    '/ops/payments/:id/review',
    {
      schema: operation('reviewHold', 'Release, refund or close a held payment', { payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', status: 'after7d' }, [
        'payment_not_found', 'payment_not_held', 'quote_unavailable', 'paid_amount_required', 'second_operator_required', 'operator_forbidden', 'payment_taken_back', 'payment_not_taken_back', 'invalid_json', 'unsupported_media_type',
      ], {
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: Type.Object(
          {
            decision: Type.Enum(reviewDecisions, { description: 'release: credit the account; refund: owe it back to the payer; close: the provider already took it back.' }),
            note: Note,
            paid_cents: Type.Optional(Type.Integer({
              minimum: 1, maximum: 10_000_000,
              description: 'What arrived, in centavos: only for a payment whose amount the provider never stated. More than 5 % from the value, it waits (202) until an admin named in OPERATORS, other than its author, sends the same decision and amount with X-Operator.',
            })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ payment_id: Type.String(), status: Type.String() }, { examples: [{ payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', status: 'after7d' }] }),
          202: Type.Object(
            { payment_id: Type.String(), status: Type.String(), awaiting: Type.Literal('second_operator'), decision: Type.String(), paid_cents: Type.Integer(), proposed_by: Type.String() },
            { description: 'The amount typed is more than 5 % from the value: kept, nothing moved, until a second operator confirms it.', examples: [{ payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', status: 'security_hold', awaiting: 'second_operator', decision: 'release', paid_cents: 499900, proposed_by: 'ana@example.com' }] },
          ),
        },
      }),
    },
    async (request, reply) => {
      const actor = actorOf(request)
      // Over the token, an admin is one named in OPERATORS by X-Operator: only an admin confirms a typed amount beyond the tolerance.
      const named = findOperator(deps.config.operators, actor)
      const { charge, awaiting } = await reviewHold({ ...deps, log: request.log }, {
        chargeId: request.params.id,
        decision: request.body.decision,
        note: request.body.note,
        actor: named?.email ?? actor,
        actorIsAdmin: named !== null && mayTake(named.role, 'hold.confirm_paid_amount'),
        paidCents: request.body.paid_cents,
      })
      if (awaiting !== null) {
        return reply.code(202).send({ payment_id: charge.id, status: charge.status, awaiting: 'second_operator' as const, decision: awaiting.decision, paid_cents: awaiting.paid_cents, proposed_by: awaiting.proposed_by })
      }
      return { payment_id: charge.id, status: charge.status }
    },
  )

  const payoutView = (payout: Payout) => ({
    refund_payout_id: payout.id,
    refund_id: payout.refund_id,
    // A merchant's refund (docs/rules.md#merchant-refunds) waits here too, above the review threshold or the limits.
    merchant_refund_id: payout.merchant_refund_id,
    status: payout.status,
    review_reason: payout.review_reason,
    failure_code: payout.failure_code,
    amount_cents: payout.amount,
    pix_key: mask(payout.pix_key),
    sent_cents: payout.provider_deposit_cents,
    provider_withdrawal_id: payout.provider_withdrawal_id,
    provider_status: payout.provider_status,
    receipt_url: payout.provider_receipt_url,
    txid: payout.txid,
    ordered_by: payout.created_by,
    created_at: payout.created_at.toISOString(),
    updated_at: payout.updated_at.toISOString(),
  })
  const payoutExample = { refund_payout_id: 'rpo_0f1e2d3c4b5a69788796a5b4', refund_id: 'ref_0f1e2d3c4b5a69788796a5b4', status: 'sending', amount_cents: 1000, pix_key: '***.444.777-**' }
  const refundView = (refund: Refund, payouts: Payout[] = []) => ({
    refund_id: refund.id,
    payment_id: refund.charge_id,
    status: refund.status,
    amount_cents: refund.amount_cents,
    owed_cents: refund.owed_cents,
    payer_name: refund.payer_name,
    payer_tax_number: mask(refund.payer_tax_number),
    created_at: refund.created_at.toISOString(),
    settled_at: refund.settled_at?.toISOString() ?? null,
    reference: refund.reference,
    payout_fee_cents: refund.payout_fee_cents,
    payouts: payouts.filter((payout) => payout.refund_id === refund.id).map(payoutView),
  })
  const refundExample = { refund_id: 'ref_0f1e2d3c4b5a69788796a5b4', payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', status: 'owed', amount_cents: 1000, owed_cents: 1000, payer_name: 'Maria Silva', payer_tax_number: '***.444.777-**' }

  // Refunds owed to payers (docs/rules.md#refunds-owed), oldest first: a liability until paid or taken back by the provider.
  app.get('/ops/refunds', { schema: operation('listRefunds', 'Refunds owed to payers, oldest first', { refunds: [refundExample] }, []) }, async () => ({
    refunds: await refundsOwed(deps).then(({ refunds, payouts }) => refunds.map((refund) => refundView(refund, payouts))),
  }))

  // Paying a refund by Pix-out from the treasury, to the payer's own CPF/CNPJ key; the worker sends it.
  app.post(
    '/ops/refunds/:refund_id/payout',
    {
      schema: operation('payRefundByPix', "Pay a refund owed by Pix-out from the treasury to the payer's own CPF/CNPJ key", payoutExample, [
        'refund_not_found', 'refund_not_owed', 'refund_payer_unknown', 'refund_payout_in_progress', 'amount_below_minimum', 'amount_above_maximum', 'invalid_json', 'unsupported_media_type',
      ], {
        params: Type.Object({ refund_id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({ note: Note }, { additionalProperties: false }),
      }),
    },
    async (request) => payoutView(await payRefundByPix(moneyDeps, { refundId: request.params.refund_id, note: request.body.note, actor: actorOf(request) })),
  )

  app.get('/ops/refund-payouts', { schema: operation('listRefundPayoutsInReview', 'Refund payouts waiting for review, oldest first', { refund_payouts: [{ ...payoutExample, status: 'in_review', review_reason: 'treasury_insufficient' }] }, []) }, async () => ({
    refund_payouts: (await refundPayoutsInReview(deps)).map(payoutView),
  }))

  app.post(
    '/ops/refund-payouts/:refund_payout_id/review',
    {
      schema: operation('reviewRefundPayout', 'Send a refund payout in review again, order a new provider payout, abandon it while nothing has left, or record it returned', { ...payoutExample, status: 'sending' }, [
        'refund_payout_not_found', 'refund_payout_not_in_review', 'refund_payout_signed', 'refund_not_owed', 'payout_mismatch_unpayable', 'invalid_json', 'unsupported_media_type',
      ], {
        params: Type.Object({ refund_payout_id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({
          decision: Type.Enum(['retry', 'abandon', 'new_payout', 'returned'], { description: 'retry: send it again (refused when the provider asked another amount, or the refund is no longer owed); new_payout: ask the provider for a new payout; abandon: end it while nothing has left; returned: the DePix came back after the provider failed the Pix, so the refund is owed again.' }),
          note: Note,
        }, { additionalProperties: false }),
      }),
    },
    async (request) => payoutView(await reviewRefundPayout({ ...moneyDeps, treasury: deps.treasury }, { refundPayoutId: request.params.refund_payout_id, decision: request.body.decision, note: request.body.note, actor: actorOf(request) })),
  )

  app.post(
    '/ops/refunds/:refund_id/paid',
    {
      schema: operation('recordRefundPaid', 'Record a refund paid to the payer outside the service', { ...refundExample, status: 'paid', owed_cents: 0, reference: 'E1234567820261123120000abcdef' }, [
        'refund_not_found', 'refund_not_owed', 'invalid_json', 'unsupported_media_type',
      ], {
        params: Type.Object({ refund_id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({ reference: Type.String({ minLength: 1, maxLength: 200, description: 'The payment\'s reference (the Pix end-to-end id or bank receipt).' }), note: Note }, { additionalProperties: false }),
      }),
    },
    async (request) => refundView(await recordRefundPaid(deps, { refundId: request.params.refund_id, reference: request.body.reference, note: request.body.note, actor: actorOf(request) })),
  )

  // What the provider reported that support must look at: money we credited that it will take back
  // (will_refund after credit), or a "refunded" after part was taken back, which is not ours to guess.
  app.get('/ops/alerts', { schema: operation('listAlerts', 'What support must look at now', { alerts: [{ kind: 'will_refund_after_credit', payment_id: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', status: 'depix_sent', since: '2026-11-23T12:00:00.000Z' }] }, []) }, async () => {
    const { clawbacks, withdrawalPayouts, refundPayouts, merchantRefundPayouts, refundedThenDisputed } = await supportAlerts(deps)
    return { alerts: [...clawbacks.map((charge) => ({
      kind: charge.clawback === 'will_refund' ? 'will_refund_after_credit' : 'refunded_after_partial_clawback',
      payment_id: charge.id,
      taken_back_cents: charge.taken_back_cents,
      status: charge.status,
      currency: charge.currency,
      credited_units: charge.credited_units,
      since: charge.updated_at.toISOString(),
    })),
    // A MED on a payment the merchant had refunded: the payer may have been paid twice (docs/rules.md#merchant-refund-statuses).
    ...refundedThenDisputed.map((charge) => ({
      kind: 'refunded_then_disputed',
      payment_id: charge.id,
      refunded_cents: charge.refunded_cents,
      taken_back_cents: charge.taken_back_cents,
      status: charge.status,
      since: charge.updated_at.toISOString(),
    })),
    // A Pix-out the provider did not pay after our DePix left: it may come back (review: returned).
    ...withdrawalPayouts.map((payout) => ({
      kind: 'payout_failed_after_sending',
      withdrawal_id: payout.withdrawal_id,
      payout_id: payout.id,
      provider_status: payout.provider_status,
      status: payout.status,
      currency: payout.currency,
      amount: payout.amount,
      since: payout.updated_at.toISOString(),
    })),
    ...refundPayouts.map((payout) => ({
      kind: 'refund_payout_failed_after_sending',
      refund_payout_id: payout.id,
      refund_id: payout.refund_id,
      provider_status: payout.provider_status,
      status: payout.status,
      amount_cents: payout.amount,
      since: payout.updated_at.toISOString(),
    })),
    // A merchant's refund left the account's books when its DePix left; the Pix then failed: support looks.
    ...merchantRefundPayouts.map((payout) => ({
      kind: 'merchant_refund_payout_failed_after_sending',
      refund_payout_id: payout.id,
      merchant_refund_id: payout.merchant_refund_id,
      provider_status: payout.provider_status,
      status: payout.status,
      amount_cents: payout.amount,
      since: payout.updated_at.toISOString(),
    }))] }
  })

  // Withdrawals waiting for support (docs/rules.md#withdrawal-lifecycle): why, and what was asked;
  // approve, reject, or record that a sent payout came back to the treasury.
  app.get('/ops/withdrawals', { schema: operation('listWithdrawalsInReview', 'Withdrawals waiting for review, oldest first', { withdrawals: [{ id: 'wd_0f1e2d3c4b5a69788796a5b4', review_reason: 'over_threshold', currency: 'DEPIX', amount: 500000 }] }, []) }, async () => {
    const rows = await withdrawalsInReview(deps, { after: null, limit: 200 })
    const records = await withdrawalRecords(deps.store, rows)
    return { withdrawals: rows.map((withdrawal, i) => ({
      ...records[i]!,
      email: withdrawal.email,
      brl_cents: withdrawal.brl_cents,
      via: withdrawal.via,
      // What approving would meet, beside the item: the account's balances and what blocks it.
      balances: withdrawal.balances,
      blockers: withdrawal.blockers,
    })) }
  })

  app.post(
    '/ops/withdrawals/:withdrawal_id/review',
    {
      schema: operation('reviewWithdrawal', 'Approve or reject a withdrawal in review; or record that a sent payout came back', { id: 'wd_0f1e2d3c4b5a69788796a5b4', status: 'confirmed' }, [
        'withdrawal_not_found', 'withdrawal_not_in_review', 'withdrawal_not_cancelable', 'withdrawal_not_allowed', 'payout_mismatch_unpayable', 'invalid_json', 'unsupported_media_type',
      ], {
        params: Type.Object({ withdrawal_id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({
          decision: Type.Enum(['approve', 'reject', 'returned', 'new_payout'], { description: 'approve: send it (refused while the account may not withdraw, or when the provider asked another amount); reject: the amount goes back; returned: a sent payout came back; new_payout: ask the provider for a new payout after one that asked another amount.' }),
          note: Note,
        }, { additionalProperties: false }),
      }),
    },
    async (request) => {
      const moved = await reviewWithdrawal({ ...moneyDeps, treasury: deps.treasury }, {
        withdrawalId: request.params.withdrawal_id, decision: request.body.decision, actor: actorOf(request), note: request.body.note,
      })
      return withdrawalRecord(deps.store, moved)
    },
  )

  app.get('/ops/treasury', { schema: operation('checkTreasury', 'What the accounts are owed beside what the treasury holds, per currency', { treasury: [{ currency: 'DEPIX', owed: 123456, treasury: 500000, shortfall: 0, receivable: 900 }] }, ['service_unavailable']) }, async (request) => ({
    treasury: await checkTreasury({ ...deps, log: request.log }),
  }))

  app.post(
    '/ops/tokens/:token_id/activate',
    {
      schema: operation('activateToken', 'Activate a token waiting for approval', { token_id: 'tok_0f1e2d3c4b5a6978', status: 'current', merchant_id: 'mer_0f1e2d3c4b5a6978' }, ['not_found', 'token_not_pending', 'invalid_json', 'unsupported_media_type'], {
        params: Type.Object({ token_id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({ note: Type.Optional(Note) }, { additionalProperties: false }),
      }),
      config: { bodyMayBeEmpty: true },
    },
    async (request) => activateToken(deps, { tokenId: request.params.token_id, actor: actorOf(request), note: request.body.note ?? '' }),
  )

  app.post(
    '/ops/accounts/:email/identity',
    {
      schema: operation('assignIdentity', "Give an unidentified account its owner's EUID", { email: 'store@example.com', euid: 'EU123456789012345', kyc: 'verified' }, ['account_not_found', 'euid_invalid', 'identity_taken', 'invalid_json', 'unsupported_media_type'], {
        params: Type.Object({ email: Type.String({ maxLength: 254 }) }),
        body: Type.Object({ euid: Type.String({ maxLength: 32 }), note: Type.Optional(Note) }, { additionalProperties: false }),
      }),
    },
    async (request) =>
      assignIdentity(deps, { email: request.params.email.toLowerCase(), euid: request.body.euid, actor: actorOf(request), note: request.body.note ?? '' }),
  )

  app.post(
    '/ops/blocks',
    {
      schema: operation('recordBlock', 'Block an e-mail, tax number or EUID (a MED reported elsewhere)', { blocked: ['tax_number'] }, ['email_invalid', 'tax_number_invalid', 'euid_invalid', 'invalid_json', 'unsupported_media_type'], {
        body: Type.Object(
          {
            email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
            tax_number: Type.Optional(Type.String({ maxLength: 32 })),
            euid: Type.Optional(Type.String({ maxLength: 32 })),
            reason: Note,
          },
          { additionalProperties: false },
        ),
      }),
      config: { fieldErrorCodes: { email: 'email_invalid', tax_number: 'tax_number_invalid', euid: 'euid_invalid' } },
    },
    async (request) =>
      recordBlock(deps, {
        ...(request.body.email === undefined ? {} : { email: request.body.email }),
        ...(request.body.tax_number === undefined ? {} : { taxNumber: request.body.tax_number }),
        ...(request.body.euid === undefined ? {} : { euid: request.body.euid }),
        reason: request.body.reason,
        actor: actorOf(request),
      }),
  )

  const quotesExample = { BTC: '350000.00', USDt: null, expires_at: { BTC: '2026-11-23T13:00:00.000Z', USDt: null } }
  app.put(
    '/ops/quotes',
    {
      schema: operation('setQuoteOverrides', 'Set or clear BRL price overrides for BTC and USDt, each until it expires', quotesExample, ['quote_out_of_band', 'invalid_json', 'unsupported_media_type'], {
        body: Type.Object(
          {
            BTC: Type.Optional(Type.Union([QuoteValue, Type.Null()])),
            USDt: Type.Optional(Type.Union([QuoteValue, Type.Null()])),
            expires_in_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: MAX_OVERRIDE_SECONDS, description: 'How long the override lasts: 3600 when omitted, a day at most.' })),
            force: Type.Optional(Type.Boolean({ description: 'Accept a price more than the band away from the last accepted one.' })),
          },
          { additionalProperties: false },
        ),
      }),
    },
    async (request) => setQuoteOverrides({ ...deps, bandPercent: deps.config.quoteBandPercent }, request.body, { actor: actorOf(request) }),
  )

  // The prices in use: overrides with their expiry, and the last accepted price per currency with its source and age.
  app.get('/ops/quotes', { schema: operation('listQuotes', 'Overrides in force and the last accepted prices', { overrides: quotesExample, accepted: [{ currency: 'BTC', price: '350000.00', source: 'ticker', accepted_at: '2026-11-23T12:00:00.000Z' }] }, []) }, async () => ({
    overrides: await quoteOverrides(deps),
    accepted: (await acceptedQuotes(deps)).map(({ acceptedAt, ...quote }) => ({ ...quote, accepted_at: acceptedAt.toISOString() })),
  }))

  // Provider deposits that match no charge: a webhook for an unknown qrId, a paid deposit the sweep
  // found, a deposit whose creation reply was lost.
  app.get('/ops/unknown-deposits', { schema: operation('listUnknownDeposits', 'Provider deposits that match no charge', { deposits: [{ qr_id: '0197f3a2c1d4', status: 'depix_sent', value_in_cents: 1000, seen_by: 'sweep' }] }, []) }, async () => ({
    deposits: (await unknownDeposits(deps)).map((deposit) => ({
      qr_id: deposit.qr_id,
      status: deposit.status,
      value_in_cents: deposit.value_cents,
      payer_name: deposit.payer_name,
      payer_tax_number: mask(deposit.payer_tax_number),
      payer_euid: deposit.payer_euid,
      bank_tx_id: deposit.bank_tx_id,
      seen_by: deposit.seen_by,
      first_seen_at: deposit.first_seen_at.toISOString(),
      last_seen_at: deposit.last_seen_at.toISOString(),
    })),
  }))

  // The books against what happened (app/check-ledger.ts): `ok` is healthy.
  app.get('/ops/ledger-check', { schema: operation('checkLedger', 'The books against the charges and their running balances', { ok: true, disagreements: [], unbalanced: [], foreign_currency: [], charges: [], books: [{ book: 'fees', currency: 'DEPIX', total: 100 }] }, []) }, async () => checkLedger(deps))

  app.get('/ops/audit', { schema: operation('listAudit', 'The audit log of operator actions', { entries: [{ id: 1, actor: 'ana', action: 'hold.release', subject: '3f2a9c0e5b7d4e1f8a6b2c4d9e0f1a2b', details: {}, at: '2026-11-23T12:00:00.000Z' }] }, []) }, async () => ({ entries: await latestAuditEntries(deps) }))

  // Behind the operator token too: business volumes are not for the public.
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  )
}
