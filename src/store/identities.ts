import { sql, type Insertable, type Kysely } from 'kysely'
import { compiledOnce } from './database.ts'
import type { BlockKind, BlocksTable, Database, IdentityKind } from './schema.ts'

export type IdentityProbe = { email?: string | null; taxNumber?: string | null; euid?: string | null }

/**
 * The MED blocks on an e-mail, a tax number and an EUID, for a text built once: its parameters are
 * those three in that order, and an absent one is a null, which matches nothing.
 */
export function probedBlocks(db: Kysely<Database>) {
  return db.selectFrom('blocks').where((eb) => eb.or((['email', 'tax_number', 'euid'] as const).map((kind) =>
    eb.and([eb('kind', '=', sql.lit(kind)), eb('value', '=', '')]))))
}

/** Identity bindings (each EUID or CPF/CNPJ belongs to one account) and MED blocks. */
export function identitiesRepository(db: Kysely<Database>) {
  // Every create-payment for a new e-mail asks this: prepared once per connection.
  const blockedRows = compiledOnce(db, 'identity-blocks', () => probedBlocks(db).select('kind').distinct())
  // Every confirmation asks this under the payer's locks: one round trip for the three facts.
  // Its parameters: the blocks' three, then the EUID and the tax number whose bindings are read.
  const boundTo = (kind: IdentityKind) => db.selectFrom('identity_bindings').select('account_id').where('kind', '=', sql.lit(kind)).where('value', '=', '')
  const payerFactRows = compiledOnce(db, 'payer-facts', () => db.selectNoFrom([
    sql<BlockKind[]>`array(${probedBlocks(db).select('kind').distinct()})`.as('blocked'),
    boundTo('euid').as('euid_bound_to'),
    boundTo('tax_number').as('tax_number_bound_to'),
  ]))
  return {
    /** The kinds among the probe's identities that carry a prior MED. */
    async blockedKinds(probe: IdentityProbe): Promise<BlockKind[]> {
      if (!probe.email && !probe.taxNumber && !probe.euid) return []
      const rows = await blockedRows([probe.email || null, probe.taxNumber || null, probe.euid || null])
      return rows.map((row) => row.kind)
    },

    /** The probe's blocked kinds, and the accounts its EUID and tax number are bound to (undefined: unbound). */
    async payerFacts(probe: IdentityProbe): Promise<{ blocked: BlockKind[]; euidBoundTo: number | undefined; taxNumberBoundTo: number | undefined }> {
      const [row] = await payerFactRows([probe.email || null, probe.taxNumber || null, probe.euid || null, probe.euid || null, probe.taxNumber || null])
      return { blocked: row!.blocked, euidBoundTo: row!.euid_bound_to ?? undefined, taxNumberBoundTo: row!.tax_number_bound_to ?? undefined }
    },

    addBlock(values: Insertable<BlocksTable>): Promise<void> {
      return db.insertInto('blocks').values(values).execute().then(() => undefined)
    },

    async boundAccount(kind: IdentityKind, value: string): Promise<number | undefined> {
      const row = await db
        .selectFrom('identity_bindings')
        .select('account_id')
        .where('kind', '=', kind)
        .where('value', '=', value)
        .executeTakeFirst()
      return row?.account_id
    },

    /**
     * Inside a transaction: serializes everything that checks or binds these identities, whichever
     * charge or account it is for (docs/rules.md#payer-identity: two accounts are never credited
     * for one new identity at once). Transaction-scoped advisory locks, taken in one order so two
     * payers sharing identities cannot deadlock; released at commit.
     */
    async lock(identities: ReadonlyArray<{ kind: IdentityKind; value: string }>): Promise<void> {
      const keys = [...new Set(identities.map((identity) => `identity:${identity.kind}:${identity.value}`))].sort()
      if (keys.length === 0) return
      // One statement: PostgreSQL calls a volatile function of the output after the sort, so the
      // locks are taken in the keys' order.
      await sql`select pg_advisory_xact_lock(hashtextextended(key, 0)) from unnest(${keys}::text[]) with ordinality as locked(key, position) order by position`.execute(db)
    },

    /** Binds each one unbound, in one statement; an identity already bound keeps its first account. */
    async bind(identities: ReadonlyArray<{ kind: IdentityKind; value: string }>, accountId: number, now: Date): Promise<void> {
      if (identities.length === 0) return
      await db
        .insertInto('identity_bindings')
        .values(identities.map(({ kind, value }) => ({ kind, value, account_id: accountId, bound_at: now })))
        .onConflict((oc) => oc.columns(['kind', 'value']).doNothing())
        .execute()
    },
  }
}
