// The support console's HTML (docs/rules.md#console): server-rendered through the one template
// (every value escaped), no script at all, forms that carry the CSRF token, every text from the
// catalogue (i18n/*.ts, `console`). Provider bodies are shown as they came, escaped, in <pre>.
import type { ReviewDecision } from '../domain/charge.ts'
import type { Currency } from '../domain/money.ts'
import { formatAmount, formatBrl } from '../domain/money.ts'
import { mayTake, type Operator } from '../domain/operators.ts'
import { isLive } from '../domain/payout.ts'
import { maskTaxNumber } from '../domain/tax-number.ts'
import { html, href, raw, type Html } from '../html/template.ts'
import { csrfField, shell, time } from '../html/shell.ts'
import { catalogues, consoleText, formatDateTime, statusLabel, type ConsoleKey, type Lang } from '../i18n/catalogue.ts'
import type { AccountDossier, ChargeDossier, RefundDossier, TimelineEntry, WithdrawalDossier } from '../app/console-views.ts'
import type { QueuePage } from '../app/support-queues.ts'
import type { LedgerCheck } from '../app/check-ledger.ts'
import type { TreasuryCheck } from '../app/check-treasury.ts'
import type { OverrideView } from '../app/set-quotes.ts'
import { consoleQueues, type ConsoleQueue } from '../domain/support-queues.ts'
import type { Account } from '../store/schema.ts'
import type { FeesRow, OutflowRow } from '../app/reports.ts'
import type { OwedRow, ProviderMismatch } from '../store/reports.ts'

export type Page = { lang: Lang; csrf: string; now: Date; operator: Operator | null }

const t = (page: { lang: Lang }) => (key: ConsoleKey, values: Record<string, string> = {}) => consoleText(page.lang, key, values)

/** How long ago, the way support reads a queue: "3 d 4 h", "25 min". */
export function age(now: Date, since: Date): string {
  const minutes = Math.max(0, Math.floor((now.getTime() - since.getTime()) / 60_000))
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return `${hours} h ${minutes % 60} min`
  return `${Math.floor(hours / 24)} d ${hours % 24} h`
}

const mask = (value: string | null) => (value === null ? '—' : maskTaxNumber(value))
const brl = (cents: number | null) => (cents === null ? '—' : formatBrl(cents))

const noteField = (page: Page, id: string) => {
  const say = t(page)
  return html`<label for="${id}">${say('note')}</label><textarea id="${id}" name="note" required maxlength="1000" rows="2"></textarea>`
}

export function layout(page: Page & { title: ConsoleKey; heading?: string }, body: Html): string {
  const say = t(page)
  const other = page.lang === 'en' ? 'pt-BR' : 'en'
  const operator = page.operator
  return shell({
    lang: page.lang,
    title: `${page.heading ?? say(page.title)} · ${say('title')}`,
    brand: html`<a class="brand" href="/console">Pix · ${say('title')}</a>`,
    navLabel: say('nav'),
    nav: html`${operator && html`<a href="/console">${say('home')}</a><a href="/console/lookup">${say('lookup')}</a><a href="/console/money">${say('money')}</a><a href="/console/reports">${say('reports')}</a><a href="/console/audit">${say('audit')}</a><a href="/console/factors">${say('factorsNav')}</a>`}
    <a href="/console/lang/${other}" lang="${other}">${catalogues[page.lang].otherLanguage}</a>
    ${operator && html`<span class="who">${operator.email} (${say(operator.role === 'admin' ? 'roleAdmin' : 'roleSupport')})</span><form method="post" action="/console/sign-out" class="inline">${csrfField(page.csrf)}<button type="submit" class="link">${say('signOut')}</button></form>`}`,
    body,
    // No script at all in the console but the passkey pages' own (web/factor-routes.ts).
    assets: { stylesheet: '/console/assets/console.css', script: null },
  })
}

export function signInPage(page: Page): string {
  const say = t(page)
  return layout({ ...page, title: 'signInTitle' }, html`
<h1>${say('signInTitle')}</h1>
<p>${say('signInLead')}</p>
<form method="post" action="/console/sign-in" class="card">
  ${csrfField(page.csrf)}
  <label>${say('email')}<input type="email" name="email" required maxlength="254" autocomplete="email"></label>
  <button type="submit">${say('sendCode')}</button>
</form>`)
}

export function codePage(page: Page, email: string): string {
  const say = t(page)
  return layout({ ...page, title: 'codeTitle' }, html`
<h1>${say('codeTitle')}</h1>
<p>${say('codeSent', { email })}</p>
<form method="post" action="/console/code" class="card">
  ${csrfField(page.csrf)}
  <input type="hidden" name="email" value="${email}">
  <label>${say('code')}<input type="text" name="code" required inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code"></label>
  <button type="submit">${say('confirm')}</button>
</form>
<p><a href="/console">${say('newCode')}</a></p>`)
}

const queueKey: Record<ConsoleQueue, ConsoleKey> = {
  holds: 'queueHolds', refunds: 'queueRefunds', withdrawals: 'queueWithdrawals', unknown_deposits: 'queueUnknownDeposits',
  provider_refusals: 'queueProviderRefusals', stuck_reconciliations: 'queueStuck',
}

export function homePage(page: Page, counts: Record<ConsoleQueue, number>): string {
  const say = t(page)
  const total = consoleQueues.reduce((sum, queue) => sum + counts[queue], 0)
  return layout({ ...page, title: 'home' }, html`
<h1>${say('home')}</h1>
<p>${total === 0 ? say('queuesEmpty') : say('queuesLead')}</p>
<ul class="queues">${consoleQueues.map((queue) => html`<li class="${counts[queue] > 0 ? 'busy' : ''}"><a href="/console/queues/${queue}"><span class="count" data-queue="${queue}">${counts[queue]}</span> ${say(queueKey[queue])}</a></li>`)}</ul>
${lookupForm(page, '')}
${page.operator !== null && mayTake(page.operator.role, 'factors.reset') && html`<details class="card"><summary>${say('resetOperatorFactors')}</summary>
<form method="post" action="/console/operators/factors/reset" aria-label="${say('resetOperatorFactors')}">
  ${csrfField(page.csrf)}
  <p>${say('resetFactorsLead')}</p>
  <label>${say('operatorEmail')}<input type="email" name="email" required maxlength="254"></label>
  <label class="check"><input type="checkbox" name="identity_checked" value="yes" required> ${say('identityChecked')}</label>
  ${noteField(page, 'note-operator-factors')}
  <button type="submit" class="danger">${say('resetFactors')}</button>
</form></details>`}`)
}

