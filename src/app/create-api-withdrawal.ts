// POST /api/withdrawals: a withdrawal to a destination confirmed in the Wallet, confirmed as it is
// made (docs/rules.md#withdrawal-requests), under the one Idempotency-Key claim.
import type { CreateWithdrawalBody, WithdrawalRecord } from '../contract/api.ts'
import { parseWebhookTarget } from '../domain/charge-request.ts'
import type { WebhookDestinations } from '../webhooks/destination.ts'
import { withIdempotencyKey } from './idempotent-request.ts'
import { withdrawalRecord } from './list-withdrawals.ts'
import { requestHash } from '../request-hash.ts'
import { newWithdrawalId, requestWithdrawal, type RequestWithdrawalDeps } from './request-withdrawal.ts'

/** The idempotency fingerprint of an API withdrawal: the endpoint and its body. */
const withdrawalRequestHash = (body: unknown) => requestHash({ endpoint: 'withdrawals', body })

/**
 * An Idempotency-Key fixes the withdrawal's id before anything is written, so a retry after a lost
 * answer finds the same withdrawal and never makes a second.
 */
export async function createApiWithdrawal(
  deps: RequestWithdrawalDeps & { publicWebhooksOnly: boolean; webhookDestinations: WebhookDestinations; log?: { warn: (details: object, message: string) => void } },
  request: { accountId: number; tokenId: string; body: CreateWithdrawalBody; idempotencyKey: string | undefined; address: string },
): Promise<WithdrawalRecord> {
  const { webhookUrl, webhookSecret } = parseWebhookTarget(request.body, deps.publicWebhooksOnly)
  if (webhookUrl !== null) await deps.webhookDestinations.check(new URL(webhookUrl))
  const make = async (id: string) =>
    withdrawalRecord(deps.store, await requestWithdrawal(deps, {
      accountId: request.accountId, destinationId: request.body.destination_id, currency: request.body.currency, amount: request.body.amount,
      lang: 'pt-BR', via: 'api', webhookUrl, webhookSecret, actor: `token:${request.tokenId}`, address: request.address,
    }, id))
  return withIdempotencyKey(deps, {
    accountId: request.accountId, key: request.idempotencyKey, requestHash: withdrawalRequestHash(request.body), newId: newWithdrawalId,
    // A process that died holding the key may have made the withdrawal (one transaction): then it is the answer.
    findMade: async (id) => {
      const made = await deps.store.withdrawals.findForAccount(id, request.accountId)
      return made ? withdrawalRecord(deps.store, made) : undefined
    },
    make: async (id) => ({ answer: await make(id) }),
  })
}
