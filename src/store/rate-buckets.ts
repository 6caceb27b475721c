import { sql, type Kysely } from 'kysely'
import type { Database } from './schema.ts'

/**
 * Token buckets shared by every instance on the database. One statement refills a bucket for the
 * time since it was last touched and takes a token if one is there, under the row's lock, so
 * concurrent takers never overdraw it. Time is the database's (clock_timestamp()), one clock for
 * all instances whatever theirs say.
 */
export function rateBucketsRepository(db: Kysely<Database>) {
  return {
    /** Takes `count` tokens at once (all or none): 0 when taken, else the seconds until they will be there. */
    async take(key: string, limit: { perMinute: number; burst: number }, count = 1): Promise<number> {
      const perSecond = limit.perMinute / 60
      const refilled = sql<number>`least(${limit.burst}::float8, rate_buckets.tokens + extract(epoch from clock_timestamp() - rate_buckets.updated_at) * ${perSecond}::float8)`
      const taken = await sql<{ tokens: number }>`
        insert into rate_buckets (key, tokens, updated_at)
        select ${key}, ${limit.burst - count}::float8, clock_timestamp() where ${limit.burst}::float8 >= ${count}::float8
        on conflict (key) do update set tokens = ${refilled} - ${count}::float8, updated_at = clock_timestamp()
        where ${refilled} >= ${count}::float8
        returning tokens`.execute(db)
      if (taken.rows.length > 0) return 0
      const left = await sql<{ tokens: number }>`select ${refilled} as tokens from rate_buckets where key = ${key}`.execute(db)
      const tokens = Number(left.rows[0]?.tokens ?? 0)
      return Math.max(1, Math.ceil((count - tokens) / perSecond))
    },

    /** The tokens a bucket holds now, taking none: a full bucket when it was never used. */
    async available(key: string, limit: { perMinute: number; burst: number }): Promise<number> {
      const perSecond = limit.perMinute / 60
      const row = await sql<{ tokens: number }>`select least(${limit.burst}::float8, tokens + extract(epoch from clock_timestamp() - updated_at) * ${perSecond}::float8) as tokens from rate_buckets where key = ${key}`.execute(db)
      return row.rows.length === 0 ? limit.burst : Number(row.rows[0]!.tokens)
    },

    /** Drops buckets under `prefix` untouched for `idleSeconds`: refilled by then, a missing row is the same. */
    async forgetIdle(prefix: string, idleSeconds: number): Promise<void> {
      await sql`delete from rate_buckets where key like ${`${prefix}%`} and updated_at < clock_timestamp() - make_interval(secs => ${idleSeconds}::float8)`.execute(db)
    },
  }
}
