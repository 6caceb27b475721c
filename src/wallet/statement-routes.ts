// The Wallet's Extrato and CSV exports (docs/statements.md): the statement of a month or a range
// of the owner's days, its totals, and the statement, charges and withdrawals as CSV in the
// Brazilian spreadsheet flavour (default) or the standard one. Registered inside walletRoutes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { chargesExport, csvStream, statementExport, withdrawalsExport, type CsvExport } from '../app/exports.ts'
import { ownerAccount, setOwnerTimeZone } from '../app/owner-account.ts'
import { statementFilter, statementView } from '../app/statement.ts'
import { DomainError } from '../domain/errors.ts'
import { csvFlavourOf, DEFAULT_TIME_ZONE, isTimeZone, localDateTimeText, periodOf, wallClock, type CsvFlavour, type Period } from '../domain/export-format.ts'
import type { Currency } from '../domain/money.ts'
import type { WalletDeps } from './deps.ts'
import type { WalletPageHelpers } from './withdrawal-routes.ts'
import { statementPage, type ExtratoQuery } from './statement-pages.ts'

type PeriodQuery = { month?: unknown; from?: unknown; to?: unknown; currency?: unknown; flavour?: unknown }

/** A query value as text: a repeated or over-long one is a bad request. */
function text(value: unknown, name: string): string {
  if (value === undefined) return ''
  if (typeof value !== 'string' || value.length > 20) throw new DomainError('invalid_request', { param: name, message: `${name} is not valid.` })
  return value
}

