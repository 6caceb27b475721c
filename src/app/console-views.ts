// What the support console shows (docs/rules.md#console) besides its queues (support-queues.ts):
// a charge with its timeline and the decisions its state allows; a withdrawal in review and a
// refund owed with what was done to them; an account found by e-mail, tax number or EUID. Reads
// only: every decision goes through app/operator-actions.ts.
import type { Clock } from '../clock.ts'
import { reviewDecisionsFor, type ReviewDecision } from '../domain/charge.ts'
import { DomainError } from '../domain/errors.ts'
import { isEuid, parseTaxNumber } from '../domain/tax-number.ts'
import type { PaidAmountProposalRow } from '../store/paid-amount-proposals.ts'
import type { Account, Charge, ChargeClawback, MerchantRefund, Payout, Refund, Withdrawal } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { chargeView } from './apply-charge-decision.ts'
import { pageAfter, type CursorKey } from './page-cursor.ts'

export type TimelineEntry =
  | { at: Date; kind: 'created'; valueCents: number; currency: string }
  | { at: Date; kind: 'report'; source: string | null; body: unknown }
  | { at: Date; kind: 'status'; from: string | null; to: string | null; cause: string | null; actor: string | null }
  | { at: Date; kind: 'clawback'; clawback: ChargeClawback }
  | { at: Date; kind: 'posting'; postingKind: string; key: string; entries: Array<{ book: string; currency: string; amount: number; accountId: number | null }> }
  | { at: Date; kind: 'webhook'; eventId: string; event: string; state: string; statusCode: number | null; error: string | null; attempted: boolean }
  | { at: Date; kind: 'operator'; actor: string; action: string; details: unknown }

export type ChargeDossier = {
  charge: Charge
  account: Account | null
  merchant: Account | null
  refund: Refund | null
  /** The merchant's refunds of it (docs/rules.md#merchant-refunds), oldest first. */
  merchantRefunds: MerchantRefund[]
  /** A MED came after the merchant refunded it: the payer may have been paid twice. */
  refundedThenDisputed: boolean
  clawbacks: ChargeClawback[]
  timeline: TimelineEntry[]
  /** The decisions its state allows (a held charge only). */
  decisions: ReviewDecision[]
  /** Release and refund need what arrived, which the provider never stated. */
  needsPaidAmount: boolean
  /** An amount typed beyond the tolerance, waiting for a second operator. */
  proposal: PaidAmountProposalRow | null
}

const auditEntries = (rows: Awaited<ReturnType<Store['console']['auditOf']>>): TimelineEntry[] =>
  rows.map((row) => ({ at: row.at, kind: 'operator', actor: row.actor, action: row.action, details: row.details }))

