// The human documentation at /docs, in Portuguese and English: a quick start, each merchant
// endpoint (charges, refunds and withdrawals) with a request, a response and a curl line, the sandbox, the
// webhook guide, and an anchor per error code with what to do about it, which is where every
// error's docs_url points. Every code block has a copy button (docs-assets.ts).
import { chargeStatuses, defaultWebhookEvents, optInWebhookEvents } from '../domain/charge.ts'
import { errorAudience, errorCatalogue, type ErrorCode } from '../domain/errors.ts'
import { escapeText, href, html, raw, type HtmlValue } from '../html/template.ts'
import { catalogues, errorFix, errorText, fill, langOf, type Catalogue, type Lang } from '../i18n/catalogue.ts'
import {
  BalanceRecord, BalanceTransactionList, ChargeCreated, ChargeRecord, CreateWithdrawalBody, DestinationList, PaymentList, RedeliveryAccepted, WebhookBody, WebhookDeliveries, WithdrawalList,
  WithdrawalRecord, WithdrawalWebhookBody, CreatePaymentLinkBody, PaymentLinkList, PaymentLinkRecord, CreateRefundBody, RefundList, RefundRecord,
} from '../contract/api.ts'
import { CreatePaymentBody } from './schemas.ts'

/** `?lang=` first, then the browser's preference; Portuguese for everyone else. */
export function docsLanguageFor(query: string | undefined, acceptLanguage: string | undefined): Lang {
  if (query === 'en' || query === 'pt-BR') return query
  const first = (acceptLanguage ?? '').split(',')[0]?.trim().toLowerCase() ?? ''
  return langOf(first.startsWith('en') ? 'en' : undefined)
}

const exampleOf = (schema: object) => (schema as { examples: unknown[] }).examples[0]

/** Markdown code spans as HTML, the rest escaped (the webhook events' texts, which the OpenAPI document shares, and the errors' fixes). */
const withCode = (markdown: string) => html`${markdown.split('`').map((part, index) => (index % 2 === 1 ? html`<code>${part}</code>` : part))}`

type Endpoint = { id: keyof Catalogue['docs']['endpoints']; method: string; path: string; body?: unknown; response: unknown; curl: (base: string) => string }

