// Money as integer minor units: BRL/DEPIX cents, BTC satoshis, USDt 10^-6 units. No floats.

export const currencies = ['DEPIX', 'BTC', 'USDt'] as const
export type Currency = (typeof currencies)[number]

export const FIXED_FEE_CENTS = 100

/** The fixed fee taken from a deposit: R$ 1,00, or all of a smaller one (support may release one). */
export function fixedFeeOf(valueCents: number): number {
  return Math.min(FIXED_FEE_CENTS, Math.max(0, valueCents))
}
export const BTC_FEE_PERCENT = 6
export const USDT_FEE_PERCENT = 2

/** Inclusive charge bounds in BRL cents, per credited currency. */
export const chargeBoundsCents: Record<Currency, { min: number; max: number }> = {
  DEPIX: { min: 1_000, max: 500_000 },
  USDt: { min: 1_000, max: 500_000 },
  BTC: { min: 2_000, max: 500_000 },
}

/** A BRL amount as text: digits, then a dot and one or two decimals (the OpenAPI document says the same). */
export const brlValuePattern = '^[0-9]+(?:\\.[0-9]{1,2})?$'
const brlAmountPattern = /^(\d+)(?:\.(\d{1,2}))?$/

/**
 * Parses a BRL amount sent as a JSON string ("10.50") or number (10.5) into cents.
 * Returns null when it is not a plain non-negative decimal with at most two decimals.
 * Amounts too large to matter come back as Infinity so bounds checks reject them.
 */
export function parseBrlToCents(input: unknown): number | null {
  let text: string
  if (typeof input === 'string') text = input
  else if (typeof input === 'number' && Number.isFinite(input)) text = String(input)
  else return null
  const match = brlAmountPattern.exec(text)
  if (!match) return null
  const whole = match[1]!.replace(/^0+(?=\d)/, '')
  if (whole.length > 12) return Infinity
  const fraction = (match[2] ?? '').padEnd(2, '0')
  return Number(whole) * 100 + Number(fraction)
}

export function isWithinChargeBounds(cents: number, currency: Currency): boolean {
  const { min, max } = chargeBoundsCents[currency]
  return cents >= min && cents <= max
}

function groupThousands(digits: string, separator: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, separator)
}

/** `R$ 1.234,56`, `-R$ 1,00` (ASCII space, decimal comma). */
export function formatBrl(cents: number): string {
  const sign = cents < 0 ? '-' : ''
  const abs = Math.abs(cents)
  const whole = Math.trunc(abs / 100).toString()
  const fraction = (abs % 100).toString().padStart(2, '0')
  return `${sign}R$ ${groupThousands(whole, '.')},${fraction}`
}

/** Integer minor units as a decimal string with a dot and exactly `decimals` places. */
export function formatUnits(units: number, decimals: number): string {
  const sign = units < 0 ? '-' : ''
  const digits = Math.abs(units).toString().padStart(decimals + 1, '0')
  return `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`
}

export const formatBtc = (sats: number): string => formatUnits(sats, 8)
export const formatUsdt = (units: number): string => formatUnits(units, 6)

/** Decimals a person types for each currency: centavos, satoshis (8), 10^-6 USDt. */
const typedDecimals: Record<Currency, number> = { DEPIX: 2, BTC: 8, USDt: 6 }

/**
 * An amount typed in a form ("100,50", "0.001", "12.5") as the currency's minor units; null when
 * it is not a plain positive decimal with at most the currency's decimals.
 */
export function parseAmountInput(currency: Currency, text: string): number | null {
  const match = /^(\d{1,12})(?:[.,](\d+))?$/.exec(text.trim())
  const decimals = typedDecimals[currency]
  if (!match || (match[2] ?? '').length > decimals) return null
  const units = Number(match[1]) * 10 ** decimals + Number((match[2] ?? '').padEnd(decimals, '0'))
  return Number.isSafeInteger(units) && units > 0 ? units : null
}

/** An amount of any currency as a person reads it: `R$ 10,50`, `0.00012345 L-BTC`, `4.512345 USDt`. */
export function formatAmount(currency: Currency, amount: number): string {
  return currency === 'DEPIX' ? formatBrl(amount) : currency === 'BTC' ? `${formatBtc(amount)} L-BTC` : `${formatUsdt(amount)} USDt`
}

/** A charge's value less the fixed deposit fee: what is converted or credited. */
export function netOfFixedFee(valueCents: number): number {
  return valueCents - fixedFeeOf(valueCents)
}

/**
 * A BRL price of one BTC or one USDt is kept in millionths of a real (micro-reais): a USDt price
 * of R$ 5,4321 loses nothing, where centavos would round it by up to 0.1 % (prices keep at
 * least 4 decimals: docs/rules.md#quotes). The conversions below are the formulas of
 * docs/rules.md#conversions with quote_cents = quote_micros / 10^4, so they agree with them
 * exactly.
 */
const MICROS_PER_CENT = 10_000n

/** floor(net_cents × 10^8 × 100 / (quote_cents × 106)) satoshis, the quote in micro-reais. */
export function centsToSats(netCents: number, btcQuoteMicros: number): number {
  return Number((BigInt(netCents) * 10n ** 8n * 100n * MICROS_PER_CENT) / (BigInt(btcQuoteMicros) * BigInt(100 + BTC_FEE_PERCENT)))
}

/** floor(net_cents × 10^6 × 100 / (quote_cents × 102)) USDt units, the quote in micro-reais. */
export function centsToUsdtUnits(netCents: number, usdtQuoteMicros: number): number {
  return Number((BigInt(netCents) * 10n ** 6n * 100n * MICROS_PER_CENT) / (BigInt(usdtQuoteMicros) * BigInt(100 + USDT_FEE_PERCENT)))
}

/** What `netCents` buys in the credited currency's minor units, fees of the conversion taken; DEPIX needs no quote. */
export function convertNet(netCents: number, currency: Currency, quoteMicros: number | null): number {
  if (currency === 'DEPIX') return netCents
  if (quoteMicros === null || quoteMicros <= 0) throw new Error(`a ${currency} credit needs a positive quote`)
  return currency === 'BTC' ? centsToSats(netCents, quoteMicros) : centsToUsdtUnits(netCents, quoteMicros)
}

/** What one confirmed payment of `arrivedCents` credits, in the credited currency's minor units. */
export function creditedAmount(arrivedCents: number, currency: Currency, quoteMicros: number | null): number {
  return convertNet(netOfFixedFee(arrivedCents), currency, quoteMicros)
}

/** Minor units of each currency in one whole unit (a real, a bitcoin, a USDt). */
export const unitsPerWhole: Record<Currency, bigint> = { DEPIX: 100n, BTC: 10n ** 8n, USDt: 10n ** 6n }
