// The languages the service speaks and the way texts are read from them: one catalogue per
// language (pt-BR.ts, en.ts), Portuguese unless English is asked for.
import type { ChargeStatus, WebhookEventState } from '../domain/charge.ts'
import type { ErrorCode } from '../domain/errors.ts'
import { en } from './en.ts'
import { ptBR, type Catalogue } from './pt-BR.ts'

export type { Catalogue }
export const langs = ['pt-BR', 'en'] as const
export type Lang = (typeof langs)[number]

export const catalogues: Record<Lang, Catalogue> = { 'pt-BR': ptBR, en }

/** `{name}` in a text, replaced by its value; a placeholder without a value stays as it is. */
export function fill(text: string, values: Record<string, string> = {}): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole)
}

export type WalletKey = keyof Catalogue['wallet']

export function translate(lang: Lang, key: WalletKey, values: Record<string, string> = {}): string {
  return fill(catalogues[lang].wallet[key], values)
}

/** The Wallet's texts in one language, as a page reads them. */
export function texts(lang: Lang) {
  return (key: WalletKey, values: Record<string, string> = {}) => translate(lang, key, values)
}

export type PayKey = keyof Catalogue['pay']

/** A text of the public payment pages (/pay, /l), with its {placeholders} filled. */
export function payText(lang: Lang, key: PayKey, values: Record<string, string> = {}): string {
  return fill(catalogues[lang].pay[key], values)
}

export type ConsoleKey = keyof Catalogue['console']

/** A text of the support console, with its {placeholders} filled. */
export function consoleText(lang: Lang, key: ConsoleKey, values: Record<string, string> = {}): string {
  return fill(catalogues[lang].console[key], values)
}

export function statusLabel(lang: Lang, status: ChargeStatus): string {
  return catalogues[lang].statuses[status]
}

export function deliveryStateLabel(lang: Lang, state: WebhookEventState): string {
  return catalogues[lang].deliveryStates[state]
}

/** What an error code says to a person; the API's `error` field is the English one. */
export function errorText(code: ErrorCode, lang: Lang): string {
  return catalogues[lang].errors[code]
}

/** What to do about an error code, with `code` spans; /docs shows it beside the code's text. */
export function errorFix(code: ErrorCode, lang: Lang): string {
  return catalogues[lang].errorFixes[code]
}

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>()

/** A moment as people read it: in the page's language, São Paulo time unless the owner chose another zone. */
export function formatDateTime(lang: Lang, date: Date, timeZone = 'America/Sao_Paulo'): string {
  const key = `${lang} ${timeZone}`
  let format = dateTimeFormats.get(key)
  if (format === undefined) {
    format = new Intl.DateTimeFormat(lang, { dateStyle: lang === 'en' ? 'medium' : 'short', timeStyle: 'medium', timeZone })
    dateTimeFormats.set(key, format)
  }
  return format.format(date)
}

/** Portuguese unless English was asked for (the language link's cookie, or ?lang=en). */
export function langOf(choice: string | undefined): Lang {
  return choice === 'en' ? 'en' : 'pt-BR'
}