const endpoints: Endpoint[] = [
  {
    id: 'create-payment', method: 'POST', path: '/api/create-payment',
    body: exampleOf(CreatePaymentBody), response: exampleOf(ChargeCreated),
    curl: (base) => `curl -s -X POST ${base}/api/create-payment -H "X-API-Token: $TOKEN" -H 'Content-Type: application/json' -H 'Idempotency-Key: order-1042' \\\n  -d '${JSON.stringify(exampleOf(CreatePaymentBody))}'`,
  },
  {
    id: 'get-payment', method: 'GET', path: '/api/get-payment/{id}',
    response: exampleOf(ChargeRecord),
    curl: (base) => `curl -s ${base}/api/get-payment/$ID -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'cancel-payment', method: 'POST', path: '/api/payments/{id}/cancel',
    response: { ...(exampleOf(ChargeRecord) as object), status: 'canceled', payerName: null, payerTaxNumber: null, paidAmount: null },
    curl: (base) => `curl -s -X POST ${base}/api/payments/$ID/cancel -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'payments', method: 'GET', path: '/api/payments?status=&created_from=&created_to=&limit=&cursor=',
    response: exampleOf(PaymentList),
    curl: (base) => `curl -s '${base}/api/payments?status=depix_sent&limit=50' -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'get-balance', method: 'GET', path: '/api/get-balance',
    response: exampleOf(BalanceRecord),
    curl: (base) => `curl -s ${base}/api/get-balance -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'balance-transactions', method: 'GET', path: '/api/balance-transactions?currency=&type=&created_from=&created_to=&limit=&cursor=',
    response: exampleOf(BalanceTransactionList),
    curl: (base) => `curl -s '${base}/api/balance-transactions?currency=DEPIX&created_from=2026-11-01&limit=100' -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'webhook-deliveries', method: 'GET', path: '/api/webhook-deliveries?payment_id=',
    response: exampleOf(WebhookDeliveries),
    curl: (base) => `curl -s "${base}/api/webhook-deliveries?payment_id=$ID" -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'redeliver', method: 'POST', path: '/api/webhook-deliveries/{id}/redeliver',
    response: exampleOf(RedeliveryAccepted),
    curl: (base) => `curl -s -X POST ${base}/api/webhook-deliveries/$EVENT_ID/redeliver -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'qr', method: 'GET', path: '/api/qr/{id}.png',
    response: 'image/png',
    curl: (base) => `curl -s -o qr.png ${base}/api/qr/$ID.png`,
  },
  {
    id: 'create-payment-link', method: 'POST', path: '/api/payment-links',
    body: exampleOf(CreatePaymentLinkBody), response: exampleOf(PaymentLinkRecord),
    curl: (base) => `curl -s -X POST ${base}/api/payment-links -H "X-API-Token: $TOKEN" -H 'Content-Type: application/json' \\\n  -d '${JSON.stringify(exampleOf(CreatePaymentLinkBody))}'`,
  },
  {
    id: 'payment-links', method: 'GET', path: '/api/payment-links · /api/payment-links/{id}',
    response: exampleOf(PaymentLinkList),
    curl: (base) => `curl -s ${base}/api/payment-links -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'deactivate-payment-link', method: 'POST', path: '/api/payment-links/{id}/deactivate',
    response: { ...(exampleOf(PaymentLinkRecord) as object), active: false },
    curl: (base) => `curl -s -X POST ${base}/api/payment-links/$LINK_ID/deactivate -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'create-refund', method: 'POST', path: '/api/payments/{id}/refunds',
    body: exampleOf(CreateRefundBody), response: exampleOf(RefundRecord),
    curl: (base) => `curl -s -X POST ${base}/api/payments/$ID/refunds -H "X-API-Token: $TOKEN" -H 'Content-Type: application/json' -H 'Idempotency-Key: return-1042' \\\n  -d '${JSON.stringify(exampleOf(CreateRefundBody))}'`,
  },
  {
    id: 'refunds', method: 'GET', path: '/api/payments/{id}/refunds',
    response: exampleOf(RefundList),
    curl: (base) => `curl -s ${base}/api/payments/$ID/refunds -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'get-refund', method: 'GET', path: '/api/refunds/{id}',
    response: { ...(exampleOf(RefundRecord) as object), status: 'completed' },
    curl: (base) => `curl -s ${base}/api/refunds/$REFUND_ID -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'create-withdrawal', method: 'POST', path: '/api/withdrawals',
    body: exampleOf(CreateWithdrawalBody), response: exampleOf(WithdrawalRecord),
    curl: (base) => `curl -s -X POST ${base}/api/withdrawals -H "X-API-Token: $TOKEN" -H 'Content-Type: application/json' -H 'Idempotency-Key: payout-77' \\\n  -d '${JSON.stringify(exampleOf(CreateWithdrawalBody))}'`,
  },
  {
    id: 'get-withdrawal', method: 'GET', path: '/api/withdrawals/{id}',
    response: exampleOf(WithdrawalRecord),
    curl: (base) => `curl -s ${base}/api/withdrawals/$WITHDRAWAL_ID -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'withdrawals', method: 'GET', path: '/api/withdrawals?status=&created_from=&created_to=&limit=&cursor=',
    response: exampleOf(WithdrawalList),
    curl: (base) => `curl -s '${base}/api/withdrawals?status=completed&limit=50' -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'withdrawal-destinations', method: 'GET', path: '/api/withdrawal-destinations',
    response: exampleOf(DestinationList),
    curl: (base) => `curl -s ${base}/api/withdrawal-destinations -H "X-API-Token: $TOKEN"`,
  },
]

/** A regtest address nobody owns (the key hash is twenty 0x07 bytes), ready to paste as a sandbox destination; README.md shows the same. */
export const SANDBOX_READY_ADDRESS = 'el1qqfumuen7l8wthtz45p3ftn58pvrs9xlumvkuu2xet8egzkcklqtespc8qurswpc8qurswpc8qurswpc8qurswnp99krjj0slq'

/** The sandbox's controls, each with its text in the catalogue (docs.sandboxControls). */
const sandboxControls: Array<{ id: keyof Catalogue['docs']['sandboxControls']; call: string }> = [
  { id: 'accounts', call: 'POST /sandbox/accounts {email, tax_number, name?, purchase?}' },
  { id: 'tokens', call: 'POST /sandbox/accounts/{email}/tokens {kind?}' },
  { id: 'pay', call: 'POST /sandbox/payments/{id}/pay {payer_name, payer_tax_number, outcome?, paid_cents?, lost?}' },
  { id: 'med', call: 'POST /sandbox/payments/{id}/med {principal_cents?}' },
  { id: 'clock', call: 'POST /sandbox/clock {advance_seconds}' },
  { id: 'quotes', call: 'PUT /sandbox/quotes {BTC, USDt, jump?, source?}' },
  { id: 'provider', call: 'PUT /sandbox/provider {deposit_rate_limited?, async_replies?}' },
  { id: 'outbox', call: 'GET /sandbox/outbox?email=' },
  { id: 'treasury', call: 'GET /sandbox/treasury · PUT /sandbox/treasury {DEPIX?, BTC?, USDt?}' },
  { id: 'lock', call: 'POST /sandbox/treasury/lock {currency?}' },
  { id: 'mine', call: 'POST /sandbox/treasury/mine {blocks?}' },
  { id: 'liquidAddress', call: 'GET /sandbox/liquid-address' },
  { id: 'payout', call: 'POST /sandbox/withdrawals/{id}/payout {outcome?: sent | error | refunded}' },
  { id: 'refundPayout', call: 'POST /sandbox/refunds/{id}/payout {outcome?: sent | error | refunded}' },
  { id: 'providerPayouts', call: 'PUT /sandbox/provider/payouts {ask_extra_cents?, refuse_keys?}' },
]

/**
 * Run twice against one sandbox by the tests, as printed: each run opens its own account and
 * payers (a payer belongs to the first account it pays), and an error answer stops the line.
 */
const quickStart = (base: string) => `BASE=${base}
RUN=$(date +%s)$$
cpf() { local d=() i n s; for i in 1 2 3 4 5 6 7 8 9; do d+=($((RANDOM % 10))); done
  for n in 10 11; do s=0; for i in "\${!d[@]}"; do s=$((s + d[i] * (n - i))); done; d+=($((s * 10 % 11 % 10))); done
  printf '%s' "\${d[@]}"; }
field() { jq -er ".$1 // error(tostring)"; }
SHOP=loja-$RUN@example.com
PAYER=$(cpf)
curl -sS -X POST $BASE/sandbox/accounts -H 'Content-Type: application/json' \\
  -d "{\\"email\\":\\"$SHOP\\",\\"tax_number\\":\\"$(cpf)\\",\\"name\\":\\"Maria Silva\\"}" | field euid
TOKEN=$(curl -sS -X POST $BASE/sandbox/accounts/$SHOP/tokens | field token)
ID=$(curl -sS -X POST $BASE/api/create-payment -H "X-API-Token: $TOKEN" -H 'Content-Type: application/json' -H "Idempotency-Key: order-$RUN" \\
  -d "{\\"value\\":\\"10.00\\",\\"email\\":\\"$SHOP\\",\\"tax_number\\":\\"$PAYER\\",\\"payer_name\\":\\"Ana Souza\\"}" | field id)
curl -sS -X POST $BASE/sandbox/payments/$ID/pay -H 'Content-Type: application/json' \\
  -d "{\\"payer_name\\":\\"Ana Souza\\",\\"payer_tax_number\\":\\"$PAYER\\"}" | field status
curl -sS $BASE/api/get-payment/$ID -H "X-API-Token: $TOKEN" | jq .
curl -sS $BASE/api/get-balance -H "X-API-Token: $TOKEN" | jq .`

const typescriptSnippet = `import { verifyWebhook, WebhookVerificationError } from '@pix-charge/sdk'

// rawBody: the bytes received, before any JSON parsing; headers: the request's headers.
try {
  const event = verifyWebhook(rawBody, headers, process.env.PIX_WEBHOOK_SECRET!)
  if (event.event === 'payment.confirmed') markOrderPaid(event.payment_id, event.value_in_cents)
  // answer 2xx
} catch (error) {
  if (error instanceof WebhookVerificationError) { /* answer 400 */ } else throw error
}`

/** Run by the tests against a real delivery: keep it working as printed. */
export const pythonWebhookSnippet = `import base64, hashlib, hmac, json, time

def verify_webhook(raw_body: bytes, headers: dict, secret: str, tolerance: int = 300) -> dict:
    """The event, if the webhook is authentic and recent; raises ValueError otherwise."""
    headers = {k.lower(): v for k, v in headers.items()}
    msg_id, timestamp = headers["webhook-id"], headers["webhook-timestamp"]
    if abs(time.time() - int(timestamp)) > tolerance:
        raise ValueError("webhook-timestamp outside the tolerance")
    key = base64.b64decode(secret[6:]) if secret.startswith("whsec_") else secret.encode()
    signed = msg_id.encode() + b"." + timestamp.encode() + b"." + raw_body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    given = [s.split(",", 1)[1] for s in headers["webhook-signature"].split(" ") if s.startswith("v1,")]
    if not any(hmac.compare_digest(expected, s) for s in given):
        raise ValueError("webhook-signature does not match")
    spec = hmac.new(secret.encode(), raw_body, hashlib.sha256).hexdigest()
    if "x-webhook-signature" in headers and not hmac.compare_digest(spec, headers["x-webhook-signature"]):
        raise ValueError("X-Webhook-Signature does not match")
    return json.loads(raw_body)`

export function renderDocs(lang: Lang, context: { baseUrl: string; supportEmail: string }): string {
  const t = catalogues[lang].docs
  // The docs texts are HTML we write (code spans, links); the values placed in them are escaped.
  const trusted = (text: string, values: Record<string, string> = {}) => raw(fill(text, Object.fromEntries(Object.entries(values).map(([name, value]) => [name, escapeText(value)]))))
  const json = (value: unknown) => JSON.stringify(value, null, 2)
  // Shell blocks are marked: a test runs or checks every one of them.
  const code = (text: string, options: { id?: string; shell?: boolean } = {}) =>
    html`<div class="code"><button type="button" data-copied="${t.copied}" hidden>${t.copy}</button><pre${options.id === undefined ? '' : html` id="${options.id}"`}${options.shell ? html` class="sh"` : ''}>${text}</pre></div>`
  const table = (rows: HtmlValue, className?: string) => html`<div class="table"><table${className === undefined ? '' : html` class="${className}"`}>${rows}</table></div>`
  const endpointHtml = endpoints.map((endpoint) => html`<section id="${endpoint.id}"><h3><code>${endpoint.method} ${endpoint.path}</code></h3><p>${trusted(t.endpoints[endpoint.id])}</p>
${code(endpoint.curl(context.baseUrl), { shell: true })}
${endpoint.body !== undefined && html`<p>${t.request}</p>${code(json(endpoint.body))}`}<p>${t.response}</p>${code(typeof endpoint.response === 'string' ? endpoint.response : json(endpoint.response))}</section>
`)
  const statuses = chargeStatuses.map((status) => html`<tr id="status-${status}"><td><code>${status}</code></td><td>${trusted(t.statusMeaning[status])}</td></tr>`)
  const events = [...defaultWebhookEvents, ...optInWebhookEvents].map(
    (event) => html`<tr id="event-${event}"><td><code>${event}</code></td><td>${(defaultWebhookEvents as readonly string[]).includes(event) ? t.always : t.optIn}</td><td>${withCode(t.eventMeaning[event])}</td></tr>`,
  )
  const errorList = (audience: 'merchant' | 'wallet' | 'operator') =>
    html`<h3>${t.audiences[audience]}</h3>${table(html`<tr><th>code</th><th>HTTP</th><th>${t.errorCause}</th><th>${t.errorFix}</th></tr>${(Object.keys(errorCatalogue) as ErrorCode[])
      .filter((code) => errorAudience(code) === audience)
      .map((code) => html`<tr id="${code}"><td><a href="#${code}"><code>${code}</code></a></td><td>${errorCatalogue[code].status}</td><td data-label="${t.errorCause}">${errorText(code, lang)}</td><td data-label="${t.errorFix}">${withCode(errorFix(code, lang))}</td></tr>`)}`, 'errors')}`
  return html`<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${t.title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/assets/docs.css">
<script src="/docs/assets/docs.js" defer></script>
</head><body>
<p><a href="?lang=${lang === 'en' ? 'pt-BR' : 'en'}" hreflang="${lang === 'en' ? 'pt-BR' : 'en'}">${catalogues[lang].otherLanguage}</a></p>
<h1>${t.title}</h1>
<p>${trusted(t.intro, { base: context.baseUrl })} <a href="${href(`mailto:${context.supportEmail}`)}">${context.supportEmail}</a></p>
<nav><a href="#quick-start">${t.quickTitle}</a><a href="#concepts">${t.conceptsTitle}</a><a href="#endpoints">${t.endpointsTitle}</a><a href="#sandbox">${t.sandboxTitle}</a><a href="#webhooks">${t.webhooksTitle}</a><a href="#statuses">${t.statusesTitle}</a><a href="#errors">${t.errorsTitle}</a></nav>
<h2 id="quick-start">${t.quickTitle}</h2><p>${trusted(t.quickLead)}</p>${code(quickStart(context.baseUrl), { id: 'quick-start-script', shell: true })}
<h2 id="concepts">${t.conceptsTitle}</h2><ul>${t.concepts.map((item) => html`<li>${trusted(item)}</li>`)}</ul>
<h2 id="endpoints">${t.endpointsTitle}</h2>
<p><code>X-API-Token</code> · <code>Content-Type: application/json</code></p>
${endpointHtml}
<h2 id="sandbox">${t.sandboxTitle}</h2><p>${t.sandboxLead}</p>
${table(sandboxControls.map((control) => html`<tr><td><code>${control.call}</code></td><td>${trusted(t.sandboxControls[control.id])}</td></tr>`))}
<h3 id="sandbox-withdrawal">${t.withdrawalWalkTitle}</h3><ol>${t.withdrawalWalkSteps.map((step) => html`<li>${trusted(step, { address: SANDBOX_READY_ADDRESS })}</li>`)}</ol>
<h3 id="sandbox-refund">${t.refundWalkTitle}</h3><ol>${t.refundWalkSteps.map((step) => html`<li>${trusted(step)}</li>`)}</ol>
<h2 id="webhooks">${t.webhooksTitle}</h2><p>${trusted(t.webhooksLead)}</p>
${code(json(exampleOf(WebhookBody)))}
<p>${trusted(t.eventsLead)}</p>${table(html`<tr><th>${t.event}</th><th></th><th>${t.meaning}</th></tr>${events}`)}
<p id="withdrawal-webhooks">${trusted(t.withdrawalEventsLead)}</p>${code(json(exampleOf(WithdrawalWebhookBody)))}
<p>${t.tsLead}</p>${code(typescriptSnippet, { id: 'typescript-webhook' })}
<p>${t.pyLead}</p>${code(pythonWebhookSnippet, { id: 'python-webhook' })}
<h2 id="statuses">${t.statusesTitle}</h2>${table(statuses)}
<h2 id="errors">${t.errorsTitle}</h2><p>${trusted(t.errorsLead)}</p>
${errorList('merchant')}${errorList('wallet')}${errorList('operator')}
</body></html>`.toString()
}