function lookupForm(page: Page, value: string): Html {
  const say = t(page)
  return html`<form method="get" action="/console/lookup" class="card row" role="search">
  <label>${say('lookupLabel')}<input type="search" name="q" value="${value}" maxlength="254" required></label>
  <button type="submit">${say('find')}</button>
</form>`
}

function clawbackSeen(page: Page, charge: { clawback: string | null; taken_back_cents: number }): Html | string {
  const say = t(page)
  if (charge.clawback === null) return '—'
  return html`<strong class="warn">${say(charge.clawback === 'med' ? 'clawbackMed' : charge.clawback === 'refunded' ? 'clawbackRefunded' : 'clawbackWillRefund')}</strong>${charge.taken_back_cents > 0 && html`<br>${say('takenBack', { amount: formatBrl(charge.taken_back_cents) })}`}`
}

const holdReasonKey = (reason: string | null): ConsoleKey =>
  reason === 'prior_med' ? 'holdPriorMed' : reason === 'identity_bound_elsewhere' ? 'holdBoundElsewhere' : reason === 'amount_mismatch' ? 'holdAmountMismatch' : reason === 'payer_mismatch' ? 'holdPayerMismatch' : reason === 'quote_unavailable' ? 'holdQuoteUnavailable' : 'holdUnknown'

/** A queue's page: `first` when it is the queue's first page, `next` the link to the one after (null on the last). */
export function queuePageHtml(page: Page, queue: QueuePage, links: { first: boolean; next: string | null }): string {
  const say = t(page)
  const open = (path: string, label: string) => html`<a href="${href(path)}">${label}</a>`
  let table: Html
  const empty = html`<p class="ok" role="status">${say('queueEmpty')}</p>`
  let columns: ConsoleKey[] = []
  const head = (...keys: ConsoleKey[]) => {
    columns = keys
    return html`<thead><tr>${keys.map((key) => html`<th scope="col">${say(key)}</th>`)}</tr></thead>`
  }
  switch (queue.queue) {
    case 'holds':
      table = queue.rows.length === 0 ? empty : html`<table>${head('age', 'why', 'payer', 'valueAndPaid', 'clawback', 'open')}<tbody>${queue.rows.map(({ charge }) => html`<tr>
<td>${age(page.now, charge.updated_at)}</td>
<td>${say(holdReasonKey(charge.hold_reason))}<br><code>${charge.hold_reason ?? ''}</code></td>
<td>${charge.payer_name ?? '—'}<br>${mask(charge.payer_tax_number)}</td>
<td>${formatBrl(charge.value_cents)}<br>${say('paid')}: ${brl(charge.paid_cents)}</td>
<td>${clawbackSeen(page, charge)}</td>
<td>${open(`/console/charges/${charge.id}`, say('openCharge'))}<br><code class="id">${charge.id}</code></td></tr>`)}</tbody></table>`
      break
    case 'refunds':
      table = queue.rows.length === 0 ? empty : html`<table>${head('age', 'payer', 'owed', 'charge', 'open')}<tbody>${queue.rows.map((refund) => html`<tr>
<td>${age(page.now, refund.created_at)}</td>
<td>${refund.payer_name ?? '—'}<br>${mask(refund.payer_tax_number)}</td>
<td>${formatBrl(refund.owed_cents)}<br><small>${say('ofAmount', { amount: formatBrl(refund.amount_cents) })}</small></td>
<td>${open(`/console/charges/${refund.charge_id}`, refund.charge_id.slice(0, 8))}</td>
<td>${open(`/console/refunds/${refund.id}`, say('openRefund'))}</td></tr>`)}</tbody></table>`
      break
    case 'withdrawals':
      table = queue.rows.length === 0 ? empty : html`<table>${head('age', 'account', 'amount', 'why', 'open')}<tbody>${queue.rows.map((withdrawal) => html`<tr>
<td>${age(page.now, withdrawal.updated_at)}</td>
<td>${withdrawal.email ?? '—'}</td>
<td>${formatAmount(withdrawal.currency, withdrawal.amount)}<br><small>${withdrawal.destination_type} · ${withdrawal.via}</small></td>
<td>${withdrawal.review_reason === null ? '—' : catalogues[page.lang].withdrawalReasons[withdrawal.review_reason]}${withdrawal.blockers.length > 0 && html`<br><small>${say('blockers')}: ${withdrawal.blockers.join(', ')}</small>`}${withdrawal.balances !== null && html`<br><small>${(['DEPIX', 'BTC', 'USDt'] as const).map((currency) => formatAmount(currency, withdrawal.balances![currency])).join(' · ')}</small>`}</td>
<td>${open(`/console/withdrawals/${withdrawal.id}`, say('openWithdrawal'))}</td></tr>`)}</tbody></table>`
      break
    case 'unknown_deposits':
      table = queue.rows.length === 0 ? empty : html`<table>${head('age', 'qrId', 'status', 'value', 'payer', 'seenBy')}<tbody>${queue.rows.map((deposit) => html`<tr>
<td>${age(page.now, deposit.first_seen_at)}</td><td><code class="id">${deposit.qr_id}</code></td><td><code>${deposit.status}</code></td>
<td>${brl(deposit.value_cents)}</td><td>${deposit.payer_name ?? '—'}<br>${mask(deposit.payer_tax_number)}</td><td>${deposit.seen_by}</td></tr>`)}</tbody></table>`
      break
    case 'provider_refusals':
      table = queue.rows.length === 0 ? empty : html`<table>${head('age', 'what', 'open')}<tbody>${queue.rows.map((row) => row.kind === 'clawback'
        ? html`<tr><td>${age(page.now, row.since)}</td><td>${say('refusalClawback', { status: row.charge.status, clawback: row.charge.clawback ?? '' })}</td><td>${open(`/console/charges/${row.charge.id}`, say('openCharge'))}</td></tr>`
        : html`<tr><td>${age(page.now, row.since)}</td><td>${say('refusalPayout', { status: row.payout.provider_status ?? '', amount: formatAmount(row.payout.currency, row.payout.amount) })}</td><td>${row.payout.withdrawal_id !== null ? open(`/console/withdrawals/${row.payout.withdrawal_id}`, say('openWithdrawal')) : row.payout.refund_id !== null ? open(`/console/refunds/${row.payout.refund_id}`, say('openRefund')) : open(`/console/charges/${row.chargeId}`, say('openCharge'))}</td></tr>`)}</tbody></table>`
      break
    case 'stuck_reconciliations':
      table = queue.rows.length === 0 ? empty : html`<table>${head('age', 'status', 'failures', 'open')}<tbody>${queue.rows.map((charge) => html`<tr>
<td>${age(page.now, charge.created_at)}</td><td>${statusLabel(page.lang, charge.status)}<br><code>${charge.provider_status}</code></td>
<td>${charge.failures ?? 0}${charge.last_error !== null && html`<br><small>${charge.last_error.slice(0, 200)}</small>`}</td>
<td>${open(`/console/charges/${charge.id}`, say('openCharge'))}</td></tr>`)}</tbody></table>`
      break
  }
  if (queue.rows.length > 0) table = stacked(table, columns.map((key) => say(key)))
  const path = `/console/queues/${queue.queue}`
  return layout({ ...page, title: queueKey[queue.queue] }, html`
<h1>${say(queueKey[queue.queue])}</h1>
<p>${say('oldestFirst')}</p>
${table}
<nav class="pages" aria-label="${say('pages')}">${!links.first && html`<a href="${href(path)}" rel="first">${say('firstPage')}</a>`} ${links.next !== null && html`<a href="${href(links.next)}" rel="next">${say('next')}</a>`}</nav>`)
}