/** A charge by our id or the provider's qrId, with everything that happened to it, oldest first. */
export async function chargeDossier(deps: { store: Store }, idOrQrId: string): Promise<ChargeDossier> {
  const store = deps.store
  const charge = idOrQrId.length <= 128 ? await store.console.findCharge(idOrQrId) : undefined
  if (!charge) throw new DomainError('payment_not_found', { param: 'id' })
  const [account, merchant, refund, merchantRefunds, clawbacks, events, postings, attempts] = await Promise.all([
    store.accounts.findById(charge.account_id),
    store.accounts.findById(charge.merchant_account_id),
    store.refunds.findByCharge(charge.id),
    store.merchantRefunds.listForCharges([charge.id]),
    store.clawbacks.forCharges([charge.id]),
    store.console.chargeEvents(charge.id),
    store.console.postingsOf({ chargeId: charge.id }),
    store.console.webhookAttemptsOf(charge.id),
  ])
  const audit = await store.console.auditOf([`payment:${charge.id}`, ...(refund ? [`refund:${refund.id}`] : []), ...merchantRefunds.map((row) => `merchant_refund:${row.id}`)])
  const timeline: TimelineEntry[] = [{ at: charge.created_at, kind: 'created', valueCents: charge.value_cents, currency: charge.currency }]
  for (const event of events) {
    if (event.kind === 'report') timeline.push({ at: event.at, kind: 'report', source: event.source, body: event.body })
    else {
      const actor = typeof event.body === 'object' && event.body !== null && typeof (event.body as { actor?: unknown }).actor === 'string' ? (event.body as { actor: string }).actor : null
      timeline.push({ at: event.at, kind: 'status', from: event.from_status, to: event.to_status, cause: event.source, actor })
    }
  }
  for (const clawback of clawbacks) timeline.push({ at: clawback.reported_at, kind: 'clawback', clawback })
  const byPosting = new Map<number, Extract<TimelineEntry, { kind: 'posting' }>>()
  for (const row of postings) {
    let entry = byPosting.get(row.id)
    if (!entry) {
      entry = { at: row.created_at, kind: 'posting', postingKind: row.kind, key: row.key, entries: [] }
      byPosting.set(row.id, entry)
      timeline.push(entry)
    }
    entry.entries.push({ book: row.book, currency: row.currency, amount: row.amount, accountId: row.account_id })
  }
  for (const row of attempts) {
    timeline.push({ at: row.at ?? row.created_at, kind: 'webhook', eventId: row.event_id, event: row.event, state: row.state, statusCode: row.status_code, error: row.error, attempted: row.at !== null })
  }
  timeline.push(...auditEntries(audit))
  // Stable: what was written first stays first among entries of the same instant.
  timeline.sort((a, b) => a.at.getTime() - b.at.getTime())
  const held = charge.status === 'security_hold'
  return {
    charge, account: account ?? null, merchant: merchant ?? null, refund: refund ?? null, merchantRefunds, clawbacks, timeline,
    refundedThenDisputed: merchantRefunds.some((row) => row.status !== 'failed') && clawbacks.some((report) => report.kind === 'med' && merchantRefunds.some((row) => row.status !== 'failed' && row.created_at.getTime() <= report.reported_at.getTime())),
    decisions: held ? reviewDecisionsFor(chargeView(charge, refund)) : [],
    needsPaidAmount: held && charge.paid_cents === null,
    proposal: held ? (await store.paidAmountProposals.find(charge.id)) ?? null : null,
  }
}

/** A withdrawal, its account, its payouts (newest first) and its timeline. */
export type WithdrawalDossier = { withdrawal: Withdrawal; account: Account | null; payouts: Payout[]; timeline: TimelineEntry[] }

export async function withdrawalDossier(deps: { store: Store }, withdrawalId: string): Promise<WithdrawalDossier> {
  const withdrawal = withdrawalId.length <= 64 ? await deps.store.withdrawals.findById(withdrawalId) : undefined
  if (!withdrawal) throw new DomainError('withdrawal_not_found', { param: 'id' })
  const [account, postings, audit, payouts] = await Promise.all([
    deps.store.accounts.findById(withdrawal.account_id),
    deps.store.console.postingsOf({ withdrawalId: withdrawal.id }),
    deps.store.console.auditOf([withdrawal.id, `withdrawal:${withdrawal.id}`]),
    deps.store.payouts.listForWithdrawals([withdrawal.id]),
  ])
  const timeline: TimelineEntry[] = []
  const seen = new Set<number>()
  for (const row of postings) {
    if (seen.has(row.id)) {
      ;(timeline.at(-1) as Extract<TimelineEntry, { kind: 'posting' }>).entries.push({ book: row.book, currency: row.currency, amount: row.amount, accountId: row.account_id })
      continue
    }
    seen.add(row.id)
    timeline.push({ at: row.created_at, kind: 'posting', postingKind: row.kind, key: row.key, entries: [{ book: row.book, currency: row.currency, amount: row.amount, accountId: row.account_id }] })
  }
  timeline.push(...auditEntries(audit))
  timeline.sort((a, b) => a.at.getTime() - b.at.getTime())
  return { withdrawal, account: account ?? null, payouts, timeline }
}

/** A refund owed, its charge, every Pix-out tried for it (newest first) and what operators did. */
export type RefundDossier = { refund: Refund; charge: Charge | null; payouts: Payout[]; timeline: TimelineEntry[] }

export async function refundDossier(deps: { store: Store }, refundId: string): Promise<RefundDossier> {
  const refund = refundId.length <= 64 ? await deps.store.refunds.findById(refundId) : undefined
  if (!refund) throw new DomainError('refund_not_found', { param: 'id' })
  const [charge, audit, payouts] = await Promise.all([
    deps.store.charges.findById(refund.charge_id), deps.store.console.auditOf([`refund:${refund.id}`, `payment:${refund.charge_id}`]), deps.store.payouts.listForRefunds([refund.id]),
  ])
  return { refund, charge: charge ?? null, payouts, timeline: auditEntries(audit) }
}

