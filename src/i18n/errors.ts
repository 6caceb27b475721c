// What each error code says to a person, in each language the service speaks: English is the
// catalogue's own text (domain/errors.ts); Portuguese is here. /docs and the Wallet's error pages
// read it, so a pt-BR page never shows an English error.
import { errorCatalogue, type ErrorCode } from '../domain/errors.ts'

export type Language = 'pt-BR' | 'en'

export const errorTextPt: Record<ErrorCode, string> = {
  token_missing: 'Falta o cabeçalho X-API-Token (não use Authorization: Bearer).',
  token_not_found: 'Este token de API não existe. Emita um novo na Carteira.',
  token_pending: 'Este token aguarda aprovação do suporte.',
  token_inactive: 'Token inativo, revogado, substituído ou expirado. Emita um novo na Carteira.',
  merchant_id_missing: 'Este token não tem merchantId. Emita um novo token na Carteira.',
  kyc_purchase_required: 'A conta precisa de uma compra confirmada paga com o CPF/CNPJ do titular antes de emitir um token.',
  kyc_identity_unidentified: 'A compra existe, mas o provedor não devolveu o EUID do pagador; só o suporte pode liberar.',
  invalid_json: 'O corpo não é JSON válido.',
  invalid_request: 'A requisição não é válida (campo desconhecido, tipo errado, URL malformada); veja param.',
  unsupported_media_type: 'Envie o corpo como application/json.',
  body_too_large: 'O corpo é grande demais.',
  url_too_long: 'Uma parte do caminho da URL é longa demais.',
  request_timeout: 'A requisição não chegou inteira a tempo; envie de novo.',
  headers_too_large: 'Os cabeçalhos da requisição são grandes demais.',
  value_invalid: 'value deve ser um valor em reais com ponto e no máximo duas casas, como "10.50".',
  value_out_of_range: 'value fora da faixa da moeda: 10.00 a 5000.00 (BTC: 20.00 a 5000.00).',
  email_invalid: 'email deve ser um endereço de e-mail válido.',
  swap_to_invalid: 'swap_to deve ser DEPIX, BTC ou USDt.',
  payer_identity_required: 'Envie euid ou tax_number para identificar o pagador.',
  tax_number_invalid: 'tax_number deve ser um CPF (11 dígitos) ou CNPJ (14 caracteres) válido.',
  euid_invalid: 'euid deve ser "EU" seguido de 15 dígitos.',
  euid_required: 'Cobranças acima de R$ 10,00 exigem o euid do pagador (tax_number sozinho não libera o limite).',
  euid_unknown: 'O provedor não conhece este euid.',
  payer_limit_exceeded: 'value acima do limite atual deste pagador; o limite cresce com o histórico.',
  name_invalid: 'Informe o nome completo (nome e sobrenome), de 3 a 100 caracteres.',
  csrf_invalid: 'O formulário expirou ou não veio da nossa página; recarregue e tente de novo.',
  wallet_code_invalid: 'O código está errado, já foi usado ou expirou; peça outro.',
  payer_name_required: 'O provedor exige o nome completo do pagador (payer_name) com tax_number.',
  payer_name_invalid: 'payer_name deve ser o nome completo do pagador, de 1 a 100 caracteres imprimíveis.',
  webhook_url_invalid: 'webhook_url deve ser uma URL http(s) absoluta (https em produção), sem credenciais.',
  webhook_secret_invalid: 'webhook_secret deve ter de 1 a 255 caracteres imprimíveis.',
  webhook_events_invalid: 'webhook_events deve listar nomes de eventos conhecidos, sem repetir, e exige webhook_url.',
  idempotency_key_invalid: 'Idempotency-Key deve ter de 1 a 255 caracteres ASCII imprimíveis.',
  end_user_blocked: 'Este pagador ou conta está bloqueado após uma MED anterior.',
  payment_not_found: 'Nenhuma cobrança com este id para esta conta.',
  webhook_delivery_not_found: 'Nenhuma entrega de webhook com este id para esta conta.',
  not_found: 'Não encontrado.',
  account_not_found: 'Nenhuma conta com este e-mail.',
  account_exists: 'Já existe uma conta com este e-mail e outro titular.',
  identity_taken: 'Este CPF/CNPJ ou EUID já pertence a outra conta.',
  idempotency_key_reused: 'Esta Idempotency-Key já foi usada com outro corpo.',
  idempotency_key_in_use: 'Uma requisição com esta Idempotency-Key ainda está em andamento; tente de novo em instantes.',
  provider_webhook_unauthorized: 'As credenciais do webhook do provedor não conferem.',
  token_not_pending: 'Este token não aguarda ativação.',
  payment_not_held: 'Esta cobrança não está em security_hold.',
  quote_unavailable: 'Não há cotação sã para esta moeda (a fonte não responde ou está longe do último preço aceito); defina uma antes de liberar.',
  quote_out_of_band: 'Este preço está longe do último aceito; envie force: true se o mercado de fato mudou.',
  paid_amount_required: 'O provedor nunca informou quanto chegou neste pagamento; envie paid_cents, o valor que chegou.',
  payment_taken_back: 'O provedor tomou este pagamento de volta (ou avisou que vai): não pode ser liberado, nem devolvido por nós.',
  payment_not_taken_back: 'O provedor não tomou este pagamento de volta; libere ou devolva.',
  refund_not_found: 'Nenhuma devolução com este id.',
  refund_not_owed: 'Esta devolução não está mais pendente.',
  ops_token_missing: 'Envie Authorization: Bearer <token de operador>.',
  ops_token_invalid: 'O token de operador não é válido.',
  rate_limited: 'Requisições demais; espere o tempo de Retry-After.',
  provider_rejected: 'O provedor recusou a cobrança; a mensagem diz por quê.',
  provider_unavailable: 'O provedor está indisponível; tente de novo após Retry-After com a mesma Idempotency-Key.',
  service_unavailable: 'O serviço não alcança seu banco de dados por um momento; tente de novo após Retry-After.',
  internal_error: 'Algo deu errado do nosso lado; foi registrado. Informe o request_id ao suporte.',
}

/** The error's text in `lang`. */
export function errorText(code: ErrorCode, lang: Language): string {
  return lang === 'pt-BR' ? errorTextPt[code] : errorCatalogue[code].message
}