/**
 * A queue's table that stacks on a phone: each cell carries its column's name (data-label), which
 * the stylesheet shows beside it when the header row is hidden. Only our own plain <tr> and <td>
 * tags are marked; every value inside was escaped already, so none can look like a tag.
 */
function stacked(table: Html, labels: string[]): Html {
  let index = 0
  const marked = table.toString().replace(/<tr>|<td>/g, (tag) => {
    if (tag === '<tr>') {
      index = 0
      return tag
    }
    return html`<td data-label="${labels[index++] ?? ''}">`.toString()
  })
  return raw(marked.replace('<table>', '<table class="stack">'))
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? ''
  } catch {
    return String(value)
  }
}

function timelineHtml(page: Page, timeline: TimelineEntry[]): Html {
  const say = t(page)
  if (timeline.length === 0) return html`<p>${say('nothingYet')}</p>`
  return html`<ol class="timeline">${timeline.map((entry) => {
    const when = time(page.lang, entry.at)
    switch (entry.kind) {
      case 'created':
        return html`<li data-kind="created">${when} · ${say('tlCreated', { amount: formatBrl(entry.valueCents), currency: entry.currency })}</li>`
      case 'report':
        return html`<li data-kind="report">${when} · ${say('tlReport', { source: entry.source ?? '' })}<details><summary>${say('rawBody')}</summary><pre>${json(entry.body)}</pre></details></li>`
      case 'status':
        return html`<li data-kind="status">${when} · ${say('tlStatus', { from: entry.from ?? '', to: entry.to ?? '', cause: entry.cause ?? '' })}${entry.actor !== null && html` · ${entry.actor}`}</li>`
      case 'clawback':
        return html`<li data-kind="clawback">${when} · ${say('tlClawback', { kind: entry.clawback.kind, amount: brl(entry.clawback.principal_cents) })}<details><summary>${say('rawBody')}</summary><pre>${json(entry.clawback.report)}</pre></details></li>`
      case 'posting':
        return html`<li data-kind="posting">${when} · ${say('tlPosting', { kind: entry.postingKind })}<ul class="entries">${entry.entries.map((row) => html`<li><code>${row.book}</code>${row.accountId !== null && html` #${row.accountId}`}: ${formatAmount(row.currency as Currency, row.amount)}</li>`)}</ul></li>`
      case 'webhook':
        return html`<li data-kind="webhook">${when} · ${say(entry.attempted ? 'tlWebhookAttempt' : 'tlWebhookQueued', { event: entry.event, status: entry.statusCode === null ? '—' : String(entry.statusCode), state: entry.state })}${entry.error !== null && html` (${entry.error})`}</li>`
      case 'operator':
        return html`<li data-kind="operator" class="audit">${when} · <strong>${entry.actor}</strong> · <code>${entry.action}</code><pre>${json(entry.details)}</pre></li>`
    }
  })}</ol>`
}

function doneNotice(page: Page, done: string | null): Html | null {
  return done === null ? null : html`<p class="ok" role="status">${t(page)(done === 'proposed' ? 'amountProposed' : 'done')}</p>`
}

function decisionForm(page: Page, chargeId: string, decision: ReviewDecision, needsPaidAmount: boolean): Html {
  const say = t(page)
  const key: ConsoleKey = decision === 'release' ? 'decideRelease' : decision === 'refund' ? 'decideRefund' : 'decideClose'
  const id = `note-${decision}`
  return html`<form method="post" action="${href(`/console/charges/${chargeId}/review`)}" class="card" aria-label="${say(key)}">
  ${csrfField(page.csrf)}
  <input type="hidden" name="decision" value="${decision}">
  ${decision !== 'close' && needsPaidAmount && html`<label>${say('paidAmount')}<input type="text" name="paid" required inputmode="decimal" pattern="[0-9]+([.,][0-9]{1,2})?" maxlength="12"></label>`}
  ${noteField(page, id)}
  <button type="submit">${say(key)}</button>
</form>`
}

export function chargePage(page: Page, dossier: ChargeDossier, done: string | null): string {
  const say = t(page)
  const charge = dossier.charge
  const decisions = dossier.decisions
  return layout({ ...page, title: 'charge', heading: `${say('charge')} ${charge.id.slice(0, 8)}` }, html`
