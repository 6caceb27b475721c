// An owner adds a withdrawal destination in the Wallet (never through the API: a leaked token
// cannot add one): a Pix key of the owner's own CPF/CNPJ, or a Liquid address of the treasury's
// network (matched by its script, so its confidential and unconfidential forms are one). It is
// confirmed by an e-mail code; the same e-mail carries a link that cancels it.
import { createHash, randomBytes } from 'node:crypto'
import { DomainError } from '../domain/errors.ts'
import { parseTaxNumber } from '../domain/tax-number.ts'
import { catalogues, fill, type Lang } from '../i18n/catalogue.ts'
import type { WithdrawalDestination } from '../store/schema.ts'
import { isBlindingKeyValid, parseLiquidAddress, type LiquidNetwork } from '../treasury/liquid-address.ts'
import { issueActionCode } from './action-codes.ts'
import type { WithdrawalDeps } from './move-money-out.ts'
import { destinationLabel } from './withdrawal-records.ts'

export type DestinationDeps = WithdrawalDeps & { network: LiquidNetwork; cooldownMs: number }

export const hashCancelToken = (token: string) => createHash('sha256').update(`destination-cancel\n${token}`).digest('hex')

export async function addDestination(
  deps: DestinationDeps,
  request: { accountId: number; type: 'pix' | 'liquid'; value: string; label: string | null; lang: Lang; address: string },
): Promise<WithdrawalDestination> {
  const account = await deps.store.accounts.findById(request.accountId)
  if (!account?.owner_tax_number) throw new DomainError('withdrawal_not_allowed')
  let value: string
  let scriptHex: string | null = null
  if (request.type === 'pix') {
    const taxNumber = parseTaxNumber(request.value)
    if (!taxNumber || taxNumber.value !== account.owner_tax_number) throw new DomainError('destination_invalid', { param: 'pix_key', message: 'A Pix key must be the account owner\'s own CPF/CNPJ.' })
    value = taxNumber.value
  } else {
    const parsed = parseLiquidAddress(request.value, deps.network)
    if (!parsed) throw new DomainError('destination_invalid', { param: 'address' })
    // A valid encoding may carry a blinding key that is no point on the curve: the node would take
    // the address and then never pay it, so such a destination is refused now (docs/treasury.md).
    if (parsed.blindingKeyHex !== null && !isBlindingKeyValid(parsed.blindingKeyHex)) throw new DomainError('destination_unpayable', { param: 'address' })
    value = parsed.address
    scriptHex = parsed.scriptHex
  }
  const label = request.label === null ? null : request.label.trim().replace(/\s+/g, ' ').slice(0, 40) || null
  const now = deps.clock.now()
  return deps.store.transaction(async (store) => {
    await store.accounts.lockById(account.id)
    let destination = await store.withdrawals.findLiveDestination(account.id, request.type, scriptHex ?? value)
    if (destination && destination.state !== 'unconfirmed') throw new DomainError('destination_exists')
    const cancelToken = randomBytes(24).toString('base64url')
    if (destination) {
      // Asked again before it was confirmed: a new code, and a new cancel link, for the same destination.
      destination = (await store.withdrawals.updateDestination(destination.id, 'unconfirmed', { cancel_token_hash: hashCancelToken(cancelToken), label }))!
    } else {
      destination = (await store.withdrawals.insertDestination({
        id: `dst_${randomBytes(12).toString('hex')}`, account_id: account.id, type: request.type, value, script_hex: scriptHex, label, state: 'unconfirmed',
        created_at: now, confirmed_at: null, usable_at: null, canceled_at: null, cancel_token_hash: hashCancelToken(cancelToken),
      }))!
    }
    const texts = catalogues[request.lang].mail
    const values = { destination: destinationLabel(destination), hours: String(Math.round(deps.cooldownMs / 3_600_000)), cancelUrl: `${deps.baseUrl}/wallet/destinations/cancel/${cancelToken}` }
    await issueActionCode({ store, mailSeal: deps.mailSeal }, {
      email: account.email, purpose: 'destination', subject: destination.id, now, address: request.address,
      mail: (code) => ({ subject: fill(texts.destinationCodeSubject, { ...values, code }), text: fill(texts.destinationCodeText, { ...values, code }) }),
    })
    await store.audit.record({ actor: `owner:${account.email}`, action: 'destination.add', subject: destination.id, details: { type: destination.type }, at: now })
    return destination
  })
}
