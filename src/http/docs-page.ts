// The human documentation at /docs, in Portuguese and English: a quick start, each merchant
// endpoint with a request, a response and a curl line, the sandbox, the webhook guide, and an
// anchor per error code, which is where every error's docs_url points.
import { chargeStatuses, defaultWebhookEvents, optInWebhookEvents, type ChargeStatus, type WebhookEventName } from '../domain/charge.ts'
import { errorAudience, errorCatalogue, type ErrorCode } from '../domain/errors.ts'
import { errorText } from '../i18n/errors.ts'
import { BalanceRecord, ChargeCreated, ChargeRecord, CreatePaymentBody, PaymentList, RedeliveryAccepted, WebhookBody, WebhookDeliveries } from './schemas.ts'

export const docsLanguages = ['pt-BR', 'en'] as const
export type DocsLanguage = (typeof docsLanguages)[number]

/** `?lang=` first, then the browser's preference; Portuguese for everyone else. */
export function docsLanguageFor(query: string | undefined, acceptLanguage: string | undefined): DocsLanguage {
  if (query === 'en' || query === 'pt-BR') return query
  const first = (acceptLanguage ?? '').split(',')[0]?.trim().toLowerCase() ?? ''
  return first.startsWith('en') ? 'en' : 'pt-BR'
}

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]!)
const json = (value: unknown) => escapeHtml(JSON.stringify(value, null, 2))
const exampleOf = (schema: object) => (schema as { examples: unknown[] }).examples[0]

type Text = Record<DocsLanguage, string>

const statusMeaning: Record<ChargeStatus, Text> = {
  waiting_payment: { 'pt-BR': 'QR emitido, ainda não pago; vale 10 minutos.', en: 'QR issued, not paid yet; valid 10 minutes.' },
  pending: { 'pt-BR': 'Pago; aguardando confirmações (ou o atraso do provedor).', en: 'Paid; waiting for confirmations (or the provider delay).' },
  under_review: { 'pt-BR': 'Pago; em análise de compliance do provedor.', en: "Paid; under the provider's compliance analysis." },
  security_hold: { 'pt-BR': 'Retido pelas nossas verificações antifraude; o valor está seguro; o suporte revisa.', en: 'Held by our anti-fraud checks; the value is safe; support reviews it.' },
  depix_sent: { 'pt-BR': 'Confirmado e creditado na conta.', en: 'Confirmed and credited to the account.' },
  canceled: { 'pt-BR': 'Cancelado pelo sistema ou pelo usuário.', en: 'Cancelled by the system or the user.' },
  expired: { 'pt-BR': 'Não pago em 10 minutos (um pagamento posterior ainda é processado).', en: 'Not paid within 10 minutes (a later payment is still processed).' },
  will_refund: { 'pt-BR': 'Será devolvido ao pagador.', en: 'Will be returned to the payer.' },
  refunded: { 'pt-BR': 'Devolvido ao pagador (também após uma MED).', en: 'Returned to the payer (also after a MED).' },
  after7d: { 'pt-BR': 'Pago por terceiro: creditado, mas retido 7 dias e liberado automaticamente.', en: 'Paid by a third party: credited but held 7 days, then released automatically.' },
  error: { 'pt-BR': 'Erro inesperado de processamento.', en: 'Unexpected processing error.' },
}

/** What each webhook event announces, in Markdown code spans: the OpenAPI document says the same. */
export const webhookEventMeaning: Record<WebhookEventName, Text> = {
  'payment.confirmed': { 'pt-BR': 'Pagamento confirmado e creditado (`depix_sent`, ou `after7d` quando um terceiro pagou e o crédito fica retido 7 dias).', en: 'The payment was confirmed and credited (`depix_sent`, or `after7d` when a third party paid and the credit is held 7 days).' },
  'balance.released': { 'pt-BR': 'Fim da retenção de 7 dias de um pagamento de terceiro: o crédito ficou disponível (`depix_sent`).', en: 'The 7-day hold of a third-party payment ended: the credit is available (`depix_sent`).' },
  'payment.expired': { 'pt-BR': 'O QR não foi pago em 10 minutos (`expired`); um pagamento posterior ainda é processado.', en: 'The QR was not paid within 10 minutes (`expired`); a later payment is still processed.' },
  'payment.held': { 'pt-BR': 'O pagamento chegou e foi retido pelas verificações antifraude para revisão (`security_hold`).', en: 'The payment arrived and is held by the anti-fraud checks for support review (`security_hold`).' },
  'payment.under_review': { 'pt-BR': 'O pagamento chegou e está em análise de compliance do provedor (`under_review`).', en: "The payment arrived and is under the provider's compliance analysis (`under_review`)." },
  'payment.refunded': { 'pt-BR': 'O pagamento será (`will_refund`) ou foi (`refunded`) devolvido ao pagador; nada foi creditado.', en: 'The payment will be (`will_refund`) or was (`refunded`) returned to the payer; nothing was credited.' },
  'payment.disputed': { 'pt-BR': 'Uma MED retomou um pagamento já creditado (`refunded`).', en: 'A refund dispute (MED) took back a payment that had been credited (`refunded`).' },
}