<h1>${say('charge')} <code class="id">${charge.id}</code></h1>
${doneNotice(page, done)}
<dl class="facts">
  <dt>${say('status')}</dt><dd>${statusLabel(page.lang, charge.status)} <code>${charge.status}</code></dd>
  ${charge.hold_reason !== null && html`<dt>${say('why')}</dt><dd>${say(holdReasonKey(charge.hold_reason))} <code>${charge.hold_reason}</code></dd>`}
  <dt>${say('valueAndPaid')}</dt><dd>${formatBrl(charge.value_cents)} · ${say('paid')}: ${brl(charge.paid_cents)}${charge.paid_source !== null && html` (${charge.paid_source})`}</dd>
  <dt>${say('currency')}</dt><dd>${charge.currency}${charge.credited_units !== null && html` · ${say('credited')}: ${formatAmount(charge.currency, charge.credited_units)}`}</dd>
  <dt>${say('payer')}</dt><dd>${charge.payer_name ?? '—'} · ${mask(charge.payer_tax_number)} · ${charge.payer_euid ?? '—'}</dd>
  <dt>${say('informed')}</dt><dd>${charge.informed_payer_name ?? '—'} · ${mask(charge.informed_tax_number)} · ${charge.informed_euid ?? '—'}</dd>
  <dt>${say('clawback')}</dt><dd>${clawbackSeen(page, charge)}</dd>
  <dt>${say('account')}</dt><dd>${dossier.account ? html`<a href="${href(`/console/accounts/${dossier.account.id}`)}">${dossier.account.email}</a>` : '—'}</dd>
  <dt>${say('merchant')}</dt><dd>${dossier.merchant ? html`<a href="${href(`/console/accounts/${dossier.merchant.id}`)}">${dossier.merchant.email}</a>` : '—'} · ${charge.merchant_id ?? '—'}</dd>
  <dt>qrId</dt><dd><code class="id">${charge.provider_deposit_id}</code> · <code>${charge.provider_status}</code></dd>
  ${dossier.proposal && html`<dt>${say('pendingAmount')}</dt><dd data-pending-amount="${String(dossier.proposal.paid_cents)}">${say('pendingAmountDetail', {
    amount: formatBrl(dossier.proposal.paid_cents), decision: say(dossier.proposal.decision === 'release' ? 'decideRelease' : 'decideRefund'), operator: dossier.proposal.proposed_by, at: formatDateTime(page.lang, dossier.proposal.proposed_at),
  })}</dd>`}
  ${dossier.refund && html`<dt>${say('refund')}</dt><dd><a href="${href(`/console/refunds/${dossier.refund.id}`)}">${dossier.refund.status} · ${formatBrl(dossier.refund.owed_cents)}</a></dd>`}
  ${dossier.merchantRefunds.length > 0 && html`<dt>${say('merchantRefunds')}</dt><dd><ul>${dossier.merchantRefunds.map((row) => html`<li data-merchant-refund="${row.id}"><code class="id">${row.id}</code> · ${formatBrl(row.amount_cents)} · <code>${row.status}</code>${row.failure_code !== null && html` (<code>${row.failure_code}</code>)`}</li>`)}</ul></dd>`}
</dl>
${dossier.refundedThenDisputed && html`<p class="error" role="alert" data-refunded-then-disputed>${say('refundedThenDisputed')}</p>`}
<section aria-labelledby="decide"><h2 id="decide">${say('decide')}</h2>
${decisions.length === 0 ? html`<p>${say(charge.status === 'security_hold' ? 'noDecisionHeld' : 'noDecision')}</p>` : html`<div class="decisions">${decisions.map((decision) => decisionForm(page, charge.id, decision, dossier.needsPaidAmount))}</div>`}
</section>
<section aria-labelledby="timeline"><h2 id="timeline">${say('timeline')}</h2>
${timelineHtml(page, dossier.timeline)}
</section>`)
}

export function withdrawalPage(page: Page, dossier: WithdrawalDossier, done: string | null): string {
  const say = t(page)
  const withdrawal = dossier.withdrawal
  const form = (decision: 'approve' | 'reject' | 'new_payout' | 'returned') => html`<form method="post" action="${href(`/console/withdrawals/${withdrawal.id}/review`)}" class="card" aria-label="${say(decision)}">
  ${csrfField(page.csrf)}<input type="hidden" name="decision" value="${decision}">
  ${noteField(page, `note-${decision}`)}
  <button type="submit" class="${decision === 'reject' ? 'danger' : ''}">${say(decision)}</button>
</form>`
  const payout = dossier.payouts[0]
  // A provider reply that asked another amount is never approved: rejected, or asked anew.
  const decisions = withdrawal.status === 'in_review'
    ? (withdrawal.review_reason === 'payout_mismatch' ? [form('new_payout'), form('reject')] : [form('approve'), form('reject')])
    : (withdrawal.status === 'sent' || withdrawal.status === 'completed') && payout?.provider_status != null && ['error', 'canceled', 'refunded'].includes(payout.provider_status) ? [form('returned')] : []
  return layout({ ...page, title: 'withdrawal' }, html`
<h1>${say('withdrawal')} <code class="id">${withdrawal.id}</code></h1>
${doneNotice(page, done)}
<dl class="facts">
  <dt>${say('status')}</dt><dd>${catalogues[page.lang].withdrawalStatuses[withdrawal.status]} <code>${withdrawal.status}</code></dd>
  ${withdrawal.review_reason !== null && html`<dt>${say('why')}</dt><dd>${catalogues[page.lang].withdrawalReasons[withdrawal.review_reason]}</dd>`}
  <dt>${say('account')}</dt><dd>${dossier.account ? html`<a href="${href(`/console/accounts/${dossier.account.id}`)}">${dossier.account.email}</a>` : '—'}</dd>
  <dt>${say('amount')}</dt><dd>${formatAmount(withdrawal.currency, withdrawal.amount)} · ${say('fee')}: ${formatAmount(withdrawal.currency, withdrawal.fee)} · ≈ ${formatBrl(withdrawal.brl_cents)}</dd>
  <dt>${say('destination')}</dt><dd>${withdrawal.destination_type} · <code class="id">${withdrawal.destination_id}</code></dd>
  <dt>${say('created')}</dt><dd>${time(page.lang, withdrawal.created_at)} · ${withdrawal.via}</dd>
  ${payout?.provider_status != null && html`<dt>${say('providerStatus')}</dt><dd><code>${payout.provider_status}</code></dd>`}
  ${payout?.txid != null && html`<dt>txid</dt><dd><code class="id">${payout.txid}</code></dd>`}
</dl>
<section aria-labelledby="decide"><h2 id="decide">${say('decide')}</h2>
${decisions.length > 0 ? html`<div class="decisions">${decisions}</div>` : html`<p>${say('noDecision')}</p>`}
</section>
<section aria-labelledby="timeline"><h2 id="timeline">${say('timeline')}</h2>${timelineHtml(page, dossier.timeline)}</section>`)
}

export function refundPage(page: Page, dossier: RefundDossier, done: string | null): string {
  const say = t(page)
  const refund = dossier.refund
  const owed = refund.status === 'owed'
  const live = dossier.payouts.some((payout) => isLive(payout.status))
  const reviewing = dossier.payouts.find((payout) => payout.status === 'in_review')
  // A reply that asked another amount is never sent again as it is; a Pix failed after our DePix left may come back.
  const reviewDecisions = reviewing ? (reviewing.review_reason === 'payout_mismatch' ? ['new_payout', 'abandon'] as const : ['retry', 'abandon'] as const) : []
  const failedAfterSending = dossier.payouts.find((payout) => payout.status === 'sent' && payout.provider_status !== null && ['error', 'canceled', 'refunded'].includes(payout.provider_status))
  const reasons = catalogues[page.lang].withdrawalReasons
  return layout({ ...page, title: 'refund' }, html`