export type AccountDossier = {
  account: Account
  available: Awaited<ReturnType<Store['ledger']['balances']>>
  held: Awaited<ReturnType<Store['ledger']['balances']>>
  tokens: Awaited<ReturnType<Store['console']['accountTokens']>>
  blocks: Awaited<ReturnType<Store['console']['blocksOn']>>
  charges: Charge[]
  withdrawals: Withdrawal[]
  /** The identity purchase: the account's own charge without a merchantId, paid with the owner's tax number. */
  purchase: Charge | null
}

/** What an operator typed: an e-mail (or its beginning), a CPF/CNPJ, or an EUID. */
export function parseLookup(text: string): { email: string } | { taxNumber: string } | { euid: string } | null {
  const probe = text.trim()
  if (probe === '' || probe.length > 254) return null
  if (isEuid(probe.toUpperCase())) return { euid: probe.toUpperCase() }
  if (probe.includes('@')) return { email: probe.toLowerCase() }
  const taxNumber = parseTaxNumber(probe)
  if (taxNumber) return { taxNumber: taxNumber.value }
  return /^[^\s]{3,}$/.test(probe) ? { email: probe.toLowerCase() } : null
}

/** The charge with our id or the provider's qrId, for the look-up's jump straight to it. */
export function findCharge(deps: { store: Store }, idOrQrId: string): Promise<Charge | undefined> {
  return deps.store.console.findCharge(idOrQrId)
}

export const AUDIT_PAGE_SIZE = 50

/** The audit log's key: its entry's id, which grows with each entry. */
const auditKey: CursorKey<{ id: number }, number> = {
  write: (row) => `A${row.id}`,
  read: (text) => (/^A\d{1,15}$/.test(text) ? Number(text.slice(1)) : null),
}

/**
 * A page of the audit log, newest first, after the cursor (the page before's `nextCursor`), by the
 * keyset of every list (app/page-cursor.ts); with the actors and actions to filter by.
 */
export async function auditLogPage(deps: { store: Store }, filter: { actor: string | null; action: string | null }, cursor: string | undefined, limit = AUDIT_PAGE_SIZE) {
  const [page, facets] = await Promise.all([
    pageAfter({ cursor, limit }, auditKey, (beforeId, upTo) => deps.store.console.auditLog({ ...filter, beforeId, limit: upTo })),
    deps.store.console.auditFacets(),
  ])
  return { rows: page.rows, nextCursor: page.nextCursor, facets }
}

export async function findAccounts(deps: { store: Store }, text: string): Promise<Account[]> {
  const probe = parseLookup(text)
  return probe === null ? [] : deps.store.console.findAccounts(probe)
}

/** The account a console page or form names by id: account_not_found unless it exists. */
export async function findAccount(deps: { store: Store }, accountId: number): Promise<Account> {
  const account = Number.isSafeInteger(accountId) ? await deps.store.accounts.findById(accountId) : undefined
  if (!account) throw new DomainError('account_not_found', { param: 'id' })
  return account
}

export async function accountDossier(deps: { store: Store }, accountId: number): Promise<AccountDossier> {
  const account = await findAccount(deps, accountId)
  const identities = [
    { kind: 'email' as const, value: account.email },
    ...(account.owner_tax_number ? [{ kind: 'tax_number' as const, value: account.owner_tax_number }] : []),
    ...(account.euid ? [{ kind: 'euid' as const, value: account.euid }] : []),
  ]
  const [available, held, tokens, blocks, charges, withdrawals] = await Promise.all([
    deps.store.ledger.balances(account.id, 'available'),
    deps.store.ledger.balances(account.id, 'held'),
    deps.store.console.accountTokens(account.id),
    deps.store.console.blocksOn(identities),
    deps.store.console.accountCharges(account.id, 50),
    deps.store.console.accountWithdrawals(account.id, 50),
  ])
  const purchase = charges.find((charge) => charge.merchant_id === null && charge.account_id === account.id && charge.confirmed_at !== null) ?? charges.find((charge) => charge.merchant_id === null && charge.account_id === account.id) ?? null
  return { account, available, held, tokens, blocks, charges, withdrawals, purchase }
}

/** The latest entries of the audit log, newest first, as /ops/audit lists them. */
export function latestAuditEntries(deps: { store: Store }) {
  return deps.store.audit.list()
}
