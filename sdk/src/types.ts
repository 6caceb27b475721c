// The merchant API's records under the names the SDK has always exported, each an alias of what
// openapi-typescript generated from /openapi.json (openapi.ts, rewritten by `npm run sdk:types`):
// the document is the one place a field is declared.
import type { components, operations, webhooks } from './openapi.ts'

type Schemas = components['schemas']

export type CreatePaymentRequest = Schemas['CreatePaymentRequest']
export type ChargeCreated = Schemas['ChargeCreated']
export type ChargeRecord = Schemas['ChargeRecord']
export type BalanceRecord = Schemas['BalanceRecord']
export type PaymentList = Schemas['PaymentList']
export type WebhookDeliveries = Schemas['WebhookDeliveries']
export type CreateWithdrawalRequest = Schemas['CreateWithdrawalRequest']
export type WithdrawalRecord = Schemas['WithdrawalRecord']
export type WithdrawalList = Schemas['WithdrawalList']
export type DestinationList = Schemas['DestinationList']
export type BalanceTransactionList = Schemas['BalanceTransactionList']
export type CreateRefundRequest = Schemas['CreateRefundRequest']
export type RefundRecord = Schemas['RefundRecord']
export type RefundList = Schemas['RefundList']
export type RefundStatus = RefundRecord['status']
/** The error body every failure answers with. */
export type ErrorBody = Schemas['Error']

export type Currency = NonNullable<CreatePaymentRequest['swap_to']>
export type ChargeStatus = ChargeRecord['status']
export type ListedCharge = PaymentList['payments'][number]
export type ListPaymentsQuery = NonNullable<operations['listPayments']['parameters']['query']>
export type WebhookDelivery = WebhookDeliveries['deliveries'][number]
export type WithdrawalStatus = WithdrawalRecord['status']
export type ListWithdrawalsQuery = NonNullable<operations['listWithdrawals']['parameters']['query']>
export type DestinationRecord = DestinationList['destinations'][number]
/** One line of the account's statement: a movement of the balance and the balance after it. */
export type BalanceTransaction = BalanceTransactionList['balance_transactions'][number]
export type BalanceTransactionType = BalanceTransaction['type']
export type ListBalanceTransactionsQuery = NonNullable<operations['listBalanceTransactions']['parameters']['query']>
/** `pix`: a Pix key of the owner's own CPF/CNPJ (DEPIX only); `liquid`: a Liquid address. */
export type DestinationType = DestinationRecord['type']

/** What every charge's webhook POSTs. */
export type WebhookEvent = Schemas['WebhookBody']
export type WebhookEventName = WebhookEvent['event']
/**
 * What a withdrawal's webhooks POST, on each change of its status. The document names the events
 * (its webhooks `withdrawal.<status>`); narrowed here so `event` tells this body from a charge's.
 */
export type WithdrawalWebhookEvent = Omit<Schemas['WithdrawalWebhookBody'], 'event'> & { event: Extract<keyof webhooks, `withdrawal.${string}`> }
/** Either webhook, told apart by `event`: for a URL that receives both. */
export type AnyWebhookEvent = WebhookEvent | WithdrawalWebhookEvent
