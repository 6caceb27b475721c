// The one way pages are written (the Wallet, /docs, and every page after them): a tagged template
// that escapes every interpolated value unless it is already Html. A page cannot forget to escape;
// it can only choose, visibly, to trust: `raw()` for markup we wrote ourselves, `href()` for a URL.

/** Markup that is safe to place in a page as it is. */
export class Html {
  readonly #markup: string
  constructor(markup: string) {
    this.#markup = markup
  }
  toString(): string {
    return this.#markup
  }
}

/** Everything a template may interpolate; arrays are rendered one after another, null/false/undefined as nothing. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[]

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' }

/** Text as it must be written in an element or a quoted attribute. */
export function escapeText(text: string): string {
  return text.replace(/[&<>"'`]/g, (char) => entities[char]!)
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.toString()
  if (value === null || value === undefined || value === false || value === true) return ''
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeText(String(value))
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let markup = strings[0]!
  for (let i = 0; i < values.length; i++) markup += render(values[i]!) + strings[i + 1]!
  return new Html(markup)
}

/** Markup written by us, not by a user: the catalogue's own formatted texts, inline code. The only way past the escaping. */
export function raw(markup: string): Html {
  return new Html(markup)
}

/**
 * A URL for href/src: a path on this site, or http(s)/mailto. Anything else (javascript:, data:,
 * vbscript:, a protocol-relative //host) becomes "#", so a stored or forwarded URL can never run script.
 */
export function href(url: string): Html {
  const trimmed = url.trim()
  const onThisSite = /^\/(?![/\\])/.test(trimmed) || /^[?#]/.test(trimmed)
  const allowedScheme = /^(https?:\/\/|mailto:)/i.test(trimmed)
  return new Html(escapeText(onThisSite || allowedScheme ? trimmed : '#'))
}