<h1>${say('refund')} <code class="id">${refund.id}</code></h1>
${doneNotice(page, done)}
<dl class="facts">
  <dt>${say('status')}</dt><dd><code>${refund.status}</code></dd>
  <dt>${say('payer')}</dt><dd>${refund.payer_name ?? '—'} · ${mask(refund.payer_tax_number)}</dd>
  <dt>${say('owed')}</dt><dd>${formatBrl(refund.owed_cents)} · ${say('ofAmount', { amount: formatBrl(refund.amount_cents) })}</dd>
  <dt>${say('charge')}</dt><dd><a href="${href(`/console/charges/${refund.charge_id}`)}"><code class="id">${refund.charge_id}</code></a></dd>
  <dt>${say('created')}</dt><dd>${time(page.lang, refund.created_at)} · ${refund.created_by}</dd>
  ${refund.reference !== null && html`<dt>${say('reference')}</dt><dd>${refund.reference}</dd>`}
</dl>
<section aria-labelledby="decide"><h2 id="decide">${say('decide')}</h2>
${owed ? html`<div class="decisions">
${live ? html`<p>${say('payoutLive')}</p>` : html`<form method="post" action="${href(`/console/refunds/${refund.id}/payout`)}" class="card" aria-label="${say('payByPix')}">
  <h3>${say('payByPix')}</h3>
  <p>${say('payByPixLead')}</p>
  ${csrfField(page.csrf)}
  ${noteField(page, 'note-pix')}
  <button type="submit">${say('payByPix')}</button>
</form>`}
${failedAfterSending && html`<form method="post" action="${href(`/console/refund-payouts/${failedAfterSending.id}/review`)}" class="card" aria-label="${say('returned')}">
  ${csrfField(page.csrf)}<input type="hidden" name="decision" value="returned">
  ${noteField(page, 'note-payout-returned')}
  <button type="submit">${say('returned')}</button>
</form>`}
${reviewing && reviewDecisions.map((decision) => html`<form method="post" action="${href(`/console/refund-payouts/${reviewing.id}/review`)}" class="card" aria-label="${say(decision === 'retry' ? 'retryPayout' : decision === 'new_payout' ? 'new_payout' : 'abandonPayout')}">
  ${csrfField(page.csrf)}<input type="hidden" name="decision" value="${decision}">
  ${noteField(page, `note-payout-${decision}`)}
  <button type="submit" class="${decision === 'abandon' ? 'danger' : ''}">${say(decision === 'retry' ? 'retryPayout' : decision === 'new_payout' ? 'new_payout' : 'abandonPayout')}</button>
</form>`)}
${!live && html`<form method="post" action="${href(`/console/refunds/${refund.id}/paid`)}" class="card" aria-label="${say('recordOutside')}">
  <h3>${say('recordOutside')}</h3>
  ${csrfField(page.csrf)}
  <label>${say('reference')}<input type="text" name="reference" required maxlength="200"></label>
  ${noteField(page, 'note-paid')}
  <button type="submit">${say('recordOutside')}</button>
</form>`}</div>` : html`<p>${say('noDecision')}</p>`}
</section>
${dossier.payouts.length > 0 && html`<section aria-labelledby="payouts"><h2 id="payouts">${say('payouts')}</h2><table>
<thead><tr><th>${say('created')}</th><th>${say('status')}</th><th>${say('amount')}</th><th>${say('providerStatus')}</th></tr></thead>
<tbody>${dossier.payouts.map((payout) => html`<tr><td>${time(page.lang, payout.created_at)} · ${payout.created_by}</td><td>${catalogues[page.lang].payoutStatuses[payout.status]}${payout.review_reason !== null && html` · ${reasons[payout.review_reason]}`}${payout.failure_code !== null && html` · <code>${payout.failure_code}</code>`}</td><td>${formatBrl(payout.amount)}${payout.provider_deposit_cents !== null && html` (${formatBrl(payout.provider_deposit_cents)} DePix)`}</td><td>${payout.provider_status === null ? '—' : html`<code>${payout.provider_status}</code>`}</td></tr>`)}</tbody>
</table></section>`}
<section aria-labelledby="timeline"><h2 id="timeline">${say('timeline')}</h2>${timelineHtml(page, dossier.timeline)}</section>`)
}

export function lookupPage(page: Page, query: string, accounts: Account[]): string {
  const say = t(page)
  return layout({ ...page, title: 'lookup' }, html`
<h1>${say('lookup')}</h1>
${lookupForm(page, query)}
${query !== '' && (accounts.length === 0 ? html`<p role="status">${say('noneFound')}</p>` : html`<ul class="results">${accounts.map((account) => html`<li><a href="${href(`/console/accounts/${account.id}`)}">${account.email}</a> · ${mask(account.owner_tax_number)} · ${account.euid ?? '—'}</li>`)}</ul>`)}`)
}

export function accountPage(page: Page, dossier: AccountDossier, done: string | null, factors: { count: number; removalAt: Date | null } = { count: 0, removalAt: null }): string {
  const say = t(page)
  const account = dossier.account
  const back = `/console/accounts/${account.id}`
  const balances = (['DEPIX', 'BTC', 'USDt'] as const).map((currency) => html`<tr><th scope="row">${currency}</th><td>${formatAmount(currency, dossier.available[currency])}</td><td>${formatAmount(currency, dossier.held[currency])}</td></tr>`)
  const identityOptions = ([['email', account.email], ['tax_number', account.owner_tax_number], ['euid', account.euid]] as const).filter(([, value]) => value !== null)
  const admin = page.operator !== null && mayTake(page.operator.role, 'identity.assign')
  const releaseIdentity = account.kyc === 'unidentified' && admin
    ? html`<form method="post" action="${href(`/console/accounts/${account.id}/identity`)}" class="card" aria-label="${say('assignIdentity')}">
  <h3>${say('assignIdentity')}</h3>${csrfField(page.csrf)}
  <label>EUID<input type="text" name="euid" required maxlength="32" pattern="EU[0-9]{15}"></label>
  ${noteField(page, 'note-identity')}
  <button type="submit">${say('assignIdentity')}</button>
</form>`
    : null
  return layout({ ...page, title: 'account', heading: account.email }, html`
