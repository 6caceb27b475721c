// The page shell every page for people shares (the Wallet, the payment page, payment links, the
// console): one stylesheet and at most one script, each from a URL of its own (the CSP forbids
// inline code), a header with a brand and a navigation, and the body; and the parts every page
// writes alike (a moment, the CSRF field).
import { formatDateTime, type Lang } from '../i18n/catalogue.ts'
import { html, type Html } from './template.ts'

export type Shell = {
  lang: string
  /** The <title>, as text. */
  title: string
  /** The header's left side: the Wallet's name, or the merchant's on a payment page. */
  brand: Html
  nav: Html
  /** What the navigation is called, for screen readers. */
  navLabel: string
  body: Html
  /** More of the head, such as a no-script refresh. */
  head?: Html | null
  /** The console's own stylesheet and no script; the Wallet's by default. */
  assets?: { stylesheet: string; script: string | null }
}

const walletAssets = { stylesheet: '/wallet/assets/wallet.css', script: '/wallet/assets/wallet.js' }

export function shell(page: Shell): string {
  const assets = page.assets ?? walletAssets
  return html`<!doctype html>
<html lang="${page.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
<link rel="stylesheet" href="${assets.stylesheet}">${assets.script !== null && html`
<script src="${assets.script}" defer></script>`}${page.head}
</head>
<body>
<header class="top">
  ${page.brand}
  <nav aria-label="${page.navLabel}">
    ${page.nav}
  </nav>
</header>
<main>
${page.body}
</main>
</body>
</html>`.toString()
}

/** A moment as a <time>: the reading in the given zone (São Paulo unless chosen) for people, the exact instant for machines. */
export function time(lang: Lang, date: Date, timeZone?: string): Html {
  return html`<time datetime="${date.toISOString()}">${formatDateTime(lang, date, timeZone)}</time>`
}

export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`
}