/** Markdown code spans as HTML, the rest escaped. */
const withCode = (markdown: string) => escapeHtml(markdown).replace(/`([^`]+)`/g, '<code>$1</code>')

/** What each code means for whoever meets it, in Portuguese; the English is the catalogue's own text. */

const text = {
  'pt-BR': {
    title: 'API do serviço de cobranças Pix',
    other: '<a href="?lang=en" hreflang="en">English</a>',
    intro: (base: string) =>
      `Endereço base <code>${base}</code>. Corpos em JSON; sucesso é HTTP 200. A descrição para máquinas é <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1); o SDK TypeScript está em <code>sdk/</code> no repositório.`,
    quickTitle: 'Início rápido (sandbox)',
    quickLead: 'No sandbox (o modo padrão de <code>npm start</code>) estes comandos criam uma conta, um token, uma cobrança, pagam o QR e leem o saldo:',
    conceptsTitle: 'Conceitos',
    concepts: [
      '<b>Conta recebedora</b>: <code>email</code> na criação nomeia a conta que recebe o dinheiro. Ela é criada na primeira cobrança; o titular entra na Carteira (<code>/wallet</code>) com esse e-mail para ver o saldo. Pode ser a sua própria conta ou a de outra pessoa.',
      '<b>Unidades</b>: <code>value</code> na requisição é em reais com ponto (<code>"10.50"</code>). <code>amount</code> e <code>value_in_cents</code> nas respostas e webhooks são centavos (<code>1050</code>), o valor da cobrança; <code>paidAmount</code> e <code>paid_in_cents</code> são o que o pagador de fato pagou, segundo o provedor (<code>null</code> antes do pagamento). Saldos: DEPIX em centavos, BTC em satoshis, USDt em milionésimos (10<sup>-6</sup>; o campo se chama <code>available_cents_USDt</code>), cada um ao lado do valor formatado.',
      '<b>Saldos</b>: <code>GET /api/get-balance</code> mostra o saldo disponível da conta dona do token. Cada depósito paga uma tarifa fixa de R$ 1,00; BTC e USDt são convertidos na cotação do momento (com 6 % e 2 % sobre a cotação). Pagamentos de terceiros ficam retidos 7 dias antes de entrar no saldo.',
      '<b>Limites</b>: sem <code>euid</code>, no máximo R$ 10,00 por cobrança; depois do primeiro pagamento, leia <code>payerEuid</code> e envie-o como <code>euid</code> (R$ 499,00 por cobrança, crescendo com o histórico).',
      '<b>Repetições seguras</b>: envie <code>Idempotency-Key</code> (o id do seu pedido). A mesma chave com o mesmo corpo devolve a mesma cobrança por 24 horas.',
    ],
    endpointsTitle: 'Endpoints do comerciante',
    request: 'Requisição',
    response: 'Resposta',
    sandboxTitle: 'Controles do sandbox',
    sandboxLead: 'Só existem no modo sandbox, sem token. O relógio do sandbox só anda para frente; ao avançar, rodam expirações, liberações de 7 dias, novas tentativas de webhook e os atrasos do provedor.',
    webhooksTitle: 'Webhooks',
    webhooksLead:
      'Informe <code>webhook_url</code> (e <code>webhook_secret</code>) na criação. Enviamos um POST com JSON compacto (não-ASCII como <code>\\uXXXX</code>). Com segredo, cada requisição traz <code>X-Webhook-Signature</code> (HMAC-SHA256 hexadecimal do corpo, com o segredo) e os cabeçalhos Standard Webhooks <code>webhook-id</code>, <code>webhook-timestamp</code> (hora real da tentativa) e <code>webhook-signature</code> (chave: a parte base64 de um segredo <code>whsec_</code>, senão os bytes UTF-8 do segredo). Deduplique por <code>webhook-id</code>. Qualquer 2xx em 15 s é sucesso; senão tentamos de novo por cerca de três dias; <code>410</code> encerra.',
    eventsLead: 'Por padrão só os dois primeiros eventos são enviados. Os outros são opcionais: liste-os em <code>webhook_events</code> na criação.',
    event: 'Evento', meaning: 'Significado', optIn: 'opcional', always: 'sempre',
    tsLead: 'Em TypeScript, com o SDK:',
    pyLead: 'Em Python, só com a biblioteca padrão (verifica as duas assinaturas e a janela de 5 minutos):',
    statusesTitle: 'Status',
    errorsTitle: 'Erros',
    errorsLead: 'Todo erro é <code>{"error", "code", "docs_url", "support_email", "request_id", "param"?}</code>. Decida pelo <code>code</code>, nunca pelo texto. <code>docs_url</code> aponta para a explicação do código abaixo.',
    audiences: { merchant: 'API do comerciante', wallet: 'Carteira', operator: 'Operadores e provedor' },
  },
  en: {
    title: 'Pix charge service API',
    other: '<a href="?lang=pt-BR" hreflang="pt-BR">Português</a>',
    intro: (base: string) =>
      `Base address <code>${base}</code>. Bodies are JSON; success is HTTP 200. The machine-readable description is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1); the TypeScript SDK is in <code>sdk/</code> in the repository.`,
    quickTitle: 'Quick start (sandbox)',
    quickLead: 'In the sandbox (the default mode of <code>npm start</code>) these commands open an account, issue a token, create a charge, pay its QR and read the balance:',
    conceptsTitle: 'Concepts',
    concepts: [
      '<b>Receiving account</b>: <code>email</code> at creation names the account that receives the money. It is opened on its first charge; its owner signs in to the Wallet (<code>/wallet</code>) with that e-mail to see the balance. It may be your own account or someone else\'s.',
      '<b>Units</b>: <code>value</code> in requests is BRL with a dot (<code>"10.50"</code>). <code>amount</code> and <code>value_in_cents</code> in answers and webhooks are centavos (<code>1050</code>), the charge value; <code>paidAmount</code> and <code>paid_in_cents</code> are what the payer actually paid, as the provider reported it (<code>null</code> before payment). Balances: DEPIX in centavos, BTC in satoshis, USDt in millionths (10<sup>-6</sup>; the field is named <code>available_cents_USDt</code>), each beside the formatted amount.',
      '<b>Balances</b>: <code>GET /api/get-balance</code> shows what is available to the account that owns the token. Each deposit pays a fixed R$ 1,00 fee; BTC and USDt are converted at the quote of the moment (6 % and 2 % over it). Third-party payments are held 7 days before they count.',
      '<b>Limits</b>: without <code>euid</code>, at most R$ 10,00 per charge; after the first payment read <code>payerEuid</code> and send it as <code>euid</code> (R$ 499,00 per charge, growing with history).',
      '<b>Safe retries</b>: send <code>Idempotency-Key</code> (your order id). The same key with the same body answers the same charge for 24 hours.',
    ],
    endpointsTitle: 'Merchant endpoints',
    request: 'Request',
    response: 'Response',
    sandboxTitle: 'Sandbox controls',
    sandboxLead: 'Sandbox mode only, no token. The sandbox clock only moves forward; moving it runs expiries, 7-day releases, webhook retries and provider delays that fall due.',
    webhooksTitle: 'Webhooks',
    webhooksLead:
      'Give <code>webhook_url</code> (and <code>webhook_secret</code>) at creation. We POST compact JSON (non-ASCII as <code>\\uXXXX</code>). With a secret, each request carries <code>X-Webhook-Signature</code> (hex HMAC-SHA256 of the body, keyed with the secret) and the Standard Webhooks headers <code>webhook-id</code>, <code>webhook-timestamp</code> (the real time of the attempt) and <code>webhook-signature</code> (key: the base64 part of a <code>whsec_</code> secret, else the secret\'s UTF-8 bytes). Deduplicate on <code>webhook-id</code>. Any 2xx within 15 s is success; otherwise we retry for about three days; <code>410</code> stops.',
    eventsLead: 'By default only the first two events are sent. The others are opt-in: list them in <code>webhook_events</code> at creation.',
    event: 'Event', meaning: 'Meaning', optIn: 'opt-in', always: 'always',
    tsLead: 'In TypeScript, with the SDK:',
    pyLead: 'In Python with only the standard library (checks both signatures and the 5-minute window):',
    statusesTitle: 'Statuses',
    errorsTitle: 'Errors',
    errorsLead: 'Every error is <code>{"error", "code", "docs_url", "support_email", "request_id", "param"?}</code>. Branch on <code>code</code>, never on the text. <code>docs_url</code> points at the code\'s explanation below.',
    audiences: { merchant: 'Merchant API', wallet: 'Wallet', operator: 'Operators and provider' },
  },
} satisfies Record<DocsLanguage, unknown>

type Endpoint = { id: string; method: string; path: string; summary: Text; body?: unknown; response: unknown; curl: (base: string) => string }

const endpoints: Endpoint[] = [
  {
    id: 'create-payment', method: 'POST', path: '/api/create-payment',
    summary: { 'pt-BR': 'Cria uma cobrança Pix (QR) de <code>value</code> reais para a conta de <code>email</code>, válida por 10 minutos.', en: 'Creates a Pix QR charge of <code>value</code> BRL for the account of <code>email</code>, valid 10 minutes.' },
    body: exampleOf(CreatePaymentBody), response: exampleOf(ChargeCreated),
    curl: (base) => `curl -s -X POST ${base}/api/create-payment -H "X-API-Token: $TOKEN" -H 'Content-Type: application/json' -H 'Idempotency-Key: order-1042' \\\n  -d '${JSON.stringify(exampleOf(CreatePaymentBody))}'`,
  },
  {
    id: 'get-payment', method: 'GET', path: '/api/get-payment/{id}',
    summary: { 'pt-BR': 'O registro de status de uma cobrança; <code>amount</code> em centavos.', en: "A charge's status record; <code>amount</code> in centavos." },
    response: exampleOf(ChargeRecord),
    curl: (base) => `curl -s ${base}/api/get-payment/$ID -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'payments', method: 'GET', path: '/api/payments?status=&created_from=&created_to=&limit=&cursor=',
    summary: { 'pt-BR': 'As cobranças do token, mais novas primeiro; <code>limit</code> 1–100 (20); devolva <code>next_cursor</code> como <code>cursor</code>.', en: "The token's charges, newest first; <code>limit</code> 1–100 (20); pass <code>next_cursor</code> back as <code>cursor</code>." },
    response: exampleOf(PaymentList),
    curl: (base) => `curl -s '${base}/api/payments?status=depix_sent&limit=50' -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'get-balance', method: 'GET', path: '/api/get-balance',
    summary: { 'pt-BR': 'O saldo disponível da conta dona do token, por moeda.', en: 'What is available to the account that owns the token, per currency.' },
    response: exampleOf(BalanceRecord),
    curl: (base) => `curl -s ${base}/api/get-balance -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'webhook-deliveries', method: 'GET', path: '/api/webhook-deliveries?payment_id=',
    summary: { 'pt-BR': 'Os eventos de webhook das suas cobranças, com cada tentativa.', en: 'Your charges\' webhook events, with every attempt.' },
    response: exampleOf(WebhookDeliveries),
    curl: (base) => `curl -s '${base}/api/webhook-deliveries?payment_id=$ID' -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'redeliver', method: 'POST', path: '/api/webhook-deliveries/{id}/redeliver',
    summary: { 'pt-BR': 'Reenvia um evento agora (mesmo corpo, mesmo <code>webhook-id</code>); sem corpo.', en: 'Sends an event again now (same body, same <code>webhook-id</code>); no body.' },
    response: exampleOf(RedeliveryAccepted),
    curl: (base) => `curl -s -X POST ${base}/api/webhook-deliveries/$EVENT_ID/redeliver -H "X-API-Token: $TOKEN"`,
  },
  {
    id: 'qr', method: 'GET', path: '/api/qr/{id}.png',
    summary: { 'pt-BR': 'A imagem do QR (pública, em cache; sem token).', en: 'The QR image (public, cacheable; no token).' },
    response: 'image/png',
    curl: (base) => `curl -s -o qr.png ${base}/api/qr/$ID.png`,
  },
]

const sandboxControls: Array<{ call: string; what: Text }> = [
  { call: 'POST /sandbox/accounts {email, tax_number, name?, purchase?}', what: { 'pt-BR': 'Abre uma conta; <code>purchase: "own"</code> (padrão) dá a ela um EUID.', en: 'Opens an account; <code>purchase: "own"</code> (default) gives it an EUID.' } },
  { call: 'POST /sandbox/accounts/{email}/tokens {kind?}', what: { 'pt-BR': 'Emite um token de API (revoga o anterior).', en: 'Issues an API token (revokes the previous one).' } },
  {
    call: 'POST /sandbox/payments/{id}/pay {payer_name, payer_tax_number, outcome?, paid_cents?, lost?}',
    what: {
      'pt-BR': 'O pagador paga; <code>outcome</code> escolhe o que o provedor relata (<code>under_review</code>, <code>will_refund</code>, <code>refunded</code>…); <code>paid_cents</code> paga outro valor, e <code>null</code> faz o provedor não informar o valor; <code>lost: true</code> muda o status no provedor sem enviar o webhook (a reconciliação o encontra).',
      en: 'The payer pays; <code>outcome</code> picks what the provider reports (<code>under_review</code>, <code>will_refund</code>, <code>refunded</code>…); <code>paid_cents</code> pays another amount, and <code>null</code> makes the provider leave the amount out; <code>lost: true</code> changes the provider\'s status without sending its webhook (reconciliation finds it).',
    },
  },
  { call: 'POST /sandbox/payments/{id}/med {principal_cents?}', what: { 'pt-BR': 'Uma MED (disputa de devolução) sobre o pagamento; <code>principal_cents</code> toma de volta só essa parte.', en: 'A MED (refund dispute) on the payment; <code>principal_cents</code> takes back only that part.' } },
  { call: 'POST /sandbox/clock {advance_seconds}', what: { 'pt-BR': 'Avança o relógio: 601 expira um QR; 604800 libera uma retenção de 7 dias.', en: 'Moves the clock: 601 expires a QR; 604800 releases a 7-day hold.' } },
  {
    call: 'PUT /sandbox/quotes {BTC, USDt, jump?, source?}',
    what: {
      'pt-BR': 'As cotações em reais que os tickers do sandbox respondem (até 6 casas). <code>jump: true</code> é um salto: um preço a mais de 10 % do último aceito não é usado, e o pagamento aguarda em <code>security_hold</code>. <code>source: "primary"</code> ou <code>"check"</code> move só um dos dois tickers.',
      en: 'The BRL prices the sandbox tickers answer (up to 6 decimals). <code>jump: true</code> is a jump: a price more than 10 % from the last accepted one is not used, and the payment waits in <code>security_hold</code>. <code>source: "primary"</code> or <code>"check"</code> moves one of the two tickers alone.',
    },
  },
  {
    call: 'PUT /sandbox/provider {deposit_rate_limited?, async_replies?}',
    what: {
      'pt-BR': 'O provedor falso responde 429 em <code>/deposit</code> (você recebe 503 <code>provider_unavailable</code> com Retry-After), ou responde de forma assíncrona, com o resultado no envelope (<code>enveloped</code>) ou sem (<code>bare</code>).',
      en: 'The fake provider answers 429 on <code>/deposit</code> (you get 503 <code>provider_unavailable</code> with Retry-After), or answers asynchronously, its result in the envelope (<code>enveloped</code>) or bare (<code>bare</code>).',
    },
  },
  { call: 'GET /sandbox/outbox?email=', what: { 'pt-BR': 'Os e-mails da Carteira quando não há SMTP.', en: "The Wallet's mail when no SMTP server is set." } },
]

const quickStart = (base: string) => `BASE=${base}
curl -s -X POST $BASE/sandbox/accounts -H 'Content-Type: application/json' \\
  -d '{"email":"loja@example.com","tax_number":"24681357928","name":"Maria Silva"}'