<h1>${account.email}</h1>
${doneNotice(page, done)}
<dl class="facts">
  <dt>${say('identity')}</dt><dd>${mask(account.owner_tax_number)} · ${account.owner_name ?? '—'} · EUID ${account.euid ?? '—'} · <code>${account.kyc}</code></dd>
  <dt>${say('purchase')}</dt><dd>${dossier.purchase ? html`<a href="${href(`/console/charges/${dossier.purchase.id}`)}">${statusLabel(page.lang, dossier.purchase.status)} · ${formatBrl(dossier.purchase.value_cents)}</a>` : '—'}</dd>
  <dt>${say('created')}</dt><dd>${time(page.lang, account.created_at)}</dd>
</dl>
${releaseIdentity}
<section aria-labelledby="factors"><h2 id="factors">${say('secondFactors')}</h2>
<p data-factor-count="${factors.count}">${factors.count === 0 ? say('noFactors') : say('factorCount', { count: String(factors.count) })}${factors.removalAt !== null && html` · ${say('factorsRemovedAt')} ${time(page.lang, factors.removalAt)}`}</p>
${factors.count > 0 && page.operator !== null && mayTake(page.operator.role, 'factors.reset') && html`<form method="post" action="${href(`/console/accounts/${account.id}/factors/reset`)}" class="card" aria-label="${say('resetFactors')}">
  <h3>${say('resetFactors')}</h3>${csrfField(page.csrf)}
  <p>${say('resetFactorsLead')}</p>
  <label class="check"><input type="checkbox" name="identity_checked" value="yes" required> ${say('identityChecked')}</label>
  ${noteField(page, 'note-factors')}
  <button type="submit" class="danger">${say('resetFactors')}</button>
</form>`}
</section>
<section aria-labelledby="balances"><h2 id="balances">${say('balances')}</h2>
<table><thead><tr><th scope="col">${say('currency')}</th><th scope="col">${say('available')}</th><th scope="col">${say('held')}</th></tr></thead><tbody>${balances}</tbody></table></section>
<section aria-labelledby="tokens"><h2 id="tokens">${say('tokens')}</h2>
${dossier.tokens.length === 0 ? html`<p>—</p>` : html`<table><thead><tr><th scope="col">id</th><th scope="col">${say('status')}</th><th scope="col">${say('tokenEnds')}</th><th scope="col">${say('created')}</th><th scope="col">${say('lastUsed')}</th></tr></thead><tbody>${dossier.tokens.map((token) => html`<tr><td><code class="id">${token.id}</code></td><td><code>${token.status}</code></td><td>${token.last4 === null ? '—' : `…${token.last4}`}</td><td>${time(page.lang, token.created_at)}</td><td>${token.last_used_at === null ? '—' : time(page.lang, token.last_used_at)}${token.status === 'pending' && admin && html`<form method="post" action="${href(`/console/tokens/${token.id}/activate`)}" class="card" aria-label="${say('activateToken')}">${csrfField(page.csrf)}<input type="hidden" name="back" value="${back}">${noteField(page, `note-token-${token.id}`)}<button type="submit">${say('activateToken')}</button></form>`}</td></tr>`)}</tbody></table>`}
</section>
<section aria-labelledby="blocks"><h2 id="blocks">${say('blocks')}</h2>
${dossier.blocks.length === 0 ? html`<p>${say('noBlocks')}</p>` : html`<ul class="blocks">${dossier.blocks.map((block) => html`<li><code>${block.kind}</code> · ${block.reason} · ${block.created_by} · ${time(page.lang, block.created_at)}
<form method="post" action="${href(`/console/blocks/${block.id}/lift`)}" class="card" aria-label="${say('liftBlock')}">${csrfField(page.csrf)}<input type="hidden" name="back" value="${back}">${noteField(page, `note-lift-${block.id}`)}<button type="submit">${say('liftBlock')}</button></form></li>`)}</ul>`}
<form method="post" action="/console/blocks" class="card" aria-label="${say('addBlock')}">
  ${csrfField(page.csrf)}<input type="hidden" name="back" value="${back}">
  <label for="block-identity">${say('blockWhat')}</label><select id="block-identity" name="identity">${identityOptions.map(([kind, value]) => html`<option value="${kind}:${value}">${kind}: ${kind === 'tax_number' ? maskTaxNumber(value!) : value}</option>`)}</select>
  ${noteField(page, 'note-block')}
  <button type="submit" class="danger">${say('addBlock')}</button>
</form></section>
<section aria-labelledby="charges"><h2 id="charges">${say('charges')}</h2>
${dossier.charges.length === 0 ? html`<p>—</p>` : html`<table><thead><tr><th scope="col">${say('created')}</th><th scope="col">${say('amount')}</th><th scope="col">${say('status')}</th><th scope="col">${say('role')}</th></tr></thead><tbody>${dossier.charges.map((charge) => html`<tr><td>${time(page.lang, charge.created_at)}</td><td>${formatBrl(charge.value_cents)}</td><td><a href="${href(`/console/charges/${charge.id}`)}">${statusLabel(page.lang, charge.status)}</a></td><td>${say(charge.merchant_id === null ? 'roleOwn' : charge.account_id === account.id ? 'roleReceived' : 'roleMerchant')}</td></tr>`)}</tbody></table>`}
</section>
<section aria-labelledby="withdrawals"><h2 id="withdrawals">${say('withdrawals')}</h2>
${dossier.withdrawals.length === 0 ? html`<p>—</p>` : html`<table><thead><tr><th scope="col">${say('created')}</th><th scope="col">${say('amount')}</th><th scope="col">${say('status')}</th></tr></thead><tbody>${dossier.withdrawals.map((withdrawal) => html`<tr><td>${time(page.lang, withdrawal.created_at)}</td><td>${formatAmount(withdrawal.currency, withdrawal.amount)}</td><td><a href="${href(`/console/withdrawals/${withdrawal.id}`)}">${catalogues[page.lang].withdrawalStatuses[withdrawal.status]}</a></td></tr>`)}</tbody></table>`}
</section>`)
}

export type MoneyView = {
  ledger: LedgerCheck
  treasury: TreasuryCheck | null
  overrides: OverrideView
  accepted: Array<{ currency: string; price: string | null; source: string; acceptedAt: Date }>
  canOverride: boolean
}

export function moneyPage(page: Page, view: MoneyView, done: string | null): string {
  const say = t(page)
  const ledger = view.ledger
  const problems = ledger.disagreements.length + ledger.unbalanced.length + ledger.foreign_currency.length + ledger.charges.length + ledger.withdrawals.length
  return layout({ ...page, title: 'money' }, html`
