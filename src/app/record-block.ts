// Support records a prior MED by hand: the e-mail, tax number or EUID is blocked from then on.
import type { Clock } from '../clock.ts'
import { DomainError } from '../domain/errors.ts'
import { isEuid, parseTaxNumber } from '../domain/tax-number.ts'
import type { Store } from '../store/store.ts'

export async function recordBlock(
  deps: { store: Store; clock: Clock },
  request: { email?: string; taxNumber?: string; euid?: string; reason: string; actor: string },
) {
  const identities: Array<['email' | 'tax_number' | 'euid', string]> = []
  if (request.email !== undefined) identities.push(['email', request.email.toLowerCase()])
  if (request.taxNumber !== undefined) {
    const parsed = parseTaxNumber(request.taxNumber)
    if (!parsed) throw new DomainError('tax_number_invalid', { param: 'tax_number' })
    identities.push(['tax_number', parsed.value])
  }
  if (request.euid !== undefined) {
    if (!isEuid(request.euid)) throw new DomainError('euid_invalid', { param: 'euid' })
    identities.push(['euid', request.euid])
  }
  if (identities.length === 0) throw new DomainError('invalid_request', { message: 'Name at least one of email, tax_number, euid.' })
  const now = deps.clock.now()
  await deps.store.transaction(async (store) => {
    for (const [kind, value] of identities) {
      await store.identities.addBlock({ kind, value, reason: request.reason, charge_id: null, created_by: request.actor, created_at: now })
    }
    await store.audit.record({ actor: request.actor, action: 'block.add', subject: identities.map(([kind]) => kind).join(','), details: { reason: request.reason, identities: identities.map(([kind]) => kind) }, at: now })
  })
  return { blocked: identities.map(([kind]) => kind) }
}