TOKEN=$(curl -s -X POST $BASE/sandbox/accounts/loja@example.com/tokens | node -pe 'JSON.parse(require("fs").readFileSync(0)).token')
ID=$(curl -s -X POST $BASE/api/create-payment -H "X-API-Token: $TOKEN" -H 'Content-Type: application/json' -H 'Idempotency-Key: order-1' \\
  -d '{"value":"10.00","email":"loja@example.com","tax_number":"13579246828","payer_name":"Ana Souza"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).id')
curl -s -X POST $BASE/sandbox/payments/$ID/pay -H 'Content-Type: application/json' -d '{"payer_name":"Ana Souza","payer_tax_number":"13579246828"}'
curl -s $BASE/api/get-payment/$ID -H "X-API-Token: $TOKEN"
curl -s $BASE/api/get-balance -H "X-API-Token: $TOKEN"`

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

export function renderDocs(lang: DocsLanguage, context: { baseUrl: string; supportEmail: string }): string {
  const t = text[lang]
  const base = escapeHtml(context.baseUrl)
  const endpointHtml = endpoints
    .map((endpoint) => `<section id="${endpoint.id}"><h3><code>${endpoint.method} ${escapeHtml(endpoint.path)}</code></h3><p>${endpoint.summary[lang]}</p>