<h1>${say('money')}</h1>
${doneNotice(page, done)}
<section aria-labelledby="ledger"><h2 id="ledger">${say('ledgerCheck')}</h2>
<p class="${ledger.ok ? 'ok' : 'error'}" role="status" data-ok="${String(ledger.ok)}">${ledger.ok ? say('ledgerOk') : say('ledgerProblems', { n: String(problems) })}</p>
${!ledger.ok && html`<details><summary>${say('details')}</summary><pre>${json({ disagreements: ledger.disagreements, unbalanced: ledger.unbalanced, foreign_currency: ledger.foreign_currency, charges: ledger.charges, withdrawals: ledger.withdrawals })}</pre></details>`}
<table><thead><tr><th scope="col">${say('book')}</th><th scope="col">${say('currency')}</th><th scope="col">${say('total')}</th></tr></thead><tbody>${ledger.books.map((row) => html`<tr><td><code>${row.book}</code></td><td>${row.currency}</td><td>${formatAmount(row.currency, row.total)}</td></tr>`)}</tbody></table>
</section>
<section aria-labelledby="solvency"><h2 id="solvency">${say('solvency')}</h2>
${view.treasury === null ? html`<p class="error">${say('treasuryUnreachable')}</p>` : html`<table><thead><tr><th scope="col">${say('currency')}</th><th scope="col">${say('owed')}</th><th scope="col">${say('treasury')}</th><th scope="col">${say('shortfall')}</th><th scope="col">${say('receivable')}</th></tr></thead><tbody>${view.treasury.map((row) => html`<tr class="${row.shortfall > 0 ? 'short' : ''}"><th scope="row">${row.currency}</th><td>${formatAmount(row.currency, row.owed)}</td><td>${formatAmount(row.currency, row.treasury)}</td><td>${formatAmount(row.currency, row.shortfall)}</td><td>${formatAmount(row.currency, row.receivable)}</td></tr>`)}</tbody></table>`}
</section>
<section aria-labelledby="quotes"><h2 id="quotes">${say('quotes')}</h2>
<table><thead><tr><th scope="col">${say('currency')}</th><th scope="col">${say('price')}</th><th scope="col">${say('source')}</th><th scope="col">${say('age')}</th><th scope="col">${say('override')}</th></tr></thead><tbody>${(['BTC', 'USDt'] as const).map((currency) => {
    const accepted = view.accepted.find((row) => row.currency === currency)
    const override = view.overrides[currency]
    const expires = view.overrides.expires_at[currency]
    return html`<tr><th scope="row">${currency}</th><td>${accepted?.price ?? '—'}</td><td>${accepted?.source ?? '—'}</td><td>${accepted ? age(page.now, accepted.acceptedAt) : '—'}</td><td>${override === null ? '—' : html`R$ ${override} · ${say('until')} ${time(page.lang, new Date(expires!))}`}</td></tr>`
  })}</tbody></table>
${view.canOverride ? html`<form method="post" action="/console/quotes" class="card" aria-label="${say('setOverride')}">
  <h3>${say('setOverride')}</h3>
  ${csrfField(page.csrf)}
  <label>BTC (R$)<input type="text" name="BTC" inputmode="decimal" maxlength="20" placeholder="350000.00"></label>
  <label>USDt (R$)<input type="text" name="USDt" inputmode="decimal" maxlength="20" placeholder="5.4321"></label>
  <label>${say('expiresInMinutes')}<input type="number" name="expires_in_minutes" value="60" min="1" max="1440" required></label>
  <label class="check"><input type="checkbox" name="force" value="yes"> ${say('forceOverride')}</label>
  <label class="check"><input type="checkbox" name="clear" value="yes"> ${say('clearOverride')}</label>
  ${noteField(page, 'note-quotes')}
  <button type="submit">${say('setOverride')}</button>
</form>` : html`<p>${say('adminOnly')}</p>`}
</section>`)
}

export type AuditRow = { id: number; actor: string; action: string; subject: string; details: unknown; at: Date }

export function auditPage(page: Page, rows: AuditRow[], facets: { actors: string[]; actions: string[] }, filter: { actor: string | null; action: string | null }, nextHref: string | null): string {
  const say = t(page)
  const options = (values: string[], selected: string | null) => values.map((value) => html`<option value="${value}" ${value === selected && 'selected'}>${value}</option>`)
  return layout({ ...page, title: 'audit' }, html`
<h1>${say('audit')}</h1>
<form method="get" action="/console/audit" class="card row3">
  <div><label for="audit-actor">${say('operator')}</label><select id="audit-actor" name="actor"><option value="">${say('all')}</option>${options(facets.actors, filter.actor)}</select></div>
  <div><label for="audit-action">${say('action')}</label><select id="audit-action" name="action"><option value="">${say('all')}</option>${options(facets.actions, filter.action)}</select></div>
  <button type="submit">${say('filter')}</button>
</form>
${rows.length === 0 ? html`<p>${say('noneFound')}</p>` : html`<table class="audit"><thead><tr><th scope="col">${say('when')}</th><th scope="col">${say('operator')}</th><th scope="col">${say('action')}</th><th scope="col">${say('subject')}</th><th scope="col">${say('details')}</th></tr></thead><tbody>${rows.map((row) => html`<tr><td>${time(page.lang, row.at)}</td><td>${row.actor}</td><td><code>${row.action}</code></td><td>${subjectLink(row.subject)}</td><td><pre>${json(row.details)}</pre></td></tr>`)}</tbody></table>`}
${nextHref !== null && html`<p><a href="${href(nextHref)}" rel="next">${say('next')}</a></p>`}`)
}

function subjectLink(subject: string): Html | string {
  if (subject.startsWith('payment:')) return html`<a href="${href(`/console/charges/${subject.slice(8)}`)}"><code class="id">${subject}</code></a>`
  if (subject.startsWith('refund:')) return html`<a href="${href(`/console/refunds/${subject.slice(7)}`)}"><code class="id">${subject}</code></a>`
  if (subject.startsWith('wd_')) return html`<a href="${href(`/console/withdrawals/${subject}`)}"><code class="id">${subject}</code></a>`
  return html`<code class="id">${subject}</code>`
}

export function errorPage(page: Page, message: string, code: string, csrfFailure: boolean, stepUpNext: string | null = null): string {
  const say = t(page)
  return layout({ ...page, title: csrfFailure ? 'csrfTitle' : 'errorTitle' }, html`
