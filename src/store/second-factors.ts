import type { Kysely } from 'kysely'
import type { Database, FactorRemoval, SecondFactor } from './schema.ts'

/** Second factors, recovery codes (hashed) and pending removals, per holder (`account:<id>`, `operator:<e-mail>`). */
export function secondFactorsRepository(db: Kysely<Database>) {
  return {
    list(holder: string): Promise<SecondFactor[]> {
      return db.selectFrom('second_factors').selectAll().where('holder', '=', holder).orderBy('id').execute()
    },

    find(holder: string, id: number): Promise<SecondFactor | undefined> {
      return db.selectFrom('second_factors').selectAll().where('holder', '=', holder).where('id', '=', id).executeTakeFirst()
    },

    findByCredential(credentialId: string): Promise<SecondFactor | undefined> {
      return db.selectFrom('second_factors').selectAll().where('credential_id', '=', credentialId).executeTakeFirst()
    },

    /** Locks the holder's factors (the rows, in order): checks and removals of one holder take turns. */
    lockAll(holder: string): Promise<SecondFactor[]> {
      return db.selectFrom('second_factors').selectAll().where('holder', '=', holder).orderBy('id').forUpdate().execute()
    },

    async insert(values: {
      holder: string; kind: 'passkey' | 'totp'; name: string; now: Date
      passkey?: { credentialId: string; publicKey: string; counter: number; transports: string[] }
      totp?: { sealedSecret: string; lastStep: number }
    }): Promise<number> {
      const row = await db.insertInto('second_factors').values({
        holder: values.holder, kind: values.kind, name: values.name, created_at: values.now,
        credential_id: values.passkey?.credentialId ?? null, public_key: values.passkey?.publicKey ?? null, counter: values.passkey?.counter ?? null,
        transports: values.passkey ? JSON.stringify(values.passkey.transports) : null,
        totp_secret_sealed: values.totp?.sealedSecret ?? null, totp_last_step: values.totp?.lastStep ?? null,
      }).returning('id').executeTakeFirstOrThrow()
      return row.id
    },

    /** A passkey's new signature counter, only forward: false when another check took it first. */
    async usePasskey(id: number, counter: number, previous: number, now: Date): Promise<boolean> {
      const row = await db.updateTable('second_factors').set({ counter, last_used_at: now }).where('id', '=', id).where('counter', '=', previous).returning('id').executeTakeFirst()
      return row !== undefined
    },

    /** A TOTP time step taken: only a later step than the last one taken, so a code counts once. */
    async useTotpStep(id: number, step: number, sealedSecret: string, now: Date): Promise<boolean> {
      const row = await db.updateTable('second_factors').set({ totp_last_step: step, totp_secret_sealed: sealedSecret, last_used_at: now })
        .where('id', '=', id).where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)])).returning('id').executeTakeFirst()
      return row !== undefined
    },

    /** Every TOTP factor's sealed secret (to seal again under a new OPS_TOKEN). */
    async sealedTotp(): Promise<Array<{ id: number; totp_secret_sealed: string }>> {
      const rows = await db.selectFrom('second_factors').select(['id', 'totp_secret_sealed']).where('kind', '=', 'totp').orderBy('id').execute()
      return rows.map((row) => ({ id: row.id, totp_secret_sealed: row.totp_secret_sealed! }))
    },

    /** Replaces a sealed secret, unless it changed meanwhile (a check sealed it already). */
    async reseal(id: number, previous: string, sealed: string): Promise<boolean> {
      const row = await db.updateTable('second_factors').set({ totp_secret_sealed: sealed }).where('id', '=', id).where('totp_secret_sealed', '=', previous).returning('id').executeTakeFirst()
      return row !== undefined
    },

    async delete(holder: string, ids: readonly number[]): Promise<void> {
      if (ids.length === 0) return
      await db.deleteFrom('second_factors').where('holder', '=', holder).where('id', 'in', ids).execute()
    },

    async replaceRecoveryCodes(holder: string, hashes: readonly string[], now: Date): Promise<void> {
      await db.deleteFrom('recovery_codes').where('holder', '=', holder).execute()
      await db.insertInto('recovery_codes').values(hashes.map((code_hash) => ({ holder, code_hash, created_at: now }))).execute()
    },

    async deleteRecoveryCodes(holder: string): Promise<void> {
      await db.deleteFrom('recovery_codes').where('holder', '=', holder).execute()
    },

    unusedRecoveryCodes(holder: string) {
      return db.selectFrom('recovery_codes').select(['id', 'code_hash']).where('holder', '=', holder).where('used_at', 'is', null).execute()
    },

    /** Marks a recovery code used; false when another request used it first. */
    async useRecoveryCode(id: number, now: Date): Promise<boolean> {
      const row = await db.updateTable('recovery_codes').set({ used_at: now }).where('id', '=', id).where('used_at', 'is', null).returning('id').executeTakeFirst()
      return row !== undefined
    },

    openRemoval(holder: string): Promise<FactorRemoval | undefined> {
      return db.selectFrom('factor_removals').selectAll().where('holder', '=', holder).where('canceled_at', 'is', null).where('done_at', 'is', null).executeTakeFirst()
    },

    async insertRemoval(values: { holder: string; factorId: number | null; requestedBy: string; now: Date; effectiveAt: Date }): Promise<number> {
      const row = await db.insertInto('factor_removals').values({
        holder: values.holder, factor_id: values.factorId, requested_by: values.requestedBy, requested_at: values.now, effective_at: values.effectiveAt,
      }).returning('id').executeTakeFirstOrThrow()
      return row.id
    },

    async endRemoval(id: number, how: 'canceled' | 'done', now: Date): Promise<boolean> {
      const row = await db.updateTable('factor_removals').set(how === 'canceled' ? { canceled_at: now } : { done_at: now })
        .where('id', '=', id).where('canceled_at', 'is', null).where('done_at', 'is', null).returning('id').executeTakeFirst()
      return row !== undefined
    },
  }
}
