// How much one charge may ask of a payer: R$ 10,00 without an EUID; with a provider-known EUID,
// a ladder that grows with the payer's confirmed history.

export const LIMIT_WITHOUT_EUID_CENTS = 1_000

export type LadderStep = { minConfirmedPayments: number; minDaysSinceFirst: number; limitCents: number }

/** Default ladder (docs/rules.md#payer-limits); operators override it with PAYER_LIMIT_LADDER. */
export const defaultPayerLadder: readonly LadderStep[] = [
  { minConfirmedPayments: 0, minDaysSinceFirst: 0, limitCents: 49_900 },
  { minConfirmedPayments: 5, minDaysSinceFirst: 7, limitCents: 100_000 },
  { minConfirmedPayments: 15, minDaysSinceFirst: 30, limitCents: 250_000 },
  { minConfirmedPayments: 30, minDaysSinceFirst: 60, limitCents: 500_000 },
]

export type PayerHistory = { confirmedPayments: number; firstConfirmedAt: Date | null }

const DAY_MS = 86_400_000

/** The limit of the highest ladder step whose payments and days the history meets. */
export function payerLimitCents(
  euidGiven: boolean,
  history: PayerHistory,
  now: Date,
  ladder: readonly LadderStep[] = defaultPayerLadder,
): number {
  if (!euidGiven) return LIMIT_WITHOUT_EUID_CENTS
  const days = history.firstConfirmedAt ? (now.getTime() - history.firstConfirmedAt.getTime()) / DAY_MS : 0
  let limit = ladder[0]?.limitCents ?? LIMIT_WITHOUT_EUID_CENTS
  for (const step of ladder) {
    if (history.confirmedPayments >= step.minConfirmedPayments && days >= step.minDaysSinceFirst) {
      limit = Math.max(limit, step.limitCents)
    }
  }
  return limit
}

/**
 * Parses "payments:days:limit_brl" steps separated by commas, e.g.
 * "0:0:499.00,5:7:1000.00". The first step must start at 0 payments and 0 days.
 */
export function parseLadder(text: string): LadderStep[] {
  const steps = text.split(',').map((part) => {
    const match = /^\s*(\d+):(\d+):(\d+)(?:\.(\d{1,2}))?\s*$/.exec(part)
    if (!match) throw new Error(`ladder step "${part}" is not payments:days:limit`)
    return {
      minConfirmedPayments: Number(match[1]),
      minDaysSinceFirst: Number(match[2]),
      limitCents: Number(match[3]) * 100 + Number((match[4] ?? '').padEnd(2, '0')),
    }
  })
  const first = steps[0]
  if (!first || first.minConfirmedPayments !== 0 || first.minDaysSinceFirst !== 0) {
    throw new Error('the first ladder step must be 0:0:<limit>')
  }
  return steps
}