<h1>${csrfFailure ? say('csrfTitle') : say('errorTitle')}</h1>
<p class="error" data-code="${code}" role="alert">${csrfFailure ? say('csrfText') : message}</p>
${stepUpNext !== null && html`<p><a href="${href(`/console/check?next=${encodeURIComponent(stepUpNext)}`)}">${say('stepUpLink')}</a></p>`}
<p><a href="/console">${say('backHome')}</a></p>`)
}

export type ReportsView = {
  zone: string
  fees: FeesRow[]
  outflows: OutflowRow[]
  provider: ProviderMismatch[]
  owed: { rows: Array<OwedRow & { owed: number }>; more: boolean; totals: Array<{ currency: Currency; owed: number; debts: number }> }
}

/** The operators' reports, each a table with its CSV in both flavours. */
export function reportsPage(page: Page, view: ReportsView): string {
  const say = t(page)
  const headers = catalogues[page.lang].csvHeaders
  const csvLinks = (name: string) => html`<p class="downloads"><a href="${href(`/console/reports/${name}.csv`)}" download>${say('csvExcel')}</a> · <a href="${href(`/console/reports/${name}.csv?flavour=standard`)}" download>${say('csvStandard')}</a></p>`
  const head = (columns: ReadonlyArray<keyof typeof headers>) => html`<thead><tr>${columns.map((column) => html`<th scope="col">${fillZone(headers[column], view.zone)}</th>`)}</tr></thead>`
  const money = (currency: Currency, units: number) => html`<td class="num">${formatAmount(currency, units)}</td>`
  const empty = (rows: unknown[], table: Html) => (rows.length === 0 ? html`<p>${say('nothing')}</p>` : table)
  const mismatches = (side: ProviderMismatch['side']) => view.provider.filter((row) => row.side === side)
  const mismatchTable = (rows: ProviderMismatch[]) => empty(rows, html`<table class="stack">${head(['id', 'status', 'provider_status', 'value_brl', 'paid_brl', 'credited', 'account'])}<tbody>${rows.map((row) => html`<tr data-mismatch="${row.qr_id}">
<td data-label="${headers.id}">${row.status === null ? html`<code class="id">${row.qr_id}</code>` : html`<a href="${href(`/console/charges/${encodeURIComponent(row.qr_id)}`)}"><code class="id">${row.qr_id}</code></a>`}</td>
<td data-label="${headers.status}">${row.status === null ? '—' : row.status}</td><td data-label="${headers.provider_status}">${row.provider_status}</td>
<td data-label="${headers.value_brl}">${brl(row.value_cents)}</td><td data-label="${headers.paid_brl}">${brl(row.paid_cents)}</td>
<td data-label="${headers.credited}">${row.credited === null || row.currency === null ? '—' : formatAmount(row.currency, row.credited)}</td><td data-label="${headers.account}">${row.account_email ?? '—'}</td></tr>`)}</tbody></table>`)
  return layout({ ...page, title: 'reports' }, html`
<h1>${say('reports')}</h1>
<p>${say('reportsLead', { zone: view.zone })}</p>
<section aria-labelledby="fees"><h2 id="fees">${say('feesReport')}</h2>
${empty(view.fees, html`<table>${head(['month', 'currency', 'deposit_fees', 'withdrawal_fees', 'fees_returned', 'refund_payout_fees', 'net_fees', 'network_fees'])}<tbody>${view.fees.map((row) => html`<tr data-month="${row.month}" data-currency="${row.currency}"><td>${row.month}</td><td>${row.currency}</td>${money(row.currency, row.deposit)}${money(row.currency, row.withdrawal)}${money(row.currency, row.returned)}${money(row.currency, row.refundPayout)}<td class="num" data-net><b>${formatAmount(row.currency, row.net)}</b></td>${money(row.currency, row.network)}</tr>`)}</tbody></table>`)}
${csvLinks('fees')}
</section>
<section aria-labelledby="provider"><h2 id="provider">${say('providerReport')}</h2>
<h3>${say('providerPaidNotCredited')}</h3>
${mismatchTable(mismatches('provider_paid_not_credited'))}
<h3>${say('creditedNotPaid')}</h3>
${mismatchTable(mismatches('credited_not_paid_by_provider'))}
${csvLinks('provider')}
</section>
<section aria-labelledby="outflows"><h2 id="outflows">${say('outflowsReport')}</h2>
${empty(view.outflows, html`<table>${head(['month', 'currency', 'withdrawals_count', 'withdrawals_sent', 'withdrawals_returned', 'refunds_owed', 'refunds_paid', 'taken_from_accounts', 'med_losses'])}<tbody>${view.outflows.map((row) => html`<tr data-month="${row.month}" data-currency="${row.currency}"><td>${row.month}</td><td>${row.currency}</td><td class="num">${String(row.withdrawals)}</td>${money(row.currency, row.withdrawalsSent)}${money(row.currency, row.withdrawalsReturned)}${money(row.currency, row.refundsOwed)}${money(row.currency, row.refundsPaid)}${money(row.currency, row.takenFromAccounts)}${money(row.currency, row.medLosses)}</tr>`)}</tbody></table>`)}
${csvLinks('outflows')}
</section>
<section aria-labelledby="owed"><h2 id="owed">${say('owedReport')}</h2>
<table><thead><tr><th scope="col">${headers.currency}</th><th scope="col">${say('totalOwed')}</th><th scope="col">${say('totalDebts')}</th></tr></thead><tbody>${view.owed.totals.map((row) => html`<tr data-total="${row.currency}"><th scope="row">${row.currency}</th><td class="num"><b>${formatAmount(row.currency, row.owed)}</b></td><td class="num">${formatAmount(row.currency, row.debts)}</td></tr>`)}</tbody></table>
${empty(view.owed.rows, html`<table class="stack">${head(['account', 'currency', 'available', 'held', 'withdrawing', 'owed'])}<tbody>${view.owed.rows.map((row) => html`<tr data-account="${String(row.account_id)}"><td data-label="${headers.account}"><a href="${href(`/console/accounts/${row.account_id}`)}">${row.email}</a></td><td data-label="${headers.currency}">${row.currency}</td><td data-label="${headers.available}">${formatAmount(row.currency, row.available)}</td><td data-label="${headers.held}">${formatAmount(row.currency, row.held)}</td><td data-label="${headers.withdrawing}">${formatAmount(row.currency, row.withdrawing)}</td><td data-label="${headers.owed}" data-owed><b>${formatAmount(row.currency, row.owed)}</b></td></tr>`)}</tbody></table>`)}
${view.owed.more && html`<p class="guidance">${say('owedMore')}</p>`}
${csvLinks('owed')}
</section>`)
}

const fillZone = (text: string, zone: string) => text.replace('{zone}', zone)