<pre>${escapeHtml(endpoint.curl(context.baseUrl))}</pre>
${endpoint.body === undefined ? '' : `<p>${t.request}</p><pre>${json(endpoint.body)}</pre>`}<p>${t.response}</p><pre>${typeof endpoint.response === 'string' ? endpoint.response : json(endpoint.response)}</pre></section>`)
    .join('\n')
  const statuses = chargeStatuses.map((status) => `<tr id="status-${status}"><td><code>${status}</code></td><td>${statusMeaning[status][lang]}</td></tr>`).join('')
  const events = [...defaultWebhookEvents, ...optInWebhookEvents]
    .map((event) => `<tr id="event-${event}"><td><code>${event}</code></td><td>${(defaultWebhookEvents as readonly string[]).includes(event) ? t.always : t.optIn}</td><td>${withCode(webhookEventMeaning[event][lang])}</td></tr>`)
    .join('')
  const errorList = (audience: 'merchant' | 'wallet' | 'operator') =>
    `<h3>${t.audiences[audience]}</h3><table><tr><th>code</th><th>HTTP</th><th></th></tr>${(Object.keys(errorCatalogue) as ErrorCode[])
      .filter((code) => errorAudience(code) === audience)
      .map((code) => `<tr id="${code}"><td><a href="#${code}"><code>${code}</code></a></td><td>${errorCatalogue[code].status}</td><td>${escapeHtml(errorText(code, lang))}</td></tr>`)
      .join('')}</table>`
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${t.title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:62rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}code,pre{background:#f4f4f4}pre{padding:.8rem;overflow:auto}tr:target{background:#fff3c4}nav a{margin-right:.8rem}</style>
</head><body>
<p>${t.other}</p>
<h1>${t.title}</h1>
<p>${t.intro(base)} <a href="mailto:${escapeHtml(context.supportEmail)}">${escapeHtml(context.supportEmail)}</a></p>
<nav><a href="#quick-start">${t.quickTitle}</a><a href="#concepts">${t.conceptsTitle}</a><a href="#endpoints">${t.endpointsTitle}</a><a href="#sandbox">${t.sandboxTitle}</a><a href="#webhooks">${t.webhooksTitle}</a><a href="#statuses">${t.statusesTitle}</a><a href="#errors">${t.errorsTitle}</a></nav>
<h2 id="quick-start">${t.quickTitle}</h2><p>${t.quickLead}</p><pre>${escapeHtml(quickStart(context.baseUrl))}</pre>
<h2 id="concepts">${t.conceptsTitle}</h2><ul>${t.concepts.map((item) => `<li>${item}</li>`).join('')}</ul>
<h2 id="endpoints">${t.endpointsTitle}</h2>
<p><code>X-API-Token</code> · <code>Content-Type: application/json</code></p>
${endpointHtml}
<h2 id="sandbox">${t.sandboxTitle}</h2><p>${t.sandboxLead}</p>
<table>${sandboxControls.map((control) => `<tr><td><code>${escapeHtml(control.call)}</code></td><td>${control.what[lang]}</td></tr>`).join('')}</table>
<h2 id="webhooks">${t.webhooksTitle}</h2><p>${t.webhooksLead}</p>
<pre>${json(exampleOf(WebhookBody))}</pre>
<p>${t.eventsLead}</p><table><tr><th>${t.event}</th><th></th><th>${t.meaning}</th></tr>${events}</table>
<p>${t.tsLead}</p><pre id="typescript-webhook">${escapeHtml(typescriptSnippet)}</pre>
<p>${t.pyLead}</p><pre id="python-webhook">${escapeHtml(pythonWebhookSnippet)}</pre>
<h2 id="statuses">${t.statusesTitle}</h2><table>${statuses}</table>
<h2 id="errors">${t.errorsTitle}</h2><p>${t.errorsLead}</p>
${errorList('merchant')}${errorList('wallet')}${errorList('operator')}
</body></html>`
}
