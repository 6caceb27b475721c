// The deployment's last check of the provider, shared by every instance (docs/operations.md,
// "Readiness"). An instance claims the next check in one statement, so of several instances
// whose readiness finds the check due at the same moment, one asks the provider.
import { sql, type Kysely } from 'kysely'
import type { ProviderCheck } from '../domain/provider-check.ts'
import type { Database } from './schema.ts'

const PING = 'ping'

export function providerChecksRepository(db: Kysely<Database>) {
  return {
    /** The last answer the deployment had from the provider's /ping; null before the first. */
    async last(): Promise<ProviderCheck | null> {
      const row = await db.selectFrom('provider_checks').select(['checked_at', 'ok', 'detail']).where('name', '=', PING).executeTakeFirst()
      if (!row || row.checked_at === null || row.ok === null) return null
      return { checkedAt: row.checked_at, ok: row.ok, detail: row.detail }
    },

    /**
     * Claims the next check: true when it is this caller's to make, i.e. the last one is at least
     * `everyMs` old (or there is none) and nobody claimed it in the last `claimMs`.
     */
    async claim(now: Date, everyMs: number, claimMs: number): Promise<boolean> {
      const due = new Date(now.getTime() - everyMs)
      const claimGone = new Date(now.getTime() - claimMs)
      const claimed = await sql<{ name: string }>`
        insert into provider_checks (name, claimed_at) values (${PING}, ${now})
        on conflict (name) do update set claimed_at = excluded.claimed_at
        where (provider_checks.checked_at is null or provider_checks.checked_at <= ${due})
          and (provider_checks.claimed_at is null or provider_checks.claimed_at <= ${claimGone})
        returning name`.execute(db)
      return claimed.rows.length > 0
    },

    /** Records what the provider answered, and ends the claim. */
    async record(check: ProviderCheck): Promise<void> {
      await db.insertInto('provider_checks')
        .values({ name: PING, checked_at: check.checkedAt, ok: check.ok, detail: check.detail, claimed_at: null })
        .onConflict((conflict) => conflict.column('name').doUpdateSet({ checked_at: check.checkedAt, ok: check.ok, detail: check.detail, claimed_at: null }))
        .execute()
    },
  }
}
