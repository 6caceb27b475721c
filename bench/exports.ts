// The statement export of a busy account's year (issue 52): 1,000,000 lines written into the
// ledger as the ledger writes them (500,000 DEPIX credits, each a credit and its fee), then
// downloaded from the Wallet as a signed-in owner would. Measures the time to the first byte, the
// rows a second and the service's memory while it streams (this process's resident set and heap,
// sampled every 50 ms). `npm run bench` runs it on its database; alone, `node bench/exports.ts`
// makes a database of its own and prints the figures.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { startBenchService, throwawayDatabase } from './harness.ts'

export type ExportFigures = {
  lines: number; firstByteMs: number; seconds: number; rowsPerSecond: number; bytes: number; rssBeforeMb: number; rssPeakMb: number; heapBeforeMb: number; heapPeakMb: number
  /** With --expose-gc: the heap still in use after a collection, at its highest while streaming (what the export holds, not its garbage). */
  retainedPeakMb: number | null
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10

/** A session of the Wallet for `email`, through its own sign-in (the code read from the sandbox outbox). */
async function walletSession(serviceUrl: string, email: string): Promise<string> {
  const jar = new Map<string, string>()
  const call = async (method: 'GET' | 'POST', path: string, form?: Record<string, string>) => {
    const response = await fetch(`${serviceUrl}${path}`, {
      method, redirect: 'manual',
      headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    })
    for (const set of response.headers.getSetCookie()) {
      const [pair] = set.split(';')
      const [name, value] = pair!.split('=') as [string, string]
      jar.set(name, value)
    }
    return response.text()
  }
  const csrfOf = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)![1]!
  await call('POST', '/wallet/sign-in', { _csrf: csrfOf(await call('GET', '/wallet')), email })
  const codePage = await call('GET', `/wallet/code?email=${encodeURIComponent(email)}`)
  const outbox = await (await fetch(`${serviceUrl}/sandbox/outbox?email=${encodeURIComponent(email)}`)).json() as { mails: Array<{ text: string }> }
  const code = /\b(\d{6})\b/.exec(outbox.mails[0]!.text)![1]!
  await call('POST', '/wallet/code', { _csrf: csrfOf(codePage), email, code })
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
}

/** Writes `credits` DEPIX credits of R$ 10,00 (each a credit and a R$ 1,00 fee line) on `email`'s account, with its running balance. */
async function writeHistory(pool: pg.Pool, email: string, credits: number): Promise<void> {
  await pool.query(`
    with account as (select id from accounts where email = $1),
    postings as (
      insert into ledger_postings (key, kind, created_at)
      select 'bench-export-' || n, 'credit', now() - interval '365 days' + n * interval '60 seconds' from generate_series(1, $2::int) as n
      returning id)
    insert into ledger_entries (posting_id, account_id, book, currency, amount)
    select postings.id, entry.account_id, entry.book, 'DEPIX', entry.amount
    from postings, account, lateral (values (null::int8, 'provider_clearing', -1000), (null::int8, 'fees', 100), (account.id, 'available', 900)) as entry(account_id, book, amount)`, [email, credits])
  await pool.query(`
    insert into account_balances (account_id, book, currency, amount)
    select id, 'available', 'DEPIX', $2::int8 * 900 from accounts where email = $1
    on conflict (account_id, book, currency) do update set amount = account_balances.amount + excluded.amount`, [email, credits])
  await pool.query('vacuum analyze ledger_postings, ledger_entries, account_balances')
}

/** Makes the history, signs in, downloads the statement and measures it. */
export async function measureExport(serviceUrl: string, databaseUrl: string, lines = 1_000_000): Promise<ExportFigures> {
  const email = `bench-export-${randomBytes(3).toString('hex')}@example.com`
  const signUp = await fetch(`${serviceUrl}/sandbox/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, tax_number: '52998224725' }) })
  if (!signUp.ok) throw new Error(`sandbox account: ${signUp.status} ${await signUp.text()}`)
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  try {
    await writeHistory(pool, email, lines / 2)
  } finally {
    await pool.end()
  }
  const cookie = await walletSession(serviceUrl, email)
  global.gc?.()
  const rssBefore = process.memoryUsage().rss
  const heapBefore = process.memoryUsage().heapUsed
  let rssPeak = rssBefore
  let heapPeak = heapBefore
  let retainedPeak: number | null = global.gc ? heapBefore : null
  let samples = 0
  const sampler = setInterval(() => {
    const usage = process.memoryUsage()
    rssPeak = Math.max(rssPeak, usage.rss)
    heapPeak = Math.max(heapPeak, usage.heapUsed)
    // Every second, what survives a full collection.
    if (global.gc && ++samples % 20 === 0) {
      global.gc()
      retainedPeak = Math.max(retainedPeak!, process.memoryUsage().heapUsed)
    }
  }, 50)
  const started = performance.now()
  let firstByte = 0
  let bytes = 0
  let newlines = 0
  try {
    const response = await fetch(`${serviceUrl}/wallet/statement.csv?flavour=standard`, { headers: { cookie } })
    if (!response.ok || response.body === null) throw new Error(`export: ${response.status}`)
    for await (const chunk of response.body) {
      if (firstByte === 0) firstByte = performance.now() - started
      bytes += chunk.byteLength
      for (const byte of chunk) if (byte === 10) newlines++
    }
  } finally {
    clearInterval(sampler)
  }
  const seconds = (performance.now() - started) / 1000
  const rows = newlines - 1
  if (rows !== lines) throw new Error(`the export has ${rows} lines, not ${lines}`)
  return { lines: rows, firstByteMs: Math.round(firstByte), seconds: Math.round(seconds * 10) / 10, rowsPerSecond: Math.round(rows / seconds), bytes, rssBeforeMb: mb(rssBefore), rssPeakMb: mb(rssPeak), heapBeforeMb: mb(heapBefore), heapPeakMb: mb(heapPeak), retainedPeakMb: retainedPeak === null ? null : mb(retainedPeak) }
}

if (import.meta.main) {
  const database = await throwawayDatabase('pixbench_export')
  const { service, url } = await startBenchService(database.url)
  try {
    process.stdout.write(`${JSON.stringify(await measureExport(url, database.url, Number(process.env.BENCH_EXPORT_LINES ?? 1_000_000)))}\n`)
  } finally {
    await service.close()
    await database.drop()
  }
}
