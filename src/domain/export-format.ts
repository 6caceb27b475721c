// How exported values are written (docs/statements.md): a Brazilian spreadsheet flavour by default
// (`;` between fields, decimal comma, Portuguese headers, a BOM so Excel reads the accents) and a
// standard one (`,`, decimal point, English headers). Amounts are plain numbers in the currency's
// unit (no symbol, no thousands separator) so a spreadsheet sums them; dates are read in the
// owner's time zone, and each row also carries its UTC instant.
import { formatUnits, type Currency } from './money.ts'

export const csvFlavours = ['br', 'standard'] as const
export type CsvFlavour = (typeof csvFlavours)[number]

export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo'

export function csvFlavourOf(value: string | undefined): CsvFlavour | null {
  if (value === undefined || value === '') return 'br'
  return (csvFlavours as readonly string[]).includes(value) ? (value as CsvFlavour) : null
}

export function csvSettings(flavour: CsvFlavour): { delimiter: string; bom: boolean; lang: 'pt-BR' | 'en' } {
  return flavour === 'br' ? { delimiter: ';', bom: true, lang: 'pt-BR' } : { delimiter: ',', bom: false, lang: 'en' }
}

export const currencyDecimals: Record<Currency, number> = { DEPIX: 2, BTC: 8, USDt: 6 }

/** Minor units as a plain decimal number in the flavour's decimal mark: `1234,56` or `1234.56`. */
export function decimalText(units: number, decimals: number, flavour: CsvFlavour): string {
  const text = formatUnits(units, decimals)
  return flavour === 'br' ? text.replace('.', ',') : text
}

export const amountText = (currency: Currency, units: number, flavour: CsvFlavour): string => decimalText(units, currencyDecimals[currency], flavour)

/** Whether the runtime knows this IANA time zone. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
    return zone.length <= 64
  } catch {
    return false
  }
}

const partsFormats = new Map<string, Intl.DateTimeFormat>()

/** The wall-clock reading of an instant in a time zone, asked of Intl. */
function readWallClock(date: Date, timeZone: string): { year: string; month: string; day: string; hour: string; minute: string; second: string } {
  let format = partsFormats.get(timeZone)
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
    partsFormats.set(timeZone, format)
  }
  const parts = Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]))
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! }
}

/**
 * Each zone's offset from UTC per quarter of an hour (offsets change only on such boundaries):
 * an export of a million lines asks Intl once a quarter-hour of history, not once a line.
 */
const QUARTER_HOUR = 15 * 60_000
const offsets = new Map<string, Map<number, number>>()

function offsetAt(date: Date, timeZone: string): number {
  let zone = offsets.get(timeZone)
  if (zone === undefined || zone.size > 100_000) offsets.set(timeZone, (zone = new Map()))
  const quarter = Math.floor(date.getTime() / QUARTER_HOUR)
  let offset = zone.get(quarter)
  if (offset === undefined) {
    const start = new Date(quarter * QUARTER_HOUR)
    const c = readWallClock(start, timeZone)
    offset = Date.UTC(Number(c.year), Number(c.month) - 1, Number(c.day), Number(c.hour), Number(c.minute), Number(c.second)) - start.getTime()
    zone.set(quarter, offset)
  }
  return offset
}

const two = (n: number) => String(n).padStart(2, '0')

/** The wall-clock reading of an instant in a time zone, as zero-padded digits. */
export function wallClock(date: Date, timeZone: string): { year: string; month: string; day: string; hour: string; minute: string; second: string } {
  const local = new Date(date.getTime() + offsetAt(date, timeZone))
  return {
    year: String(local.getUTCFullYear()).padStart(4, '0'), month: two(local.getUTCMonth() + 1), day: two(local.getUTCDate()),
    hour: two(local.getUTCHours()), minute: two(local.getUTCMinutes()), second: two(local.getUTCSeconds()),
  }
}

/** `23/11/2026 09:03:12` (Brazilian) or `2026-11-23 09:03:12` (standard), in the time zone. */
export function localDateTimeText(date: Date, timeZone: string, flavour: CsvFlavour): string {
  const c = wallClock(date, timeZone)
  return flavour === 'br' ? `${c.day}/${c.month}/${c.year} ${c.hour}:${c.minute}:${c.second}` : `${c.year}-${c.month}-${c.day} ${c.hour}:${c.minute}:${c.second}`
}

/**
 * The instant a local calendar day starts in a time zone (`2026-11-01` in São Paulo is
 * 03:00 UTC): a month or a date range is chosen in the owner's days.
 */
export function startOfLocalDay(day: { year: number; month: number; day: number }, timeZone: string): Date {
  // The zone's offset at that moment, read back from the wall clock; twice, for a day that starts at a change of offset.
  let guess = Date.UTC(day.year, day.month - 1, day.day)
  for (let i = 0; i < 2; i++) {
    const c = wallClock(new Date(guess), timeZone)
    const shown = Date.UTC(Number(c.year), Number(c.month) - 1, Number(c.day), Number(c.hour), Number(c.minute), Number(c.second))
    guess += Date.UTC(day.year, day.month - 1, day.day) - shown
  }
  return new Date(guess)
}

export type Period = { from: Date | null; to: Date | null }

/**
 * A period a person chose, in the owner's days: a month (`2026-11`), or a first and a last day
 * (`2026-11-01`, `2026-11-15`, both included); none of them is everything. Null for text that is
 * not such a date, with the parameter at fault.
 */
export function periodOf(query: { month?: string; from?: string; to?: string }, timeZone: string): Period | { invalid: 'month' | 'from' | 'to' } {
  const dayOf = (text: string) => {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
    if (!match) return null
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
    const check = new Date(Date.UTC(year, month - 1, day))
    return check.getUTCFullYear() === year && check.getUTCMonth() === month - 1 && check.getUTCDate() === day && year >= 2000 && year < 3000 ? { year, month, day } : null
  }
  const next = (day: { year: number; month: number; day: number }) => {
    const date = new Date(Date.UTC(day.year, day.month - 1, day.day + 1))
    return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() }
  }
  if (query.month) {
    const match = /^(\d{4})-(\d{2})$/.exec(query.month)
    const start = match ? dayOf(`${match[1]}-${match[2]}-01`) : null
    if (start === null) return { invalid: 'month' }
    const end = start.month === 12 ? { year: start.year + 1, month: 1, day: 1 } : { year: start.year, month: start.month + 1, day: 1 }
    return { from: startOfLocalDay(start, timeZone), to: startOfLocalDay(end, timeZone) }
  }
  const from = query.from ? dayOf(query.from) : undefined
  if (from === null) return { invalid: 'from' }
  const to = query.to ? dayOf(query.to) : undefined
  if (to === null) return { invalid: 'to' }
  return { from: from ? startOfLocalDay(from, timeZone) : null, to: to ? startOfLocalDay(next(to), timeZone) : null }
}