export function registerStatementPages(app: FastifyInstance, deps: WalletDeps, helpers: Pick<WalletPageHelpers, 'pageOf' | 'html' | 'accountOf' | 'field' | 'signedIn' | 'protectSignedIn'>): void {
  const { pageOf, html, accountOf, field, signedIn, protectSignedIn } = helpers

  const ownerOf = async (request: FastifyRequest) => {
    const account = await ownerAccount(deps, accountOf(request)!)
    return { id: account.id, timeZone: account.time_zone || DEFAULT_TIME_ZONE }
  }
  const periodFrom = (query: PeriodQuery, timeZone: string): { period: Period; raw: ExtratoQuery } => {
    const raw = { month: text(query.month, 'month'), from: text(query.from, 'from'), to: text(query.to, 'to'), currency: text(query.currency, 'currency') }
    const period = periodOf(raw, timeZone)
    if ('invalid' in period) throw new DomainError('invalid_request', { param: period.invalid, message: `${period.invalid} must be a date (YYYY-MM-DD) or a month (YYYY-MM).` })
    const filter = statementFilter({ currency: raw.currency })
    return { period, raw: { month: raw.month, from: raw.from, to: raw.to, currency: filter.currency } }
  }
  const flavourFrom = (query: PeriodQuery): CsvFlavour => {
    const flavour = csvFlavourOf(text(query.flavour, 'flavour'))
    if (flavour === null) throw new DomainError('invalid_request', { param: 'flavour', message: 'flavour is br or standard.' })
    return flavour
  }
  const sendCsv = (reply: FastifyReply, name: string, file: CsvExport, flavour: CsvFlavour) =>
    reply.type('text/csv; charset=utf-8').header('cache-control', 'no-store').header('content-disposition', `attachment; filename="${name}.csv"`).send(csvStream(file, flavour))
  const fileName = (base: string, raw: ExtratoQuery) => [base, raw.month || [raw.from, raw.to].filter(Boolean).join('_')].filter(Boolean).join('-')

  app.get<{ Querystring: PeriodQuery }>('/wallet/statement', signedIn, async (request, reply) => {
    const owner = await ownerOf(request)
    // No period chosen: the current month of the owner's calendar.
    const query = request.query.month || request.query.from || request.query.to ? request.query : { ...request.query, month: currentMonth(deps.clock.now(), owner.timeZone) }
    const { period, raw } = periodFrom(query, owner.timeZone)
    const view = await statementView(deps, owner.id, { currency: raw.currency, type: null, from: period.from, to: period.to }, 500)
    const page = { ...pageOf(request, reply), timeZone: owner.timeZone }
    const csvQuery = new URLSearchParams(Object.entries({ month: raw.month, from: raw.from, to: raw.to, currency: raw.currency ?? '' }).filter(([, value]) => value !== '')).toString()
    return html(reply, statementPage(page, {
      query: raw, zone: owner.timeZone, zones: timeZones, more: view.more, csvQuery,
      // Without a currency chosen, the currencies the account holds or moved in the period.
      summary: [...view.summary].filter(([currency, sums]) => raw.currency !== null || currency === 'DEPIX' || sums.opening !== 0 || sums.in !== 0 || sums.out !== 0 || sums.closing !== 0 || sums.availableClosing !== 0)
        .map(([currency, sums]) => ({ currency, ...sums })),
      lines: view.lines.map((line) => ({
        id: `bt_${line.postingId}_${line.part}`, type: line.type, currency: line.currency, amount: line.amount, available: line.available, balanceAfter: line.balanceAfter,
        chargeId: line.chargeId, withdrawalId: line.withdrawalId, at: line.createdAt, local: localDateTimeText(line.createdAt, owner.timeZone, page.lang === 'en' ? 'standard' : 'br'),
      })),
    }))
  })

  // The owner's time zone: the Extrato, the exports and the money views read their dates in it.
  app.post('/wallet/time-zone', protectSignedIn, async (request, reply) => {
    const zone = field(request.body, 'time_zone', 64)
    if (!isTimeZone(zone) || !timeZones.includes(zone)) throw new DomainError('invalid_request', { param: 'time_zone', message: 'Not a time zone.' })
    await setOwnerTimeZone(deps, accountOf(request)!, zone)
    return reply.redirect('/wallet/statement', 303)
  })

  app.get<{ Querystring: PeriodQuery }>('/wallet/statement.csv', signedIn, async (request, reply) => {
    const owner = await ownerOf(request)
    const flavour = flavourFrom(request.query)
    const { period, raw } = periodFrom(request.query, owner.timeZone)
    return sendCsv(reply, fileName('extrato', raw), statementExport(deps, owner, { currency: raw.currency as Currency | null, type: null, from: period.from, to: period.to }, flavour), flavour)
  })

  app.get<{ Querystring: PeriodQuery }>('/wallet/charges.csv', signedIn, async (request, reply) => {
    const owner = await ownerOf(request)
    const flavour = flavourFrom(request.query)
    const { period, raw } = periodFrom(request.query, owner.timeZone)
    return sendCsv(reply, fileName('cobrancas', raw), chargesExport(deps, owner, period, flavour), flavour)
  })

  app.get<{ Querystring: PeriodQuery }>('/wallet/withdrawals.csv', signedIn, async (request, reply) => {
    const owner = await ownerOf(request)
    const flavour = flavourFrom(request.query)
    const { period, raw } = periodFrom(request.query, owner.timeZone)
    return sendCsv(reply, fileName('saques', raw), withdrawalsExport(deps, owner, period, flavour), flavour)
  })
}

/** The zones the runtime knows, Brazil's first. */
const timeZones = (() => {
  const all = Intl.supportedValuesOf('timeZone')
  const brazil = ['America/Sao_Paulo', 'America/Bahia', 'America/Belem', 'America/Fortaleza', 'America/Recife', 'America/Maceio', 'America/Araguaina', 'America/Noronha',
    'America/Manaus', 'America/Cuiaba', 'America/Campo_Grande', 'America/Porto_Velho', 'America/Boa_Vista', 'America/Santarem', 'America/Rio_Branco', 'America/Eirunepe'].filter((zone) => all.includes(zone))
  return [...brazil, ...all.filter((zone) => !brazil.includes(zone)), ...(all.includes('UTC') ? [] : ['UTC'])]
})()

function currentMonth(now: Date, timeZone: string): string {
  const clock = wallClock(now, timeZone)
  return `${clock.year}-${clock.month}`
}
